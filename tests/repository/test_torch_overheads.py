"""tests/torch_overheads.py changes how long torch.export takes in the test processes, not what it
computes: the reused census of composite ops is torch's own answer, also after an operator is
registered; a decomposition gives the same graph with torch's own ``py_impl`` and ``Callable``; and
the short path of ``py_impl`` registers as torch's own does."""

from __future__ import annotations

import collections.abc

import pytest
import torch
from torch._export import utils as export_utils
from torch.export import exported_program

import torch_overheads


def test_the_reused_census_is_torchs_and_follows_a_new_operator():
    reused = exported_program._collect_all_valid_cia_ops
    assert getattr(reused, "reused", False), "tests/conftest.py did not install torch_overheads"
    assert reused() == reused.original()
    library = torch.library.Library("nnapi_overheads_test", "DEF")  # noqa: F841 (kept alive: the op lives with it)
    library.define("twice(Tensor x) -> Tensor")
    library.impl("twice", lambda x: x + x, "CompositeImplicitAutograd")
    after = reused()
    assert torch.ops.nnapi_overheads_test.twice.default in after
    assert after == reused.original() and export_utils._collect_all_valid_cia_ops is reused


class _Block(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.gelu(torch.nn.functional.layer_norm(x, (8,))) @ x.transpose(0, 1)


def test_a_decomposition_is_the_same_with_torchs_own_py_impl_and_callable():
    def decomposed() -> str:
        ep = torch.export.export(_Block(), (torch.randn(4, 8),))
        return ep.run_decompositions().graph_module.code

    assert torch._ops.Callable is not collections.abc.Callable
    with_ours = decomposed()
    short_path = torch._ops.OperatorBase.py_impl
    torch._ops.Callable, torch._ops.OperatorBase.py_impl = collections.abc.Callable, short_path.full
    try:
        with_torchs = decomposed()
    finally:
        torch._ops.OperatorBase.py_impl = short_path
        torch_overheads.install()
    assert with_ours == with_torchs
    assert isinstance(len, torch._ops.Callable) and not isinstance(1, torch._ops.Callable)


def test_the_short_path_of_py_impl_registers_as_torchs_own():
    """Under a dispatch key: the same table entry, the dispatch cache cleared, the same error on a
    second registration; a mode or a transform goes to torch's own py_impl."""
    py_impl = torch._ops.OperatorBase.py_impl
    assert getattr(py_impl, "short_path", False), "tests/conftest.py did not install torch_overheads"
    library = torch.library.Library("nnapi_py_impl_test", "DEF")  # noqa: F841 (kept alive)
    library.define("one(Tensor x) -> Tensor")
    library.define("two(Tensor x) -> Tensor")
    ours, theirs = torch.ops.nnapi_py_impl_test.one.default, torch.ops.nnapi_py_impl_test.two.default

    def kernel(x):
        return x

    key = torch._C.DispatchKey.AutogradCPU
    for op, register in ((ours, py_impl), (theirs, py_impl.full)):
        op._dispatch_cache[key] = "stale"
        assert register(op, key)(kernel) is kernel
        assert op.py_kernels == {key: kernel} and op._dispatch_cache == {}
    errors = []
    for op, register in ((ours, py_impl), (theirs, py_impl.full)):
        with pytest.raises(RuntimeError) as error:
            register(op, key)(kernel)
        errors.append(str(error.value).replace(op.name(), "<op>"))
    assert errors[0] == errors[1]
    with pytest.raises(AssertionError, match="mode for the DispatchKey.Python key"):
        py_impl(ours, torch._C.DispatchKey.Python)(kernel)

    class Mode(torch.utils._python_dispatch.TorchDispatchMode):
        pass

    py_impl(ours, Mode)(kernel)
    assert ours.python_key_table == {Mode: kernel}


class _BoolProduct(torch.nn.Module):
    """aten.mm of two bool tensors: fake tensors compute it, ExecuTorch's edge dtypes refuse it."""

    def forward(self, x, y):
        return (x.bool() @ y.bool()).float() + torch.nn.functional.gelu(x) * y.sum(dim=0)


def _violations(validator_class, graph_module) -> dict:
    from contextlib import nullcontext

    from executorch.exir.verification import verifier
    from torch._dispatch.python import enable_python_dispatcher

    validator = validator_class(graph_module)
    fake_mode = verifier._detect_fake_mode_from_gm(graph_module) or nullcontext()
    with enable_python_dispatcher(), fake_mode:
        validator.run(*verifier._get_inputs(graph_module))
    return {str(op): dtypes for op, (dtypes, _node) in validator.violating_ops.items()}


def test_the_dtype_check_over_recorded_values_finds_what_executorchs_own_finds():
    """The same violations (op, argument dtypes) on an edge graph with one, none on the others; and
    the verifier's error still names the op."""
    from executorch.exir import EdgeCompileConfig, to_edge
    from executorch.exir.verification import arg_validator, verifier
    from torch._export.verifier import SpecViolationError

    assert verifier.EdgeOpArgValidator is not arg_validator.EdgeOpArgValidator, \
        "tests/conftest.py did not install torch_overheads"
    ours, executorchs = torch_overheads.recorded_value_validator(), arg_validator.EdgeOpArgValidator
    unchecked = EdgeCompileConfig(_check_ir_validity=False)
    inputs = (torch.randn(3, 3), torch.randn(3, 3))
    for module, example, found in ((_BoolProduct(), inputs, 1), (_Block(), (torch.randn(4, 8),), 0)):
        graph_module = to_edge(torch.export.export(module, example),
                               compile_config=unchecked).exported_program().graph_module
        assert _violations(ours, graph_module) == _violations(executorchs, graph_module)
        assert len(_violations(ours, graph_module)) == found
    with pytest.raises(SpecViolationError, match="aten.mm.default"):
        to_edge(torch.export.export(_BoolProduct(), inputs))


def _kernel_form(kernel):
    """A kernel as a comparable value: a closure or partial by its code and what it holds (torch
    makes new ones on each entry; the tests' override reuses them)."""
    import functools
    import types

    if isinstance(kernel, functools.partial):
        return ("partial", _kernel_form(kernel.func), kernel.args,
                tuple(sorted((name, _kernel_form(value)) for name, value in kernel.keywords.items())))
    if isinstance(kernel, types.FunctionType):  # a nested function is a new object on each call
        return ("function", kernel.__code__, tuple(_kernel_form(cell.cell_contents) for cell in kernel.__closure__ or ()))
    return kernel


def _tables(ops) -> tuple:
    """Each op's python kernels, and the fake-tensor rules (the op, what the rule runs)."""
    from torch._subclasses import fake_impls

    kernels = {op: {key: _kernel_form(fn) for key, fn in op.py_kernels.items()} for op in ops}
    rules = {op: _kernel_form(rule.keywords.get("original_callable")) if hasattr(rule, "keywords") else rule
             for op, rule in fake_impls.op_implementations_dict.items()}
    return kernels, rules


def test_the_override_built_once_gives_each_op_torchs_table():
    """Inside torch's override and the tests': the same table for each of the composite ops export
    decomposes with ExecuTorch's table and the same fake-tensor rules; after either, the tables the
    ops had and the same rules; twice in a row (the second from the built tables); and the same
    decomposed graph."""
    from executorch.exir.tracer import _default_decomposition_table
    from torch.export import exported_program

    ours = exported_program._override_composite_implicit_decomp
    assert ours is torch_overheads.override_composite_implicit_decomp, \
        "tests/conftest.py did not install torch_overheads"
    cia, _python = exported_program._split_decomp_table_to_cia_and_python_decomp(_default_decomposition_table())
    assert len(cia) > 500
    # torch's own exit removes the fake rule of every op it patched, also one the op had before
    # (empty_like's): the comparison starts after one run of torch's, from the state it leaves.
    kernels_before = _tables(cia)[0]
    inside, after = [], []
    for override in (ours.original, ours.original, ours, ours):
        with override(cia):
            inside.append(_tables(cia))
        after.append(_tables(cia))
        assert after[-1][0] == kernels_before
    assert inside[1] == inside[2] == inside[3] and after[1] == after[2] == after[3]

    def decomposed() -> str:
        return torch.export.export(_Block(), (torch.randn(4, 8),)).run_decompositions().graph_module.code

    with_ours = decomposed()
    exported_program._override_composite_implicit_decomp = ours.original
    try:
        with_torchs = decomposed()
    finally:
        exported_program._override_composite_implicit_decomp = ours
    assert with_ours == with_torchs


class _Reshape(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x).reshape(7)


def test_graph_code_is_torchs_with_the_signature_and_compilation_cached(capsys):
    """The same generated code and result with torch's own code generation; a second module with
    the same source reuses the compilation, runs with its own attributes, and a failure in it
    still shows the generated line."""
    from torch.fx import graph, graph_module

    ours_call, ours_exec = graph.CodeGen._call_method_with_signature_check, graph_module._exec_with_source
    assert getattr(ours_call, "cached", False), "tests/conftest.py did not install torch_overheads"
    x = torch.randn(4, 8)
    block = torch.fx.symbolic_trace(_Block())
    graph.CodeGen._call_method_with_signature_check = ours_call.original
    graph_module._exec_with_source = ours_exec.original
    try:
        torchs = torch.fx.symbolic_trace(_Block())
    finally:
        graph.CodeGen._call_method_with_signature_check, graph_module._exec_with_source = ours_call, ours_exec
    assert block.code == torchs.code and torch.equal(block(x), torchs(x))

    compiled = len(ours_exec.compiled)
    first, second = torch.fx.symbolic_trace(_Reshape()), torch.fx.symbolic_trace(_Reshape())
    assert len(ours_exec.compiled) == compiled + 1
    for module in (first, second):  # torch prints the failing line of the generated code (linecache)
        with pytest.raises(RuntimeError, match="invalid for input of size 32"):
            module(x)
        assert "reshape = relu.reshape(7)" in capsys.readouterr().err


class _TwoDelegates(torch.nn.Module):
    """Two NNAPI partitions around a CPU op, so each ExecuTorch pass runs two delegates' fake calls."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        return torch.sigmoid(torch.flip(y, [3]) + 1.0)  # flip stays on the CPU


def _lowered_with_history() -> tuple[bytes, list]:
    from executorch.exir import to_edge_transform_and_lower

    from executorch_nnapi.partitioners import NnapiPartitioner

    def history(sources) -> list:  # a record without graph_id (the id() of a graph of that run)
        return [{k: (history(v) if k == "from_node" else v) for k, v in s.items() if k != "graph_id"}
                for s in sources]

    torch.manual_seed(0)
    ep = torch.export.export(_TwoDelegates().eval(), (torch.randn(1, 3, 8, 8),))
    edge = to_edge_transform_and_lower(ep, partitioner=[NnapiPartitioner()])
    gm = edge.exported_program().graph_module
    records = [(n.name, history([s.to_dict() for s in n.meta.get("from_node", [])])) for n in gm.graph.nodes]
    delegates = [n for n in gm.graph.nodes if n.target is torch.ops.higher_order.executorch_call_delegate]
    assert len(delegates) == 2
    return edge.to_executorch().buffer, records


def test_shared_provenance_and_kept_delegate_modules_lower_as_torchs_own():
    """The same .pte and the same from_node history of every node with torch's deep copy and
    unlift-per-call as with the tests' shared history and kept modules."""
    import importlib

    from torch.fx import traceback as fx_traceback

    call_delegate = importlib.import_module("torch._higher_order_ops.executorch_call_delegate")
    assert getattr(fx_traceback.copy, "shares_history", False), "tests/conftest.py did not install torch_overheads"
    assert call_delegate.call_delegate_cpu is torch_overheads._delegate_call_on_a_kept_module
    ours = _lowered_with_history()
    kept = dict(torch_overheads._UNLIFTED)
    assert len(kept) == 2, "each delegate's program is unlifted once"
    fx_traceback.copy = fx_traceback.copy.original
    call_delegate.call_delegate_cpu = torch_overheads._delegate_call_on_a_kept_module.original
    try:
        theirs = _lowered_with_history()
    finally:
        torch_overheads.install()
    assert ours[0] == theirs[0]
    assert ours[1] == theirs[1] and any(h for _, h in ours[1])


def test_a_kept_delegate_module_serves_copies_and_not_a_changed_program():
    import copy

    from executorch.exir import to_edge_transform_and_lower

    from executorch_nnapi.partitioners import NnapiPartitioner

    ep = torch.export.export(_TwoDelegates().eval(), (torch.randn(1, 3, 8, 8),))
    gm = to_edge_transform_and_lower(ep, partitioner=[NnapiPartitioner()]).exported_program().graph_module
    lowered = gm.lowered_module_0
    module = torch_overheads.unlifted_delegate_program(lowered)
    assert torch_overheads.unlifted_delegate_program(copy.deepcopy(lowered)) is module
    x = torch.randn(1, 3, 8, 8)
    torch.testing.assert_close(module(x), lowered.original_module.module()(x), rtol=0, atol=0)
    changed = copy.deepcopy(lowered)
    graph = changed.original_module.graph_module.graph
    output = graph.output_node()
    with graph.inserting_before(output):
        negated = graph.call_function(torch.ops.aten.neg.default, (output.args[0][0],))
    output.args = ((negated,),)
    changed.original_module.graph_module.recompile()
    assert torch_overheads.unlifted_delegate_program(changed) is not module
    torch_overheads.forget_unlifted_delegate_programs()
    assert torch_overheads.unlifted_delegate_program(lowered) is not module
