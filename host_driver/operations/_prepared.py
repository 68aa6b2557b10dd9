"""Which operations have a prepared 8-bit kernel (`_qfast`, `_qconv`) or float32 kernel
(`_float_fast`), asked by the plan once per compilation (host_driver/compilation.py;
docs/architecture.md, "The host driver's 8-bit path")."""

from __future__ import annotations

from typing import Callable, Optional, Sequence

from . import _float_fast, _qconv, _qfast
from ._qfast import Kernel, OperandInfo

# Operation name -> maker(params, inputs, outputs, reference kernel) -> kernel or None.
MAKERS: dict[str, Callable] = {
    "CONV_2D": _qconv.conv_kernel,
    "DEPTHWISE_CONV_2D": _qconv.conv_kernel,
    "GROUPED_CONV_2D": _qconv.conv_kernel,
    "FULLY_CONNECTED": _qconv.fully_connected_kernel,
    "LOGISTIC": _qfast.unary_table,
    "TANH": _qfast.unary_table,
    "HARD_SWISH": _qfast.unary_table,
    "DEQUANTIZE": _qfast.dequantize_table,
    "QUANTIZE": _qfast.quantize_kernel,
    "ADD": _qfast.binary_table,
    "SUB": _qfast.binary_table,
    "MUL": _qfast.binary_table,
    "AVERAGE_POOL_2D": _qfast.average_pool,
    "MAX_POOL_2D": _qfast.max_pool,
}


def prepared_kernel(name: str, p, ins: Sequence[OperandInfo], outs: Sequence[OperandInfo],
                    reference: Kernel) -> Optional[Kernel]:
    """A kernel computing what ``reference`` (the operation's compute) computes, prepared for
    these parameters and operands, or None when there is none (the plan keeps ``reference``)."""
    if p is None:
        return None
    if not getattr(p, "quant", name in ("DEQUANTIZE", "QUANTIZE")):
        float_maker = _float_fast.FLOAT_MAKERS.get(name)
        return None if float_maker is None else float_maker(p, ins, outs, reference)
    maker = MAKERS.get(name)
    return None if maker is None else maker(p, ins, outs, reference)
