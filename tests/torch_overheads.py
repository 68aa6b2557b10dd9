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
- ExecuTorch's edge verifier checks each edge op's tensor dtypes against the op's allowed dtypes
  (``EdgeOpArgValidator``), after each stage of a lowering. To learn the dtypes it runs the whole
  graph again on fake tensors: ~11% of a small op test's lowering, a quarter of a large graph's.
  The tests' validator is ExecuTorch's own, with one change: a node's value is the one its
  ``meta["val"]`` records (what export, ExecuTorch's passes and memory planning all read), not a
  second fake run of its op; a node without one still runs. What it no longer checks is that a
  node's recorded value is what its op computes: a pass that recorded a wrong dtype would fail in
  the portable kernels or the delegate, which every op test runs.
"""

from __future__ import annotations

import typing

import torch


def install() -> None:
    """The changes, in this process."""
    _reuse_the_composite_op_census()
    torch._ops.Callable = typing.Callable
    _short_path_for_dispatch_keys()
    _dtype_check_reads_recorded_values()


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
