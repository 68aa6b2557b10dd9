"""LOGISTIC (14): 1 / (1 + exp(-x)); quantized outputs are fixed at scale 1/256."""

import torch

from ._unary import validate_unary
from .common import FLOAT_QUANT, QA8, QA8S, Ctx

NAME, CODE, SINCE = "LOGISTIC", 14, 27
QUANT_COMPUTE = False


def validate(c: Ctx) -> None:
    validate_unary(c, FLOAT_QUANT, max_rank=4, fixed_q={QA8: (1 / 256, 0), QA8S: (1 / 256, -128)})


def compute(ins, p):
    return [torch.sigmoid(ins[0])]
