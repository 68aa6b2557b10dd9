"""The PT2E quantizer of the NNAPI delegate: ``NnapiQuantizer`` (annotation rules derived from
the builders' quantization declarations) and calibration (inputs from a directory, a function or
random numbers; SQNR)."""

from .nnapi_quantizer import NnapiQuantizer

__all__ = ["NnapiQuantizer"]
