"""Fixed costs of every ``torch.export`` decomposition and ExecuTorch verification, taken out of the
test processes.

Measured on the 2-core AVX2 machine CI runs on: a small op test's lowering took ~0.63 s, of which
``run_decompositions`` was 0.30 s, nearly all of it bookkeeping that does not depend on the model
(it runs twice per lowering, ~2,500 lowerings per suite). None of the changes alters what torch
computes: ``tests/repository/test_torch_overheads.py`` checks the census against torch's own, that
a decomposition gives the same graph either way, and that the short path of ``py_impl`` leaves an
operator's tables as torch's own does.

- The census of CompositeImplicitAutograd operators that export may keep (torch's
  ``_collect_all_valid_cia_ops``, ~0.1 s: it walks every operator namespace). Its answer changes
  only when an operator is registered, which is why torch does not cache it; the tests reuse it
  while the C++ registrations and the operators of every ``torch.ops`` namespace are unchanged.
- ``OperatorBase.py_impl``: export's override of each composite op (556 of them, all kept whole by
  ExecuTorch) calls it ~12,000 times per lowering, and each call builds a nested function annotated
  with ``collections.abc.Callable`` generics (no cache in Python 3.11) and runs checks meant for
  modes and tensor subclasses: 0.13 s, a fifth of a small lowering. torch._ops' ``Callable`` is
  pointed at ``typing.Callable`` (cached generics, the same ``isinstance`` answers), and a
  registration under a dispatch key, the only kind export's override makes, takes a short path
  with the same checks and effects (the error on a second registration, the dispatch cache
  cleared); any other key goes to torch's own ``py_impl``. The override went from ~110 to ~60 ms.
- ``_override_composite_implicit_decomp``, the context in which export decomposes (twice per
  lowering): for each of the 556 composite ops it registers a new ``autograd_not_implemented``
  closure under 8 autograd keys, the decomposition under CompositeImplicitAutograd and the op's
  own composite kernel under 8 backend keys, one ``py_impl`` call each, and puts the op's table
  back on exit. With the short path above that was still 17% of the small op and 8-bit op tests.
  The tests' context gives each op the same table (keys, values, the same kinds of closure), built
  once per op and decomposition and copied in and out of the op's own dict, whose stored hashes
  spare the ~9,000 hashes of pybind's DispatchKey; the fake-tensor rule is registered and removed
  as torch does. A changed table or decomposition builds the op's table again.
- ``GraphModule.recompile``, which each pass of a lowering calls (17% of a small op test): it
  asks ``inspect.signature`` of the output's code generator once per call (asked once per
  function here), and compiles the generated source again when a pass left the graph as it was
  (compiled once per source text and ``co_fields`` here; the code is a function of those two, and
  the source stays in torch's linecache under the first compilation's name).
- ExecuTorch's edge verifier checks each edge op's tensor dtypes against the op's allowed dtypes
  (``EdgeOpArgValidator``), after each stage of a lowering. To learn the dtypes it runs the whole
  graph again on fake tensors: ~11% of a small op test's lowering, a quarter of a large graph's.
  The tests' validator is ExecuTorch's own, with one change: a node's value is the one its
  ``meta["val"]`` records (what export, ExecuTorch's passes and memory planning all read), not a
  second fake run of its op; a node without one still runs. What it no longer checks is that a
  node's recorded value is what its op computes: a pass that recorded a wrong dtype would fail in
  the portable kernels or the delegate, which every op test runs.
- Provenance: each pass records, on every node it makes, a ``NodeSource`` of the node it came from,
  and torch deep-copies that node's whole history into it (``from_node``): ~4% of the suite, more
  on large graphs, where the history grows with each pass. A ``NodeSource`` is never changed once
  made (torch, ExecuTorch and torchao only read ``from_node``; the lists changed in place are the
  nodes' own, which stay copied), so the tests' record shares the earlier ``NodeSource`` objects
  in a new list: the same history, the same ``to_dict``.
- A delegate's fake run (``executorch_call_delegate`` under fake tensors, in each ExecuTorch pass
  that traces a graph holding it) unlifts the delegated program into a module every time (~3% of
  the suite). The passes copy the lowered module, and every copy keeps the one ``processed_bytes``
  object and the program's graph; the tests unlift once per bytes object and graph code, and
  forget the modules after each test (tests/conftest.py).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import typing

import torch


def install() -> None:
    """The changes, in this process."""
    _reuse_the_composite_op_census()
    torch._ops.Callable = typing.Callable
    _short_path_for_dispatch_keys()
    _dtype_check_reads_recorded_values()
    _override_from_built_tables()
    _graph_code_generation_cached()
    _provenance_shares_its_history()
    _delegate_module_unlifted_once()


def _graph_code_generation_cached() -> None:
    from torch.fx import graph, graph_module

    if getattr(graph.CodeGen._call_method_with_signature_check, "cached", False):
        return
    parameters: dict = {}
    compiled: dict = {}

    def call_method_with_signature_check(self, method, *args, **kwargs):
        function = getattr(method, "__func__", method)
        names = parameters.get(function)
        if names is None:
            names = parameters[function] = frozenset(inspect.signature(method).parameters)
        return method(*args, **{name: value for name, value in kwargs.items() if name in names})

    def exec_with_source(src, globals, co_fields=None):
        key = graph_module._loader.cache(src, globals, co_fields)
        source_and_fields = (src, tuple(sorted(co_fields.items())) if co_fields else ())
        code = compiled.get(source_and_fields)
        if code is None:
            code = compiled[source_and_fields] = compile(src, key, "exec", dont_inherit=True)
        exec(code, globals)

    call_method_with_signature_check.cached = True
    call_method_with_signature_check.original = graph.CodeGen._call_method_with_signature_check
    exec_with_source.compiled = compiled
    exec_with_source.original = graph_module._exec_with_source
    graph.CodeGen._call_method_with_signature_check = call_method_with_signature_check
    graph_module._exec_with_source = exec_with_source


class _RecordedValues(torch.fx.Interpreter):
    """An interpreter whose call_function answers with the node's recorded value (``self.node``:
    EdgeOpArgValidator.run_node sets it)."""

    def call_function(self, target, args, kwargs):
        if "val" in self.node.meta:
            return self.node.meta["val"]
        return super().call_function(target, args, kwargs)


def recorded_value_validator() -> type:
    """ExecuTorch's EdgeOpArgValidator over recorded values (its ``super().call_function``, which
    runs the op, resolves to _RecordedValues' in this class's method order)."""
    from executorch.exir.verification.arg_validator import EdgeOpArgValidator

    class RecordedValueArgValidator(EdgeOpArgValidator, _RecordedValues):
        pass

    return RecordedValueArgValidator


def _dtype_check_reads_recorded_values() -> None:
    from executorch.exir.verification import arg_validator, verifier

    if verifier.EdgeOpArgValidator is not arg_validator.EdgeOpArgValidator:
        return
    verifier.EdgeOpArgValidator = recorded_value_validator()


def _short_path_for_dispatch_keys() -> None:
    operator_base = torch._ops.OperatorBase
    if getattr(operator_base.py_impl, "short_path", False):
        return
    full = operator_base.py_impl
    dispatch_key, python_key = torch._C.DispatchKey, torch._C.DispatchKey.Python

    def py_impl(self, k):
        if not isinstance(k, dispatch_key) or k == python_key:
            return full(self, k)

        def register(fn):
            if k in self.py_kernels:
                raise RuntimeError(f"Trying to override a python impl for {k} on operator {self.name()}")
            self.py_kernels[k] = fn
            self._dispatch_cache.clear()
            return fn

        return register

    py_impl.short_path = True
    py_impl.full = full
    operator_base.py_impl = py_impl


def registry_state() -> tuple:
    """What the census depends on: the C++ registrations of CompositeImplicitAutograd and the
    operators each namespace but aten has materialised (aten's part torch caches itself)."""
    namespaces = [name for name in torch.ops._dir if name != "aten"]
    return (tuple(torch._C._dispatch_get_registrations_for_dispatch_key("CompositeImplicitAutograd")),
            tuple((name, len(getattr(getattr(torch.ops, name), "_dir", ()))) for name in namespaces))


def _reuse_the_composite_op_census() -> None:
    from torch._export import utils as export_utils
    from torch.export import decomp_utils, exported_program

    census = export_utils._collect_all_valid_cia_ops
    if getattr(census, "reused", False):
        return
    last: dict[str, object] = {}

    def reused_census():
        if last.get("state") != registry_state():
            last["ops"] = census()
            last["state"] = registry_state()  # the census itself materialises operators
        return last["ops"]

    reused_census.reused = True
    reused_census.original = census
    for module in (export_utils, exported_program, decomp_utils):
        module._collect_all_valid_cia_ops = reused_census


# op -> (its table when built, the decomposition, the table inside the override, its own composite kernel)
_BUILT_TABLES: dict = {}


def _composite_kernel_under_fake_mode(fake_tensor_mode, op, *args, original_callable, **kwargs):
    """The fake-tensor rule the override registers: the op's own composite kernel, run in fake mode
    before the decomposition is tried (torch's note on device-dependent composite kernels)."""
    with fake_tensor_mode:
        return original_callable(*args, **kwargs)


def _table_inside_the_override(op, decomposition) -> tuple:
    """What torch's override leaves in ``op.py_kernels`` while it is active, and the op's own
    composite kernel (read before the table changes, as torch does)."""
    from torch._export.utils import _get_decomp_for_cia
    from torch._higher_order_ops.utils import autograd_not_implemented
    from torch.export import exported_program

    table = op.py_kernels.copy()
    for key in exported_program._AUTOGRAD_ALIAS_BACKEND_KEYS_TO_OVERRIDE:
        if key not in table:
            table[key] = autograd_not_implemented(op, deferred_error=True)
    own = _get_decomp_for_cia(op)
    table.pop(torch._C.DispatchKey.CompositeImplicitAutograd, None)
    table[torch._C.DispatchKey.CompositeImplicitAutograd] = decomposition
    for key in exported_program._BACKEND_KEYS_TO_OVERRIDE:
        if key not in table:
            table[key] = own
    return table, own


@contextlib.contextmanager
def override_composite_implicit_decomp(cia_ops_to_callable):
    """torch's ``_override_composite_implicit_decomp`` with each op's table built once."""
    from torch._subclasses.fake_impls import _deregister_op_impl, _is_op_registered_to_fake_rule, register_op_impl

    saved = {}
    for op, decomposition in cia_ops_to_callable.items():
        kernels = op.py_kernels
        built = _BUILT_TABLES.get(op)
        if built is None or built[1] is not decomposition or built[0] != kernels:
            table, own = _table_inside_the_override(op, decomposition)
            built = _BUILT_TABLES[op] = (kernels.copy(), decomposition, table, own)
        saved[op] = built[0]  # equal to the op's table now, and never changed
        kernels.clear()
        kernels.update(built[2])
        op._dispatch_cache.clear()
        if not _is_op_registered_to_fake_rule(op):
            register_op_impl(op)(functools.partial(_composite_kernel_under_fake_mode, original_callable=built[3]))
    try:
        yield
    finally:
        for op, kernels in saved.items():
            op.py_kernels.clear()
            op.py_kernels.update(kernels)
            op._dispatch_cache.clear()
            _deregister_op_impl(op)


def _override_from_built_tables() -> None:
    from torch.export import exported_program

    if exported_program._override_composite_implicit_decomp is not override_composite_implicit_decomp:
        override_composite_implicit_decomp.original = exported_program._override_composite_implicit_decomp
        exported_program._override_composite_implicit_decomp = override_composite_implicit_decomp


def _shared_history(history: list) -> list:
    """A node's ``from_node`` for a new ``NodeSource``: a new list of the same (unchanging) records."""
    return list(history)


def _provenance_shares_its_history() -> None:
    import copy
    import types

    from torch.fx import traceback as fx_traceback

    if getattr(fx_traceback.copy, "shares_history", False):
        return
    # torch/fx/traceback.py uses ``copy`` for this deep copy and for one ``copy.copy``.
    fx_traceback.copy = types.SimpleNamespace(copy=copy.copy, deepcopy=_shared_history, shares_history=True,
                                              original=copy)


# id(processed_bytes) -> (processed_bytes, the program's graph code, its unlifted module)
_UNLIFTED: dict = {}


def unlifted_delegate_program(lowered_module) -> torch.nn.Module:
    """``lowered_module.original_module.module()``, made once for all copies of the lowered module."""
    raw, code = lowered_module.processed_bytes, lowered_module.original_module.graph_module.code
    hit = _UNLIFTED.get(id(raw))
    if hit is None or hit[0] is not raw or hit[1] != code:
        hit = _UNLIFTED[id(raw)] = (raw, code, lowered_module.original_module.module())
    return hit[2]


def forget_unlifted_delegate_programs() -> None:
    """Drops the modules kept by ``unlifted_delegate_program`` (their parameters with them)."""
    _UNLIFTED.clear()


def _delegate_call_on_a_kept_module(lowered_module, *args):
    """ExecuTorch's ``call_delegate_cpu`` (its fake-tensor rule calls it) on the kept module."""
    from torch.fx.immutable_collections import immutable_dict, immutable_list
    from torch.utils import _pytree as pytree

    plain = {immutable_dict: dict, immutable_list: list}
    args = pytree.tree_map_only(tuple(plain), lambda a: plain[type(a)](a), args,
                                lambda a: isinstance(a, tuple(plain)))
    return unlifted_delegate_program(lowered_module)(*args)


def _delegate_module_unlifted_once() -> None:
    import importlib

    # (the package's attribute of that name is the operator, not its module)
    call_delegate = importlib.import_module("torch._higher_order_ops.executorch_call_delegate")

    if call_delegate.call_delegate_cpu is not _delegate_call_on_a_kept_module:
        _delegate_call_on_a_kept_module.original = call_delegate.call_delegate_cpu
        # The fake-tensor rule looks the name up when called; the registered CPU kernel keeps torch's.
        call_delegate.call_delegate_cpu = _delegate_call_on_a_kept_module
