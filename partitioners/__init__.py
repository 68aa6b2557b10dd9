"""Partitioner of the ExecuTorch NNAPI delegate."""

from .nnapi_partitioner import NnapiOperatorSupport, NnapiPartitioner, NodeDecision
from .op_support import SUPPORT_TABLE, OpSupport

__all__ = ["NnapiPartitioner", "NnapiOperatorSupport", "NodeDecision", "SUPPORT_TABLE", "OpSupport"]
