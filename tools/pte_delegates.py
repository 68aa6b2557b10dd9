"""The NNAPI delegate calls of a .pte: their blobs and the compile specs they were made with."""

from __future__ import annotations

import dataclasses

from executorch.exir._serialize._program import deserialize_pte_binary
from executorch.exir.schema import DelegateCall

from executorch_nnapi.lowering.serialization.blob_reader import BlobSummary, read_blob

__all__ = ["BACKEND_ID", "NnapiDelegate", "nnapi_delegates"]

BACKEND_ID = "NnapiBackend"


@dataclasses.dataclass
class NnapiDelegate:
    """One NNAPI delegate call of a .pte's ``forward``."""

    instruction: int
    """Its instruction's index in the method's chain (ETDump events carry it)."""
    partition: int
    """Its index among the method's NNAPI delegate calls, in execution order."""
    blob: BlobSummary
    compile_specs: list
    """The partitioner's options (``NnapiCompileOptions``, dynamic ranges) as stored in the .pte."""


def nnapi_delegates(pte: bytes) -> list[NnapiDelegate]:
    """The NNAPI delegate calls of the .pte's ``forward`` (else its first method), in execution order."""
    program = deserialize_pte_binary(pte).program
    plan = next((p for p in program.execution_plan if p.name == "forward"), program.execution_plan[0])
    out: list[NnapiDelegate] = []
    for index, instruction in enumerate(plan.chains[0].instructions):
        call = instruction.instr_args
        if not isinstance(call, DelegateCall):
            continue
        delegate = plan.delegates[call.delegate_index]
        if delegate.id != BACKEND_ID:
            continue
        blob = read_blob(bytes(program.backend_delegate_data[delegate.processed.index].data))
        out.append(NnapiDelegate(index, len(out), blob, list(delegate.compile_specs)))
    return out
