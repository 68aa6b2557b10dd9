"""What the tests of nnapi_executor_runner share (tests/runtime/test_runner.py, the aarch64 runs in
tests/aarch64/): a small two-output model, a .pte written from exported programs, raw input files,
and the ``output_<i>.bin`` / ``.json`` pairs the runner writes, read back as tensors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch
from executorch.exir import to_edge_transform_and_lower

# The runner's dtype names (ExecuTorch's toString) -> numpy.
DTYPES = {"Float": np.float32, "Long": np.int64, "Int": np.int32, "Byte": np.uint8, "Char": np.int8,
          "Bool": np.bool_}


class SmallNet(torch.nn.Module):
    """A conv and a linear layer, both outputs returned (H and W may be dynamic)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.pool = torch.nn.AdaptiveAvgPool2d(1)
        self.fc = torch.nn.Linear(8, 5)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = torch.relu(self.conv(x))
        return y, self.fc(self.pool(y).flatten(1))


def write_pte(path: Path, programs: dict, partitioners: dict) -> Path:
    """Lowers ``programs`` (method name -> ExportedProgram) with ``partitioners`` into ``path``."""
    edge = to_edge_transform_and_lower(programs, partitioner=partitioners)
    path.write_bytes(edge.to_executorch().buffer)
    return path


def write_input(path: Path, tensor: torch.Tensor) -> str:
    """Writes ``tensor``'s elements little-endian to ``path``; returns the runner's --input value
    (the path and the sizes)."""
    array = tensor.detach().contiguous().numpy()
    array.astype(array.dtype.newbyteorder("<")).tofile(path)
    return f"{path}:{','.join(str(d) for d in tensor.shape)}"


def read_output(directory: Path, index: int) -> torch.Tensor:
    """Output ``index`` the runner wrote into ``directory``."""
    meta = json.loads((directory / f"output_{index}.json").read_text())
    data = np.fromfile(directory / f"output_{index}.bin", dtype=np.dtype(DTYPES[meta["dtype"]]).newbyteorder("<"))
    return torch.from_numpy(data.reshape(meta["shape"]).copy())


def read_outputs(directory: Path) -> list[torch.Tensor]:
    """Every output the runner wrote into ``directory``, in order."""
    count = len(list(directory.glob("output_*.json")))
    return [read_output(directory, i) for i in range(count)]
