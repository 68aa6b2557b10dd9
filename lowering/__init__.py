"""Ahead-of-time side of the NNAPI delegate: what NnapiBackend.preprocess needs (patterns, op builders,
the NNAPI graph, the shape program, the blob). The CLI is in executorch_nnapi.tools."""

from .compile_specs import NnapiCompileOptions
from .nnapi_backend import NnapiBackend
from .nnapi_codes import FeatureLevel

__all__ = ["FeatureLevel", "NnapiBackend", "NnapiCompileOptions"]
