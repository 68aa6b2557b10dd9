#!/usr/bin/env bash
# The C++ runner on this Linux host, the way it runs on a phone with adb shell:
# export a torchvision model with dynamic H/W to a .pte (NNAPI delegate),
# write an input tensor as raw little-endian float32, run nnapi_executor_runner on it at a
# size other than the export size, and compare its output file with eager torch.
#
# usage: examples/run_on_host.sh [MODEL] [WORKDIR]   (default mobilenet_v2, a temp dir)
# Needs the package installed (scripts/dev.sh setup); PYTHON defaults to that venv's python.
set -euo pipefail
MODEL="${1:-mobilenet_v2}"
WORK="${2:-$(mktemp -d)}"
PYTHON="${PYTHON:-${EXECUTORCH_NNAPI_VENV:-$HOME/.cache/executorch-nnapi/venv}/bin/python}"
mkdir -p "$WORK/out"

"$PYTHON" - "$MODEL" "$WORK" <<'PY'
import sys
import torch, torchvision
from torch.export import Dim, export
from executorch.exir import to_edge_transform_and_lower
from executorch_nnapi.partitioners import NnapiPartitioner

name, work = sys.argv[1], sys.argv[2]
torch.manual_seed(0)
model = getattr(torchvision.models, name)(weights=None).eval()
dims = {"x": {2: Dim("h", min=96, max=320), 3: Dim("w", min=96, max=320)}}
ep = export(model, (torch.randn(1, 3, 224, 224),), dynamic_shapes=dims)
pte = to_edge_transform_and_lower(ep, partitioner=[NnapiPartitioner()]).to_executorch()
open(f"{work}/model.pte", "wb").write(pte.buffer)
x = torch.randn(1, 3, 160, 192)
x.numpy().astype("<f4").tofile(f"{work}/input.bin")
torch.save(model(x).detach(), f"{work}/expected.pt")
PY

# The host driver computes with torch inside the runner process. Measured on a shared 2-core
# machine: with OpenMP's default thread count mobilenet_v2 took ~1.3 s per run (spinning OpenMP
# threads against the other load), with one thread ~26 ms. Set OMP_NUM_THREADS to override.
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
RUNNER="$("$PYTHON" -c "from executorch_nnapi.runtime.backend_library import runner_path; print(runner_path())")"
"$RUNNER" --model "$WORK/model.pte" --input "$WORK/input.bin:1,3,160,192" \
    --iters 10 --warmup 2 --output-dir "$WORK/out"

"$PYTHON" - "$WORK" <<'PY'
import json, sys
import numpy as np, torch
work = sys.argv[1]
meta = json.load(open(f"{work}/out/output_0.json"))
got = torch.from_numpy(np.fromfile(f"{work}/out/output_0.bin", dtype="<f4").reshape(meta["shape"]))
want = torch.load(f"{work}/expected.pt")
err = ((got - want).abs().max() / want.abs().max()).item()
print(f"runner output {meta['dtype']}{meta['shape']} vs eager: max relative error {err:.2e}")
sys.exit(0 if err < 1e-3 else 1)
PY
