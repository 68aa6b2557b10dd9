"""torch.export of ``nn.LSTM`` / ``nn.RNN`` over a dynamic sequence length: the shapes of
``aten.lstm.input``, ``aten.rnn_tanh.input`` and ``aten.rnn_relu.input`` without unrolling.

torch.export keeps the three ops whole in its graph, but computes their outputs' shapes by
running torch's decomposition on fake tensors, and that decomposition loops over the time steps
(``torch._decomp.decompositions.one_layer_lstm`` / ``one_layer_rnn`` iterate the input, and export
turns off the oneDNN path that would not): a ``torch.export.Dim`` on the time dimension is
specialized to the example's length, and export fails ("You marked T as dynamic but your code
specialized it"). ``to_edge`` then re-traces the program the same way and would specialize a
length that survived.

``install()`` wraps the two places torch takes that decomposition from (the op's
CompositeImplicitAutograd Python kernel, which pre-dispatch export and ExecuTorch's passes run, and
``torch._decomp.decomposition_table``, which fake tensors run on symbolic sizes) so that, for fake
tensors whose time dimension is symbolic and that no tracer is recording, the outputs are made
with their shapes alone: ``[T, B, D * H_out]`` (``[B, T, ...]`` batch first) and the states' own
shapes (requiring grad where torch's would). That is while exporting, and outside export too:
ExecuTorch's passes re-run every node of the program on fake tensors (torch's decomposition would
take its oneDNN path there, which has no projection and no RNN). Decomposing one of the three
ops over a symbolic length while exporting (``to_edge`` of an LSTM NNAPI refused) raises
DynamicLengthDecompositionError rather than silently fixing the length to the example's.

Over a static length too, fake tensors that no tracer records get the shapes alone: torch's
decomposition there builds every step of every layer on fake tensors to learn three shapes, and
ExecuTorch re-runs each node that way in every pass and verifier (sequencer2d_s: 36
bidirectional LSTMs of 8-32 steps re-run ~1,300 times, minutes of lowering and over 19 GB of fake
tensor cache before the host ran out of memory). The outputs keep torch's strides (a batch-first
output is a transposed time-major one), so the metadata is the decomposition's.
Everywhere else (a tracer recording: export, or to_edge decomposing an LSTM NNAPI refused)
torch's own decomposition runs unchanged; eager PyTorch never goes through either place.
"""

from __future__ import annotations

from typing import Any, Callable

import torch
import torch.utils._pytree as pytree
from torch._subclasses.fake_tensor import FakeTensor

aten = torch.ops.aten
_MARK = "_executorch_nnapi_shape_rule"


class DynamicLengthDecompositionError(RuntimeError):
    """torch is decomposing an LSTM / RNN whose sequence length is dynamic: its decomposition
    unrolls the time steps, which would silently fix the length to the example's."""

    def __init__(self, kind: str) -> None:
        super().__init__(
            f"an {kind.upper()} over a dynamic sequence length is being decomposed into its time steps, which would "
            "fix the length to the example's; NNAPI keeps it whole only where it takes it (with NnapiPartitioner, "
            "its `decomposed` list says why it did not, e.g. c_n below API 30): export with a static length, or "
            "lower it where NNAPI takes it")


def _time_dim_is_symbolic(input: Any, batch_first: bool) -> bool:
    if not isinstance(input, torch.Tensor) or input.dim() != 3:
        return False
    return isinstance(input.shape[1 if batch_first else 0], torch.SymInt)


def _as_autograd_would(outputs: tuple[torch.Tensor, ...], args: Any) -> tuple[torch.Tensor, ...]:
    """``outputs`` requiring grad when torch's own outputs would (grad enabled and an input, such
    as a parameter, requiring it): a tracer reading only their metadata sees the same."""
    tensors = [t for t in pytree.tree_leaves(args) if isinstance(t, torch.Tensor)]
    if torch.is_grad_enabled() and any(t.requires_grad for t in tensors):
        for output in outputs:
            output.requires_grad_(True)
    return outputs


def _tracer_is_recording() -> bool:
    return torch._C._get_dispatch_mode(torch._C._TorchDispatchModeKey.PROXY) is not None


def _output_like(input: torch.Tensor, state: torch.Tensor, bidirectional: bool, batch_first: bool) -> torch.Tensor:
    """The layer's output: [T, B, D * H_out] contiguous; batch first, that transposed (torch's strides)."""
    directions = 2 if bidirectional else 1
    width = directions * state.shape[-1]
    if batch_first:
        return input.new_empty((input.shape[1], input.shape[0], width)).transpose(0, 1)
    return input.new_empty((input.shape[0], input.shape[1], width))


def lstm_shapes(input: torch.Tensor, hx: Any, params: Any, has_biases: bool, num_layers: int, dropout: float,
                train: bool, bidirectional: bool, batch_first: bool) -> tuple[torch.Tensor, ...]:
    """aten.lstm.input's outputs (output, h_n, c_n) as empty tensors of their shapes and strides."""
    h0, c0 = hx
    return (_output_like(input, h0, bidirectional, batch_first), h0.new_empty(h0.shape),
            c0.new_empty(c0.shape))


def rnn_shapes(input: torch.Tensor, hx: torch.Tensor, params: Any, has_biases: bool, num_layers: int,
               dropout: float, train: bool, bidirectional: bool, batch_first: bool) -> tuple[torch.Tensor, ...]:
    """aten.rnn_tanh.input's / rnn_relu.input's outputs (output, h_n) as empty tensors of their shapes and strides."""
    return _output_like(input, hx, bidirectional, batch_first), hx.new_empty(hx.shape)


def _wrapped(original: Callable[..., Any], shapes: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        batch_first = args[8] if len(args) > 8 else kwargs.get("batch_first", False)
        if _time_dim_is_symbolic(args[0], bool(batch_first)):
            exporting = torch.compiler.is_exporting()
            # Decomposed while exporting: traced by a tracer, or run under functionalization (which
            # decomposes only the ops it does not preserve).
            if exporting and (_tracer_is_recording() or not isinstance(args[0], FakeTensor)):
                raise DynamicLengthDecompositionError(shapes.__name__.split("_")[0])
        # The outputs' metadata only (any length): export, or ExecuTorch's passes re-running the
        # program's nodes on fake tensors, where nothing records the decomposition's steps.
        if isinstance(args[0], FakeTensor) and not _tracer_is_recording():
            return _as_autograd_would(shapes(*args, **kwargs), args)
        return original(*args, **kwargs)

    setattr(run, _MARK, True)
    run.__name__ = f"{getattr(original, '__name__', 'decomposition')}_or_shapes"
    return run


def install() -> None:
    """Installs the shape rules once per process (idempotent)."""
    from torch._decomp import decomposition_table

    implicit = torch._C.DispatchKey.CompositeImplicitAutograd
    for op, shapes in ((aten.lstm.input, lstm_shapes), (aten.rnn_tanh.input, rnn_shapes),
                       (aten.rnn_relu.input, rnn_shapes)):
        kernel = op.py_kernels.get(implicit)
        if callable(kernel) and not getattr(kernel, _MARK, False):
            # OpOverload.py_impl refuses a second registration for a key; the table is the same.
            op.py_kernels[implicit] = _wrapped(kernel, shapes)
            op._dispatch_cache.clear()
        decomposition = decomposition_table.get(op)
        if decomposition is not None and not getattr(decomposition, _MARK, False):
            decomposition_table[op] = _wrapped(decomposition, shapes)
