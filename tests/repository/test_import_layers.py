"""The import graph of every package: no cycle, and imports flow one way.

Between the parts: tools -> partitioners / quantizer -> lowering; the runtime's Python imports
no lowering, partitioner, quantizer or tool; the host driver (the independent NNAPI
implementation the delegate is checked against) imports none of the other parts. Inside
lowering: patterns -> builders -> graph and blob.

Walks the source files themselves (every import statement, also those inside
functions, which hide cycles from Python at import time), so it checks the
repository as written rather than what happened to be imported.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PARTS = ("tools", "partitioners", "quantizer", "lowering", "runtime", "host_driver")
PACKAGES = {part: f"executorch_nnapi.{part}" for part in PARTS}
# builders/__init__.py imports every module of its folder with importlib (builders
# register themselves), which no import statement shows.
AUTO_IMPORTING_PACKAGES = {"executorch_nnapi.lowering.builders"}


def _modules() -> dict[str, pathlib.Path]:
    """Dotted module name -> source file, for every module of every package."""
    found = {}
    for folder, dotted in PACKAGES.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            if is_package:
                parts = parts[:-1]
            found[".".join([dotted, *parts])] = path
    return found


def _package_of(module: str, path: pathlib.Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _imports(module: str, path: pathlib.Path, modules: dict[str, pathlib.Path]) -> set[str]:
    """The project modules ``module`` imports."""
    out: set[str] = set()
    package = _package_of(module, path)
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            # `from pkg import name` imports the submodule pkg.name if there is one.
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        else:
            continue
        out.update(t for t in targets if t in modules)
    if module in AUTO_IMPORTING_PACKAGES:
        out.update(m for m in modules if m.rpartition(".")[0] == module)
    out.discard(module)
    return out


@pytest.fixture(scope="module")
def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return components


def test_the_walker_sees_relative_absolute_and_function_level_imports(import_graph):
    backend = import_graph["executorch_nnapi.lowering.nnapi_backend"]
    assert "executorch_nnapi.lowering.builders" in backend                 # from .builders import ...
    assert "executorch_nnapi.lowering.constant_folding" in backend         # from . import constant_folding
    partitioner = import_graph["executorch_nnapi.partitioners.nnapi_partitioner"]
    assert "executorch_nnapi.lowering.program_analysis" in partitioner     # absolute import
    assert "executorch_nnapi.lowering.passes" in partitioner
    assert "executorch_nnapi.lowering.constant_folding" in import_graph[
        "executorch_nnapi.lowering.builders.node_builder"]                  # inside a function
    assert "executorch_nnapi.lowering.builders.conv2d" in import_graph["executorch_nnapi.lowering.builders"]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycle(import_graph):
    assert _cycles(import_graph) == []


def _layer(module: str) -> str:
    rest = module.split(".", 1)[1]
    for prefix, layer in (("partitioners", "partitioner"), ("lowering.patterns", "patterns"),
                          ("lowering.builders", "builders")):
        if rest == prefix or rest.startswith(prefix + "."):
            return layer
    return rest


# Modules below the builders: the NNAPI graph, the blob and what both layers share.
BOTTOM = {"lowering.graph", "lowering.nnapi_codes", "lowering.node_utils", "lowering.node_units",
          "lowering.shape_program", "lowering.size_bounds", "lowering.lowering_context", "lowering.constant_folding",
          "lowering.serialization", "lowering.serialization.blob_writer", "lowering.serialization.blob_reader"}


def test_data_flows_one_way(import_graph):
    wrong = []
    for module, imported in import_graph.items():
        layer = _layer(module)
        for target in imported:
            to = _layer(target)
            if layer == "patterns" and to in ("builders", "partitioner"):
                wrong.append((module, target))      # patterns import no builder
            if layer == "builders" and to in ("patterns", "partitioner"):
                wrong.append((module, target))      # builders take units, they do not find them
            if layer in BOTTOM and to in ("patterns", "builders", "partitioner"):
                wrong.append((module, target))      # the graph and blob know no higher layer
    assert wrong == []


# What each part may import besides itself (every other project import is an arrow against the order).
MAY_IMPORT = {
    "tools": {"partitioners", "quantizer", "lowering", "runtime", "host_driver"},
    "partitioners": {"lowering"},
    "quantizer": {"lowering"},
    "lowering": set(),
    "runtime": {"host_driver"},     # on a Linux host it installs the host driver as its NNAPI
    "host_driver": set(),
}


def _part(module: str) -> str:
    return module.split(".")[1]


def test_every_part_is_walked(import_graph):
    assert {_part(m) for m in import_graph} == set(PARTS)


def test_parts_import_downwards_only(import_graph):
    wrong = sorted((module, target) for module, imported in import_graph.items() for target in imported
                   if _part(target) != _part(module) and _part(target) not in MAY_IMPORT[_part(module)])
    assert wrong == []
