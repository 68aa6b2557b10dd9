"""TANH (28): tanh(x); quantized outputs are fixed at scale 1/128."""

import torch

from ._unary import validate_unary
from .common import F16, F32, QA8, QA8S, Ctx

NAME, CODE, SINCE = "TANH", 28, 27
QUANT_COMPUTE = False
TYPES = {F32: 27, F16: 29, QA8: 29, QA8S: 30}


def validate(c: Ctx) -> None:
    validate_unary(c, TYPES, max_rank=4, fixed_q={QA8: (1 / 128, 128), QA8S: (1 / 128, 0)})


def compute(ins, p):
    return [torch.tanh(ins[0])]
