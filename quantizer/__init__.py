"""The PT2E quantizer of the NNAPI delegate: ``NnapiQuantizer`` (annotations following NNAPI's 8-bit
rules, docs/nnapi_facts.md §8; its op tables are its own and must agree with
lowering/builders/quantized_op.py) and calibration (inputs from a directory, a function or random
numbers; SQNR)."""

from .nnapi_quantizer import NnapiQuantizer

__all__ = ["NnapiQuantizer"]
