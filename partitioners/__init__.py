"""Partitioner of the ExecuTorch NNAPI delegate."""

from .cpu_kernels import NoCpuKernelError
from .nnapi_partitioner import NnapiOperatorSupport, NnapiPartitioner, NodeDecision
from .op_support import SUPPORT_TABLE, OpSupport

__all__ = ["NnapiPartitioner", "NnapiOperatorSupport", "NoCpuKernelError", "NodeDecision", "SUPPORT_TABLE", "OpSupport"]
