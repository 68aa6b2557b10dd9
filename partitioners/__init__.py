"""Partitioner of the ExecuTorch NNAPI delegate."""

from .nnapi_partitioner import NnapiOperatorSupport, NnapiPartitioner, NoCpuKernelError, NodeDecision
from .op_support import SUPPORT_TABLE, OpSupport

__all__ = ["NnapiPartitioner", "NnapiOperatorSupport", "NoCpuKernelError", "NodeDecision", "SUPPORT_TABLE", "OpSupport"]
