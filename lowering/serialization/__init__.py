"""The delegate blob: schema (nnapi_blob.fbs), writer and reader."""

from .blob_writer import SCHEMA_VERSION, serialize_graph
from .blob_reader import BlobSummary, read_blob
from .scalar_types import scalar_type_code

__all__ = ["SCHEMA_VERSION", "serialize_graph", "BlobSummary", "read_blob", "scalar_type_code"]
