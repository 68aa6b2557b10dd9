"""An LSTM written out step by step folded into one ``aten.lstm.input`` per layer, which NNAPI
runs as one UNIDIRECTIONAL_SEQUENCE_LSTM (``lowering/builders/lstm.py``).

``torch.ao.nn.quantizable.LSTM`` (ExecuTorch's ``lstm`` example) loops over the time steps in
Python, so its exported program holds every step of every layer: per step
``x_t = select(X, 0, t)``, ``gates = linear(x_t, W_ih, b_ih) + linear(h, W_hh, b_hh)``, a
4-way chunk / split, ``i, f, o = sigmoid``, ``g = tanh``, ``c = f * c + i * g``,
``h = o * tanh(c)``, and ``stack(h_0 .. h_{T-1})`` as the layer's output. That is ``aten.lstm``'s
cell with ``weight_ih = W_ih``, ``weight_hh = W_hh``, ``b_ih``, ``b_hh`` (torch also adds the two
biases to the gates, in the same gate order i, f, g, o), so each such chain of steps over all of
``X``'s time steps becomes ``aten.lstm.input(X, [h0, c0], [W_ih, W_hh, b_ih, b_hh], ...)`` with
one layer, time major; the stack is its output, the last step's ``h`` / ``c`` its ``h_n`` /
``c_n``.

A rewrite, not a pattern unit: if NNAPI then refuses the LSTM at the target level (below API 29,
or ``c_n`` read at API 29), ``to_edge`` decomposes it back into the same step-by-step ops, which
NNAPI lowers one by one as before, whereas a refused unit would leave its nodes on the CPU. Only
what provably computes the same is folded: the gates in torch's order (which sigmoid multiplies
``c``, which ``tanh(g)``, which ``tanh(c)``), the same weights at every step, every step of ``X``
in order, both biases or neither, and no intermediate value read outside the chain but the
states after the last step.
"""

from __future__ import annotations

import dataclasses
import operator
from typing import Any

import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import TensorArgument
from torch.fx import Graph, Node

from .graph_rewrite import call, fake

aten = torch.ops.aten
_SPLITS = (aten.chunk.default, aten.split.Tensor, aten.split_with_sizes.default)


@dataclasses.dataclass
class _Step:
    """One time step of an unrolled LSTM cell."""

    x: Node            # the step's input (read by x_gates)
    x_gates: Node      # linear(x, W_ih, b_ih)
    h_gates: Node      # linear(h_prev, W_hh, b_hh)
    h_prev: Node
    c_prev: Node
    inner: list[Node]  # every node of the step but h and c, in no particular order
    c: Node
    h: Node

    @property
    def tanh_c(self) -> Node:
        return self.inner[-1]

    @property
    def weights(self) -> tuple:
        """(W_ih, b_ih, W_hh, b_hh), a bias None when its linear has none."""
        return (*self.x_gates.args[1:], None)[:2] + (*self.h_gates.args[1:], None)[:2]


def _is(node: Any, *ops: Any) -> bool:
    return isinstance(node, Node) and node.op == "call_function" and node.target in ops


def _other(node: Node, known: Node) -> Any:
    """The other argument of a two-argument ``node`` of which one is ``known`` (None if neither)."""
    a, b = node.args[:2]
    return b if a is known else a if b is known else None


def _only_user(node: Node) -> Node | None:
    users = list(node.users)
    return users[0] if len(users) == 1 else None


def _gate_pieces(split: Node) -> list[Node] | None:
    """The four getitems of a 4-way split of the gates along their last dim, in index order."""
    rank = len(fake(split.args[0]).shape)
    if split.target is aten.chunk.default:
        ok = len(split.args) > 1 and split.args[1] == 4
    else:
        sizes = split.args[1]
        size = fake(split.args[0]).shape[-1]
        ok = sizes == [size // 4] * 4 if isinstance(sizes, (list, tuple)) else sizes * 4 == size
    dim = split.args[2] if len(split.args) > 2 else split.kwargs.get("dim", 0)
    if not ok or rank != 2 or dim not in (1, -1):
        return None
    pieces = {u.args[1]: u for u in split.users if u.target is operator.getitem}
    if sorted(pieces) != [0, 1, 2, 3] or len(split.users) != 4:
        return None
    return [pieces[k] for k in range(4)]


def _match_step(split: Node) -> _Step | None:
    """The unrolled cell whose gate split is ``split``, if it has exactly torch's LSTM form."""
    gates = split.args[0]
    pieces = _gate_pieces(split) if _is(gates, aten.add.Tensor) and len(gates.users) == 1 else None
    if pieces is None or len(gates.args) != 2 or gates.kwargs.get("alpha", 1) != 1:
        return None
    acts = [_only_user(p) for p in pieces]
    if any(a is None for a in acts):
        return None
    kinds = ["sigmoid" if _is(a, aten.sigmoid.default) else "tanh" if _is(a, aten.tanh.default) else "" for a in acts]
    # torch's order: input, forget, cell (tanh), output.
    if kinds != ["sigmoid", "sigmoid", "tanh", "sigmoid"] or any(len(a.users) != 1 for a in acts):
        return None
    i, f, g, o = acts
    i_g, f_c, o_h = (_only_user(a) for a in (i, f, o))
    if not (_is(i_g, aten.mul.Tensor) and _other(i_g, i) is g and _only_user(g) is i_g):
        return None
    if not _is(f_c, aten.mul.Tensor) or not isinstance(_other(f_c, f), Node):
        return None
    c = _only_user(i_g)
    if not (_is(c, aten.add.Tensor) and _other(c, i_g) is f_c and _only_user(f_c) is c and c.kwargs.get("alpha", 1) == 1):
        return None
    if not (_is(o_h, aten.mul.Tensor) and _is(_other(o_h, o), aten.tanh.default)):
        return None
    tanh_c = _other(o_h, o)
    if tanh_c.args[0] is not c or _only_user(tanh_c) is not o_h:
        return None
    linears = list(gates.args)
    if not all(_is(n, aten.linear.default) and len(n.users) == 1 for n in linears):
        return None
    x_gates, h_gates = linears
    return _Step(x_gates.args[0], x_gates, h_gates, h_gates.args[0], _other(f_c, f),
                 [x_gates, h_gates, gates, split, *pieces, *acts, i_g, f_c, tanh_c], c, o_h)


def _ordered(steps: list[_Step]) -> list[_Step] | None:
    """``steps`` from the first (whose h_prev no step computes) along the h / c chain."""
    by_h = {s.h: s for s in steps}
    chain = [next(s for s in steps if s.h_prev not in by_h)] if steps else []
    while True:
        nexts = [s for s in steps if s.h_prev is chain[-1].h]
        if not nexts:
            break
        if len(nexts) != 1 or nexts[0].c_prev is not chain[-1].c:
            return None
        chain.append(nexts[0])
    return chain if len(chain) == len(steps) else None


def _time_input(chain: list[_Step]) -> Node | None:
    """X, when step t reads ``select(X, 0, t)`` for every t and X has exactly these steps."""
    sources = set()
    for t, step in enumerate(chain):
        x = step.x
        if not _is(x, aten.select.int) or x.args[1] != 0 or x.args[2] not in (t, t - len(chain)):
            return None
        sources.add(x.args[0])
    if len(sources) != 1:
        return None
    source = sources.pop()
    shape = fake(source).shape
    return source if len(shape) == 3 and shape[0] == len(chain) else None


def _foldable(chain: list[_Step]) -> bool:
    """Same weights at every step, both biases or neither, and no value read outside the chain but
    the last step's h and c (and every h by the stack)."""
    weights = {s.weights for s in chain}
    if len(weights) != 1:
        return False
    w_ih, b_ih, w_hh, b_hh = weights.pop()
    if (b_ih is None) != (b_hh is None) or len(fake(w_ih).shape) != 2:
        return False
    for step, nxt in zip(chain, chain[1:]):
        if any(u is not nxt.h_gates and not _is(u, aten.stack.default) for u in step.h.users):
            return False
        if any(u is not step.tanh_c and u not in nxt.inner for u in step.c.users):
            return False
    return True


def _stack_of(chain: list[_Step]) -> Node | None:
    """The ``stack(h_0 .. h_{T-1}, 0)`` of the chain, if any."""
    for user in chain[0].h.users:
        if _is(user, aten.stack.default) and list(user.args[0]) == [s.h for s in chain] and \
                (user.args[1] if len(user.args) > 1 else user.kwargs.get("dim", 0)) == 0:
            return user
    return None


def _fold(graph: Graph, chain: list[_Step], source: Node, renamed: dict[str, str]) -> bool:
    """Replaces ``chain`` by one aten.lstm.input over ``source``; False if it cannot be placed."""
    first, last = chain[0], chain[-1]
    stack = _stack_of(chain)
    if any(_is(u, aten.stack.default) and u is not stack for s in chain[:-1] for u in s.h.users):
        return False
    order = {n: i for i, n in enumerate(graph.nodes)}
    outside = [u for n in (last.h, last.c) for u in n.users if u is not stack and u not in last.inner]
    if any(order[u] <= order[last.h] for u in outside):
        return False
    w_ih, b_ih, w_hh, b_hh = first.weights
    params = [w_ih, w_hh] + ([b_ih, b_hh] if b_ih is not None else [])
    with graph.inserting_after(last.h):
        h0 = call(graph, last.h, aten.unsqueeze.default, (first.h_prev, 0))
    with graph.inserting_after(h0):
        c0 = call(graph, last.h, aten.unsqueeze.default, (first.c_prev, 0))
    with graph.inserting_after(c0):
        lstm = call(graph, last.h, aten.lstm.input,
                    (source, [h0, c0], params, b_ih is not None, 1, 0.0, False, False, False))
    nodes = [lstm]
    replacements = []
    if stack is not None:
        replacements.append((stack, 0, None))
    for index, state in ((1, last.h), (2, last.c)):
        if any(u is not stack and u not in last.inner for u in state.users):
            replacements.append((state, index, 0))
    for old, index, select in replacements:
        with graph.inserting_after(nodes[-1]):
            # The LSTM's own metadata (provenance, hence debug handle), as to_edge gives a getitem.
            new = call(graph, lstm, operator.getitem, (lstm, index))
        nodes.append(new)
        if select is not None:
            with graph.inserting_after(new):
                new = call(graph, lstm, aten.select.int, (new, 0, 0))
            nodes.append(new)
        old.replace_all_uses_with(new, delete_user_cb=lambda user: user is not stack and user not in last.inner
                                  and user not in nodes)
        renamed[old.name] = new.name
    _erase_dead(graph, [n for s in chain for n in (*s.inner, s.c, s.h, s.x)] + ([stack] if stack else []))
    return True


def _erase_dead(graph: Graph, candidates: list[Node]) -> None:
    """Erases the nodes of ``candidates`` nothing reads any more (users first)."""
    pending = set(candidates)
    changed = True
    while changed:
        changed = False
        for node in list(pending):
            if not node.users:
                graph.erase_node(node)
                pending.discard(node)
                changed = True


def fold_unrolled_lstms(program: ExportedProgram) -> int:
    """Rewrites, in place, every unrolled LSTM layer of the ATen program into aten.lstm.input;
    returns how many layers were folded."""
    graph_module = program.graph_module
    graph = graph_module.graph
    steps = [s for s in (_match_step(n) for n in graph.nodes if _is(n, *_SPLITS)) if s is not None]
    if not steps:
        return 0
    chains: dict[tuple, list[_Step]] = {}
    for step in steps:
        chains.setdefault(step.weights, []).append(step)
    renamed: dict[str, str] = {}
    folded = 0
    for group in chains.values():
        chain = _ordered(group)
        source = _time_input(chain) if chain else None
        if source is not None and _foldable(chain) and _fold(graph, chain, source, renamed):
            folded += 1
    if not folded:
        return 0
    specs = program.graph_signature.output_specs
    for i, spec in enumerate(specs):
        if isinstance(spec.arg, TensorArgument) and spec.arg.name in renamed:
            specs[i] = dataclasses.replace(spec, arg=TensorArgument(name=renamed[spec.arg.name]))
    graph.lint()
    graph_module.recompile()
    return folded
