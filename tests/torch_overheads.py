"""Two fixed costs of every ``torch.export`` decomposition, taken out of the test processes.

Measured on the 2-core AVX2 machine CI runs on: a small op test's lowering took ~0.63 s, of which
``run_decompositions`` was 0.30 s, nearly all of it bookkeeping that does not depend on the model
(it runs twice per lowering, ~2,500 lowerings per suite). Neither change alters what torch
computes: ``tests/repository/test_torch_overheads.py`` checks the census against torch's own and
that the annotation swap leaves torch's dispatch tables as they were.

- The census of CompositeImplicitAutograd operators that export may keep (torch's
  ``_collect_all_valid_cia_ops``, ~0.1 s: it walks every operator namespace). Its answer changes
  only when an operator is registered, which is why torch does not cache it; the tests reuse it
  while the C++ registrations and the operators of every ``torch.ops`` namespace are unchanged.
- ``OperatorBase.py_impl`` defines a nested function annotated with ``collections.abc.Callable``
  generics, which Python 3.11 builds anew at every call (no cache, unlike ``typing.Callable``'s);
  export's override of each composite op calls it ~6,000 times per lowering: 0.13 s, a fifth of a
  small lowering. Annotations are not used at run time, so torch._ops' ``Callable`` is pointed at
  ``typing.Callable``, which caches its generics and answers ``isinstance`` the same way.
"""

from __future__ import annotations

import typing

import torch


def install() -> None:
    """Both changes, in this process."""
    _reuse_the_composite_op_census()
    torch._ops.Callable = typing.Callable


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
