"""Complex values computed as pairs of real tensors (the real and the imaginary part), before
partitioning.

Rotary embeddings written with complex numbers (Llama 4's ``torch.polar`` frequencies,
``view_as_complex(x.reshape(..., -1, 2)) * freqs_cis`` then ``view_as_real``) put complex64
tensors in the program. No ExecuTorch backend or portable kernel computes them: ``to_edge`` itself
stops on ``view_as_complex_copy`` ("does not support automatic differentiation for outputs with
complex dtype"), for XNNPACK as for NNAPI. NNAPI has no complex type either, but every complex
operation such models use is real arithmetic on the two parts:

- ``view_as_complex(x)``: the parts are ``x[..., 0]`` and ``x[..., 1]`` (selects of the last dim);
- ``polar(r, theta)``: ``r * cos(theta)``, ``r * sin(theta)``;
- ``a * b``: ``(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re)``, or each part times a real
  ``b``; ``a + b`` / ``a - b`` part by part (a real operand joins the real part);
- ``conj``: the imaginary part negated; views, (un)squeezes, permutes, expands, slices, selects and
  clones: the same op on each part;
- ``fft_fftn`` along some dims (FNet's token mixing, ``fftn(x, dim=(1, 2)).real``): per dim, the
  products with the DFT's cosine and sine matrices ``cos(2 pi jk / n)``, ``sin(2 pi jk / n)`` (jk
  reduced mod n, computed in float64 from ``arange``, so folded to float32 constants), with
  ``norm`` applied as a scale; a real input starts with a zero imaginary part (not computed);
- ``view_as_real(z)``: the parts stacked on a new last dim, stacked at rank <= 3 (the parts' other
  dims merged) and viewed to the result's shape, so a rank-5 result (a rank-4 complex value) is a
  view of a rank-3 value, which the view chains take.

The rewrite is all or nothing: a complex value read by any other op (or returned by the program)
leaves the program as it was. The parts are computed in float32 (complex64's parts); torch's own
complex product may fuse a multiply-add where these ops round twice (differences of a float32
rounding step).
"""

from __future__ import annotations

import math
import operator
from typing import Any

import torch
from torch.export import ExportedProgram
from torch.fx import Graph, Node

from .graph_rewrite import bound_args, call, fake, view_of

aten = torch.ops.aten

# Ops applied to each part alike, with the same arguments after the first.
_RESHAPES = {aten.view.default, aten.reshape.default, aten._unsafe_view.default}
_PER_PART = _RESHAPES | {
    aten.unsqueeze.default,
    aten.squeeze.dim, aten.squeeze.dims, aten.squeeze.default, aten.permute.default, aten.expand.default,
    aten.slice.Tensor, aten.select.int, aten.clone.default, aten.alias.default, aten.contiguous.default,
    aten.transpose.int, aten.t.default, aten.flatten.using_ints, aten.detach.default,
}
_ARITHMETIC = {aten.mul.Tensor, aten.add.Tensor, aten.sub.Tensor}
_DROPPED = {aten._assert_tensor_metadata.default}


def _complex(value: Any) -> bool:
    v = value.meta.get("val") if isinstance(value, Node) else None
    return isinstance(v, torch.Tensor) and v.is_complex()


def _reads_complex(node: Node) -> bool:
    return node.op == "call_function" and (_complex(node) or any(_complex(a) for a in node.all_input_nodes))


def _supported(node: Node) -> bool:
    target = node.target
    if target in _PER_PART or target in _DROPPED or target is aten.view_as_real.default:
        return True
    if target is aten.view_as_complex.default:
        return fake(node.args[0]).dtype == torch.float32
    if target is aten.polar.default:
        return all(fake(a).dtype == torch.float32 for a in node.args[:2])
    if target is aten._conj.default or target is aten.conj_physical.default:
        return True
    if target is aten.fft_fftn.default:
        a = bound_args(node)
        x = fake(a["input"])
        return a["s"] is None and a["norm"] in (None, "backward", "ortho", "forward") and (
            x.dtype == torch.float32 or x.is_complex()) and all(isinstance(d, int) for d in x.shape)
    if target in _ARITHMETIC or target in (aten.mul.Scalar, aten.add.Scalar, aten.sub.Scalar):
        return bound_args(node).get("alpha", 1) == 1 and all(not isinstance(a, complex) for a in node.args[:2])
    return False


def _parts_of(graph: Graph, node: Node, parts: dict[Node, tuple[Node, Node]]) -> tuple[Node, Node]:
    """The (real, imaginary) nodes of complex ``node``'s value (new nodes before ``node``)."""
    target, args = node.target, node.args
    if target is aten.view_as_complex.default:
        return tuple(call(graph, node, aten.select.int, (args[0], -1, k)) for k in (0, 1))
    if target is aten.polar.default:
        r, theta = args[:2]
        return (call(graph, node, aten.mul.Tensor, (r, call(graph, node, aten.cos.default, (theta,)))),
                call(graph, node, aten.mul.Tensor, (r, call(graph, node, aten.sin.default, (theta,)))))
    if target in (aten._conj.default, aten.conj_physical.default):
        re, im = parts[args[0]]
        return re, call(graph, node, aten.neg.default, (im,))
    if target is aten.fft_fftn.default:
        return _dft(graph, node, parts)
    if target in _RESHAPES:
        return tuple(view_of(graph, node, p, args[1]) for p in parts[args[0]])
    if target in _PER_PART:
        re, im = parts[args[0]]
        rest = args[1:]
        return (call(graph, node, target, (re, *rest), dict(node.kwargs)),
                call(graph, node, target, (im, *rest), dict(node.kwargs)))
    return _arithmetic(graph, node, parts)


def _dft(graph: Graph, node: Node, parts: dict[Node, tuple[Node, Node]]) -> tuple[Node, Node]:
    """``fft_fftn(x, dim=dims, norm=norm)`` as products with the DFT matrices along each dim:
    z * (C - iS) = (re C + im S, im C - re S) with C, S symmetric."""
    a = bound_args(node)
    x, dims, norm = a["input"], a["dim"], a["norm"]
    rank = fake(x).dim()
    dims = range(rank) if dims is None else [d % rank for d in dims]
    re, im = parts[x] if _complex(x) else (x, None)
    scale = 1.0
    for d in dims:
        n = fake(x).shape[d]
        cos, sin = _dft_matrices(graph, node, n)
        re_c, re_s = _along(graph, node, re, cos, d), _along(graph, node, re, sin, d)
        if im is None:
            re, im = re_c, call(graph, node, aten.neg.default, (re_s,))
        else:
            im_c, im_s = _along(graph, node, im, cos, d), _along(graph, node, im, sin, d)
            re, im = (call(graph, node, aten.add.Tensor, (re_c, im_s)),
                      call(graph, node, aten.sub.Tensor, (im_c, re_s)))
        scale /= {"ortho": math.sqrt(n), "forward": n}.get(norm, 1)
    if scale != 1.0:
        re, im = (call(graph, node, aten.mul.Tensor, (p, scale)) for p in (re, im))
    return re, im


def _dft_matrices(graph: Graph, node: Node, n: int) -> tuple[Node, Node]:
    """cos(2 pi jk / n) and sin(2 pi jk / n), [n, n] float32, from float64 angles of jk mod n."""
    index = call(graph, node, aten.arange.default, (n,), {"dtype": torch.int64})
    jk = call(graph, node, aten.mul.Tensor, (call(graph, node, aten.unsqueeze.default, (index, 1)), index))
    turns = call(graph, node, aten._to_copy.default, (call(graph, node, aten.remainder.Scalar, (jk, n)),),
                 {"dtype": torch.float64})
    angle = call(graph, node, aten.mul.Tensor, (turns, 2 * math.pi / n))
    return tuple(call(graph, node, aten._to_copy.default, (call(graph, node, f, (angle,)),), {"dtype": torch.float32})
                 for f in (aten.cos.default, aten.sin.default))


def _along(graph: Graph, node: Node, t: Node, matrix: Node, dim: int) -> Node:
    """``t``'s dim ``dim`` multiplied by the symmetric ``matrix``: sum_j t[.., j, ..] m[j, k]."""
    last = fake(t).dim() - 1
    if dim == last:
        return call(graph, node, aten.matmul.default, (t, matrix))
    # m @ t along the dim before the last (m symmetric: the same sum)
    moved = t if dim == last - 1 else call(graph, node, aten.transpose.int, (t, dim, last - 1))
    product = call(graph, node, aten.matmul.default, (matrix, moved))
    return product if dim == last - 1 else call(graph, node, aten.transpose.int, (product, dim, last - 1))


def _arithmetic(graph: Graph, node: Node, parts: dict[Node, tuple[Node, Node]]) -> tuple[Node, Node]:
    a, b = node.args[:2]
    op = {aten.mul.Scalar: aten.mul.Tensor, aten.add.Scalar: aten.add.Tensor,
          aten.sub.Scalar: aten.sub.Tensor}.get(node.target, node.target)

    def on(x: Any, y: Any) -> Node:
        return call(graph, node, op, (x, y))

    if not _complex(a):   # a real (tensor or number) first operand: commute mul / add, negate for sub
        if op is aten.sub.Tensor:
            re, im = parts[b]
            return on(a, re), call(graph, node, aten.neg.default, (im,))
        a, b = b, a
    ar, ai = parts[a]
    if not _complex(b):
        if op is aten.mul.Tensor:
            return on(ar, b), on(ai, b)
        return on(ar, b), ai
    br, bi = parts[b]
    if op is not aten.mul.Tensor:
        return on(ar, br), on(ai, bi)
    mul = aten.mul.Tensor
    real = call(graph, node, aten.sub.Tensor, (call(graph, node, mul, (ar, br)), call(graph, node, mul, (ai, bi))))
    imag = call(graph, node, aten.add.Tensor, (call(graph, node, mul, (ar, bi)), call(graph, node, mul, (ai, br))))
    return real, imag


def _as_real(graph: Graph, node: Node, parts: tuple[Node, Node]) -> Node:
    """``view_as_real``: the parts stacked on a new last dim, at rank <= 3, viewed to the result."""
    shape = list(fake(node).shape)
    inner = shape[-2] if len(shape) >= 2 else 1
    outer = math.prod(shape[:-2]) if len(shape) > 2 else 1
    flat = [view_of(graph, node, p, [outer, inner]) for p in parts]
    stacked = call(graph, node, aten.stack.default, (flat, -1))
    return call(graph, node, aten.view.default, (stacked, shape))


def rewrite_complex_values(program: ExportedProgram) -> int:
    """Rewrites, in place, every complex value of ``program`` as two real ones when all its
    complex operations are of the list above; returns the number of complex nodes replaced."""
    graph_module = program.graph_module
    graph = graph_module.graph
    involved = [n for n in graph.nodes if _reads_complex(n)]
    if not involved or not all(_supported(n) for n in involved):
        return 0
    if any(u.op == "output" for n in involved if _complex(n) for u in n.users):
        return 0
    parts: dict[Node, tuple[Node, Node]] = {}
    for node in involved:
        if node.target in _DROPPED:
            continue
        with graph.inserting_before(node):
            if node.target is aten.view_as_real.default:
                node.replace_all_uses_with(_as_real(graph, node, parts[node.args[0]]))
            else:
                parts[node] = _parts_of(graph, node, parts)
    for node in reversed(involved):   # readers before what they read
        graph.erase_node(node)
    graph.lint()
    graph_module.recompile()
    return len(involved)
