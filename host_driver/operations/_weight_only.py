"""FULLY_CONNECTED on the DEQUANTIZE of constant int8 weights: a weight-only quantized model's
linears (lowering emits DEQUANTIZE + FULLY_CONNECTED; docs/language_models.md).

The plan (compilation.Plan._fuse_weight_only) hands such a FULLY_CONNECTED the int8 codes and
their scales instead of a float32 copy of the weights: the compiled kernel
(kernels/nnapi_host_gemm.c, nnapi_host_linear_int8) reads a quarter of the bytes, which is what a
language model's decode step costs. Its float32 result is scale · Σ x·q + bias where the DEQUANTIZE
route computes Σ x·(scale·q) + bias: the same product, rounded differently within float32's
relative error (NNAPI defines no summation order for FULLY_CONNECTED either).
"""

from __future__ import annotations

from typing import Optional

import torch

from . import _native
from .common import activate_

# Rows up to which the int8 kernel runs (a decode step, a short prompt): it re-reads each weight
# row per input row from cache, where float addmm blocks over rows; longer prompts keep the
# DEQUANTIZE (folded once into float32 weights when the plan is made).
MAX_ROWS = 16


def weight_only_kernel(codes: torch.Tensor, scale, zero_point: int, rows: int):
    """(fn, into) computing FULLY_CONNECTED(x, DEQUANTIZE(codes), bias) from the int8 ``codes``
    [units, input_size] and ``scale`` (a number, or one per unit), with the step's inputs
    (x, bias); None without the compiled library, for a zero point other than 0, or past
    MAX_ROWS rows."""
    native = _native.kernels()
    if native is None or zero_point != 0 or codes.dtype != torch.int8 or codes.dim() != 2 or rows > MAX_ROWS:
        return None
    units = codes.shape[0]
    scale = torch.as_tensor(scale, dtype=torch.float32)
    if scale.dim() == 2 and scale.shape[1] != 1:    # per-channel scales along the input axis
        return None
    scales = scale.reshape(-1).contiguous()
    if scales.numel() not in (1, units):
        return None
    codes = codes.contiguous()

    def into(ins: list, p, outs: list) -> bool:
        x = ins[0].reshape(p.batch_shape).contiguous()
        bias: Optional[torch.Tensor] = p.bias if p.bias is not None else ins[1]
        native.linear_int8(x, codes, scales, None if bias is None else bias.contiguous(), outs[0])
        if p.act or (bias is not None and not bias.is_contiguous()):
            native.computed_otherwise()   # torch's clamp, or a copy of the bias made here
        activate_(outs[0], p.act)
        return True

    def fn(ins: list, p) -> list:
        out = torch.empty(p.batch_shape[0], units)
        into(ins, p, [out])
        return [out]

    fn.prepared = "compiled weight-only int8 FULLY_CONNECTED (the DEQUANTIZE's codes and scales)"
    fn.replayable = True   # its work is its native call, except where it says otherwise (native_runs.py)
    return fn, into
