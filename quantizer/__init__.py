"""``from executorch_nnapi.quantizer import NnapiQuantizer``: the PT2E quantizer for the
NNAPI delegate. It lives in lowering/quantizer.py, beside the quantized lowering
whose rules it follows; this package is its public name."""

from executorch_nnapi.lowering.quantizer import NnapiQuantizer

__all__ = ["NnapiQuantizer"]
