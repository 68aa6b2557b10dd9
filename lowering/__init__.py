"""Ahead-of-time side of the NNAPI delegate: patterns, op builders, blob, preprocess, CLI."""

from .compile_specs import NnapiCompileOptions
from .nnapi_backend import NnapiBackend
from .nnapi_codes import FeatureLevel

__all__ = ["FeatureLevel", "NnapiBackend", "NnapiCompileOptions"]
