"""ANeuralNetworksCompilation and the execution plan it builds (docs/nnapi_facts.md §5.2).

Compilation_finish turns the finished model into a `Plan`: the operations in topological order,
each with its compute function, decoded parameters and expected output shapes, and the constants
materialized once in an environment template. Running the plan is then a tight loop; operations
that can write into a given tensor get their output buffers from a `BufferPool` (buffers.py), and
every temporary is dropped after its last reader.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Callable, Optional, Sequence

import torch

from .buffers import BufferPool
from .determinism import pinned_torch_settings
from .fault_injection import fault_spec, faulted_operation, perturb
from .errors import DriverError, bad_data, bad_state, op_failed, summarize_exception
from .model import KNOWN_VALUE, NO_VALUE, TEMPORARY, Model, Operation, merge_dims, validate_operation
from .operand_types import TENSOR_FLOAT16, TORCH_DTYPE, OperandType
from . import native_runs
from .operations import _float_fast, _native, _prepared, _qfast, _referenced, _weight_only
from .operations.common import RUN, OperandSource

logger = logging.getLogger("executorch_nnapi.host_driver")

PREFER_LOW_POWER, PREFER_FAST_SINGLE_ANSWER, PREFER_SUSTAINED_SPEED = 0, 1, 2
PRIORITY_LOW, PRIORITY_MEDIUM, PRIORITY_HIGH = 90, 100, 110
BYTE_SIZE_OF_CACHE_TOKEN = 32


class RunSource(OperandSource):
    """Execution: shapes and values are the actual tensors."""

    stage = RUN

    def __init__(self, model: Model, env: list) -> None:
        self.model = model
        self.env = env

    def operand(self, idx: int) -> OperandType:
        return self.model.operands[idx].type

    def channel_quant(self, idx: int):
        return self.model.operands[idx].channel_quant

    def dims(self, idx: int) -> Optional[tuple[int, ...]]:
        v = self.env[idx]
        return tuple(v.shape) if isinstance(v, torch.Tensor) else ()

    def omitted(self, idx: int) -> bool:
        return self.env[idx] is None

    def value(self, idx: int) -> Any:
        return self.env[idx]

    def is_constant(self, idx: int) -> bool:
        return self.model.operands[idx].lifetime in KNOWN_VALUE


# Results of constant operations a plan keeps at most (each compilation has its own: the C++
# backend compiles a model per set of dynamic sizes). SmolLM2-135M's dequantized weights take
# 0.54 GB; a model whose dequantized weights exceed this dequantizes them at each execution.
FOLDED_BYTES = 2 << 30


# Operations whose result is not a function of their inputs (NNAPI's one random operation): never folded.
NOT_FOLDED = frozenset({"RANDOM_MULTINOMIAL"})


def _byte_size(shape: Optional[tuple[int, ...]], dtype: Optional[torch.dtype]) -> float:
    """Bytes of a result of static ``shape`` (infinite when unknown)."""
    if shape is None or dtype is None:
        return float("inf")
    n = 1
    for d in shape:
        n *= d
    return n * torch.empty(0, dtype=dtype).element_size()


class Step:
    """One operation of the plan.

    `into`: the operation's compute_into when its outputs can be written into pooled buffers
    (static shapes, no float16 round trip), else None; `view`: its compute_view, tried first with
    `into` (a view needs no buffer). `release`: the temporaries no later step reads, dropped (and
    their pooled buffers recycled) once this step has run.
    """

    __slots__ = ("op", "fn", "ins", "outs", "params", "shapes", "dtypes", "into", "view", "release")

    def __init__(self, op: Operation, fn: Callable, params: Any, shapes: Optional[tuple], dtypes: tuple,
                 into: Optional[Callable] = None) -> None:
        self.op, self.fn, self.ins, self.outs = op, fn, op.ins, op.outs
        self.params, self.shapes, self.dtypes = params, shapes, dtypes
        self.into = into
        self.view = getattr(op.module, "compute_view", None) if into is not None else None
        self.release: tuple[int, ...] = ()


def _via_float32(fn: Callable, half_outputs: tuple[bool, ...]) -> Callable:
    """AOSP computes float16 operations in float32 and rounds the results back to half."""

    def run(ins: list, p: Any) -> list:
        ins = [x.float() if isinstance(x, torch.Tensor) and x.dtype == torch.float16 else x for x in ins]
        outs = fn(ins, p)
        return [t.half() if h else t for t, h in zip(outs, half_outputs)]

    return run


class Plan:
    """The model's operations ready to run: see the module docstring.

    Made once per compilation: operations whose inputs are all constants are computed here
    (their results join the constants; e.g. the DEQUANTIZE of a weight-only quantized model's
    weights), and 8-bit operations get their prepared kernels (operations/_prepared.py); with
    $EXECUTORCH_NNAPI_HOST_REFERENCE_KERNELS set it does neither (the reference plan).
    """

    def __init__(self, model: Model) -> None:
        self.model = model
        env: list[Any] = [None] * len(model.operands)
        for idx, o in enumerate(model.operands):
            if o.lifetime in KNOWN_VALUE:
                env[idx] = model.values[idx]
        self.env_template = env
        # EXECUTORCH_NNAPI_HOST_FAULT: the operation (model index) whose output is perturbed.
        self.faulted = faulted_operation([op.name for op in model.operations], fault_spec())
        self.reference_kernels = _qfast.reference_only()
        self.steps = [self._step(model.operations[k]) for k in model.order]
        if not self.reference_kernels:
            self.steps = self._fuse_weight_only(self.steps)
            self.steps = self._fuse_activations(self._fuse_tables(self._fold_constants(self.steps)))
            self.steps = self._fuse_epilogues(self._fuse_float_silu(self.steps))
        for st, release in zip(self.steps, self._last_reads()):
            st.release = release
        # What run() goes through: the steps, stretches of compiled ones as native runs.
        self.units: list = (native_runs.group(self) if not self.reference_kernels and native_runs.enabled()
                            and _native.kernels() is not None else list(self.steps))
        # Buffer pools of finished runs (one per concurrent run; list pop/append are atomic).
        self._pools: list[BufferPool] = []

    def _step(self, op: Operation) -> Step:
        model = self.model
        # Model_addOperation refused every operation the driver has no kernel for.
        fn = op.module.compute
        half_in = any(model.operands[i].type.type == TENSOR_FLOAT16 for i in op.ins)
        half_out = tuple(model.operands[i].type.type == TENSOR_FLOAT16 for i in op.outs)
        into = getattr(op.module, "compute_into", None)
        # IF / WHILE hand values to referenced models as they are.
        if (half_in or any(half_out)) and not getattr(op.module, "RUNS_REFERENCED_MODELS", False):
            fn, into = _via_float32(fn, half_out), None
        params = model.params[op.index]
        shapes = None if params is None else tuple(model.shapes[i] for i in op.outs)
        dtypes = tuple(TORCH_DTYPE.get(model.operands[i].type.type) for i in op.outs)
        if shapes is None or None in dtypes:
            into = None
        prepared = None if params is None or self.reference_kernels else self._prepared(op, fn, params)
        if prepared is not None:
            # A prepared kernel that writes into a given tensor (the float loops) takes the pool's
            # buffers: a fresh one of megabytes costs its page faults at every execution.
            into = getattr(prepared, "into", None) if shapes is not None and None not in dtypes else None
            fn = prepared
        return Step(op, fn, params, shapes, dtypes, into)

    def _prepared(self, op: Operation, reference: Callable, params: Any) -> Optional[Callable]:
        """The operation's prepared 8-bit or float32 kernel (operations/_prepared.py), or None."""
        model = self.model

        def info(idx: int) -> _qfast.OperandInfo:
            t = model.operands[idx].type.type
            return _qfast.OperandInfo(TORCH_DTYPE.get(t), model.shapes[idx], self.env_template[idx])

        try:
            return _prepared.prepared_kernel(op.name, params, [info(i) for i in op.ins], [info(o) for o in op.outs],
                                          reference)
        except Exception:  # the reference kernel is always there: a preparation failure only costs speed
            logger.debug("%s (operation #%d): no prepared kernel", op.name, op.index, exc_info=True)
            return None

    def _fold_constants(self, steps: list[Step]) -> list[Step]:
        """Run now the steps whose inputs are all constants (or omitted), their results becoming
        constants of the plan, up to FOLDED_BYTES of results; return the steps left. A step that
        fails stays, to fail at execution as it would have."""
        known = {idx for idx, o in enumerate(self.model.operands) if o.lifetime in KNOWN_VALUE + (NO_VALUE,)}
        budget = FOLDED_BYTES
        kept = []
        for st in steps:
            foldable = (st.params is not None and st.op.index != self.faulted and all(i in known for i in st.ins)
                        and st.op.name not in NOT_FOLDED and not getattr(st.op.module, "RUNS_REFERENCED_MODELS", False))
            size = sum(_byte_size(s, dt) for s, dt in zip(st.shapes or (), st.dtypes)) if foldable else 0
            if foldable and size <= budget:
                try:
                    self._run_step(st, self.env_template, BufferPool())
                except Exception:
                    logger.debug("%s (operation #%d) left to execution", st.op.name, st.op.index, exc_info=True)
                    for o in st.outs:
                        self.env_template[o] = None
                else:
                    known.update(st.outs)
                    budget -= size
                    continue
            kept.append(st)
        return kept

    def _fuse_weight_only(self, steps: list[Step]) -> list[Step]:
        """A DEQUANTIZE of a constant int8 weight read only as the weights of float
        FULLY_CONNECTED steps goes; those steps compute from its codes and scales
        (`_weight_only`). Not for a model output or the operation EXECUTORCH_NNAPI_HOST_FAULT
        perturbs; where it does not apply, the DEQUANTIZE is folded as any constant operation."""
        readers: dict[int, list[tuple[Step, int]]] = {}
        for st in steps:
            for position, i in enumerate(st.ins):
                readers.setdefault(i, []).append((st, position))
        outputs, gone = set(self.model.outputs), set()
        for st in steps:
            if (st.op.name != "DEQUANTIZE" or st.params is None or st.op.index == self.faulted
                    or st.dtypes != (torch.float32,) or st.outs[0] in outputs
                    or not isinstance(self.env_template[st.ins[0]], torch.Tensor)):
                continue
            users = readers.get(st.outs[0], [])
            if not users or any(u.op.name != "FULLY_CONNECTED" or position != 1 or u.params is None
                                or u.params.quant or u.op.index == self.faulted or u.dtypes != (torch.float32,)
                                for u, position in users):
                continue
            kernels = [_weight_only.weight_only_kernel(self.env_template[st.ins[0]], st.params.scale, st.params.zp,
                                                       u.params.batch_shape[0]) for u, _ in users]
            if any(k is None for k in kernels):
                continue
            for (u, _), (fn, into) in zip(users, kernels):
                u.fn, u.into, u.ins = fn, (into if u.shapes is not None else None), (u.ins[0], u.ins[2])
            gone.add(id(st))
        return [st for st in steps if id(st) not in gone]

    def _links(self, steps: list[Step]) -> tuple[dict[int, int], dict[int, Step], set[int]]:
        """(readers per operand, the step producing each operand, the model's outputs) of ``steps``."""
        readers: dict[int, int] = {}
        for st in steps:
            for i in st.ins:
                readers[i] = readers.get(i, 0) + 1
        return readers, {o: st for st in steps for o in st.outs}, set(self.model.outputs)

    def _fuse_tables(self, steps: list[Step]) -> list[Step]:
        """A two-input table step reading x and a one-input table step's result on that same x
        (SiLU's MUL(x, LOGISTIC(x))) becomes one table of x, and the inner step goes, when nothing
        else reads the inner result and neither step is the one EXECUTORCH_NNAPI_HOST_FAULT
        perturbs."""
        readers, producer, outputs = self._links(steps)
        gone: set[int] = set()
        for st in steps:
            if not isinstance(st.fn, _qfast.Table) or st.fn.arity != 2 or st.op.index == self.faulted:
                continue
            for position in (0, 1):
                inner = producer.get(st.ins[position])
                if (inner is None or not isinstance(inner.fn, _qfast.Table) or inner.ins[0] != st.ins[1 - position]
                        or readers[st.ins[position]] != 1 or st.ins[position] in outputs
                        or inner.op.index == self.faulted or id(inner) in gone):
                    continue
                fused = _qfast.fused_table(st.fn, inner.fn, position)
                if fused is not None:
                    st.fn, st.ins = fused, (inner.ins[0],)
                    gone.add(id(inner))
                    break
        return [st for st in steps if id(st) not in gone]

    def _fuse_float_silu(self, steps: list[Step]) -> list[Step]:
        """A compiled float32 MUL without activation reading x and a compiled LOGISTIC of that same
        x (SiLU) becomes one SiLU step of x (`_float_fast.silu_kernel`), and the LOGISTIC step
        goes, on the conditions of `_fuse_tables`."""
        readers, producer, outputs = self._links(steps)
        gone: set[int] = set()
        for st in steps:
            if getattr(st.fn, "float_mul_act", None) != 0 or st.op.index == self.faulted:
                continue
            for position in (0, 1):
                inner = producer.get(st.ins[position])
                if (inner is None or not getattr(inner.fn, "float_logistic", False)
                        or inner.ins[0] != st.ins[1 - position] or readers[st.ins[position]] != 1
                        or st.ins[position] in outputs or inner.op.index == self.faulted or id(inner) in gone):
                    continue
                fused = _float_fast.silu_kernel(st.fn)
                if fused is not None:
                    st.fn, st.ins = fused, (inner.ins[0],)
                    st.into = fused.into if st.into is not None else None
                    gone.add(id(inner))
                    break
        return [st for st in steps if id(st) not in gone]

    def _fuse_activations(self, steps: list[Step]) -> list[Step]:
        """A prepared convolution or FULLY_CONNECTED whose result only a one-input table step reads
        (an 8-bit activation: HARD_SWISH, LOGISTIC, TANH, SiLU's table) looks its codes up in that
        table as it writes them (`_qfast.fuse_table`), and the table step goes."""
        return self._into_producers(steps, lambda inner, st: (
            isinstance(st.fn, _qfast.Table) and st.fn.arity == 1 and _qfast.fuse_table(inner.fn, st.fn)))

    def _fuse_epilogues(self, steps: list[Step]) -> list[Step]:
        """A compiled float32 convolution or product whose result only a SiLU step or a float32
        HARD_SWISH reads applies that activation as it writes (`_float_fast.fuse_epilogue`), and
        the activation's step goes."""
        return self._into_producers(steps, lambda inner, st: (
            st.shapes is not None and st.dtypes == (torch.float32,) and inner.dtypes == (torch.float32,)
            and _float_fast.fuse_epilogue(inner.fn, st.fn, st.op.name, st.shapes[0])))

    def _into_producers(self, steps: list[Step], fuse: Callable[[Step, Step], bool]) -> list[Step]:
        """Each one-input step ``st`` whose input only it reads, made by a step ``inner`` with one
        result, goes when ``fuse(inner, st)`` makes ``inner`` compute it (``inner`` then writes
        ``st``'s result); not when that input is a model output or either step is the one
        EXECUTORCH_NNAPI_HOST_FAULT perturbs."""
        readers, producer, outputs = self._links(steps)
        gone: set[int] = set()
        for st in steps:
            if st.op.index == self.faulted or not st.ins:
                continue
            inner = producer.get(st.ins[0])
            if (inner is None or id(inner) in gone or len(inner.outs) != 1 or readers[st.ins[0]] != 1
                    or st.ins[0] in outputs or inner.op.index == self.faulted):
                continue
            if fuse(inner, st):
                inner.outs, inner.shapes, inner.dtypes = st.outs, st.shapes, st.dtypes
                gone.add(id(st))
        return [st for st in steps if id(st) not in gone]

    def _last_reads(self) -> list[tuple[int, ...]]:
        """Per step, the temporaries it is the last to read (or produces and nobody reads)."""
        last: dict[int, int] = {}
        for k, st in enumerate(self.steps):
            for o in st.outs:
                last[o] = k
            for i in st.ins:
                last[i] = k
        release: list[list[int]] = [[] for _ in self.steps]
        for idx, k in last.items():
            if self.model.operands[idx].lifetime == TEMPORARY:
                release[k].append(idx)
        return [tuple(r) for r in release]

    def run(self, env: list, durations: Optional[list] = None) -> None:
        """Run every step on `env` (operand index -> tensor/scalar/None), filling the outputs;
        `durations` (one slot per operation, by model index) gets each operation's nanoseconds."""
        pool = self._pools.pop() if self._pools else BufferPool()
        for unit in self.units:
            if isinstance(unit, Step):
                self.run_step(unit, env, pool, durations)
            else:
                unit.run(self, env, pool, durations)
        pool.end_run()
        self._pools.append(pool)  # not reached after a failure: that pool's counts are dropped

    def run_step(self, st: Step, env: list, pool: BufferPool, durations: Optional[list]) -> None:
        """Run one step, then drop the temporaries it was the last to read."""
        start = time.perf_counter_ns()
        self._run_step(st, env, pool)
        if st.op.index == self.faulted:
            env[st.outs[0]] = perturb(env[st.outs[0]])
        if durations is not None:
            durations[st.op.index] = time.perf_counter_ns() - start
        for i in st.release:
            pool.release(env[i])
            env[i] = None

    def _run_step(self, st: Step, env: list, pool: BufferPool) -> None:
        model = self.model
        p, shapes = st.params, st.shapes
        op = st.op
        if p is None:
            # Validated now that the shapes/values are known (raises BAD_DATA).
            c = validate_operation(op, model.level, RunSource(model, env))
            p = c.p
            # None: known only from the result (IF / WHILE), checked below.
            shapes = tuple(None if c.out_dims[j] is None else
                           merge_dims(op, j, idx, model.operands[idx].type.dims, c.out_dims[j])
                           for j, idx in enumerate(op.outs))
        ins = [env[i] for i in st.ins]
        try:
            results = None if st.view is None else st.view(ins, p)
            if results is None and st.into is not None:
                outs = [pool.take(s, dt) for s, dt in zip(shapes, st.dtypes)]
                if st.into(ins, p, outs):
                    results = outs
                else:
                    pool.give_back(outs)
            if results is None:
                results = st.fn(ins, p)
        except DriverError as e:
            raise DriverError(e.code, f"{op.name} (operation #{op.index}): {e.message}") from None
        except Exception as e:  # a kernel failure is the execution's failure
            logger.debug("%s (operation #%d) failed", op.name, op.index, exc_info=True)
            raise op_failed(f"{op.name} (operation #{op.index}) failed: {summarize_exception(e, 1)}") from e
        for j, (o, t, s, dt) in enumerate(zip(st.outs, results, shapes, st.dtypes)):
            if dt is None and not isinstance(t, torch.Tensor):  # a scalar operand (RANK's result)
                env[o] = t
                continue
            if s is None:
                s = merge_dims(op, j, o, model.operands[o].type.dims, tuple(t.shape))
            if t.shape != s or t.dtype != dt:
                raise op_failed(f"host driver bug: {op.name} (operation #{op.index}) produced "
                                f"{t.dtype}{list(t.shape)} for operand {o}, expected {dt}{list(s)}")
            env[o] = t
            pool.adopt(t)


# IF / WHILE run their referenced models with plans of their own.
_referenced.plan_factory = Plan


class Compilation:
    """A compilation of a finished model for the host device."""

    def __init__(self, model: Model, devices: Optional[Sequence[Any]] = None) -> None:
        if not model.finished:
            raise bad_state("the model must be finished before it is compiled"
                            + (" (it is invalid: Model_finish failed)" if model.invalid else ""))
        self.model = model
        self.devices = devices
        self.preference = PREFER_FAST_SINGLE_ANSWER
        self.priority = PRIORITY_MEDIUM
        self.timeout_ns = 0
        self.cache: Optional[tuple[str, bytes]] = None
        self.finished = False
        self.plan: Optional[Plan] = None

    @property
    def single_device(self) -> bool:
        """Created with createForDevices and exactly one device (needed for timing and timeouts)."""
        return self.devices is not None and len(self.devices) == 1

    def _modifiable(self) -> None:
        if self.finished:
            raise bad_state("the compilation is finished and can no longer be modified")

    def set_preference(self, preference: int) -> None:
        self._modifiable()
        if preference not in (PREFER_LOW_POWER, PREFER_FAST_SINGLE_ANSWER, PREFER_SUSTAINED_SPEED):
            raise bad_data(f"preference must be 0, 1 or 2, got {preference}")
        self.preference = preference

    def set_priority(self, priority: int) -> None:
        self._modifiable()
        if priority not in (PRIORITY_LOW, PRIORITY_MEDIUM, PRIORITY_HIGH):
            raise bad_data(f"priority must be 90 (LOW), 100 (MEDIUM) or 110 (HIGH), got {priority}")
        self.priority = priority

    def set_timeout(self, duration_ns: int) -> None:
        self._modifiable()
        if not self.single_device:
            raise bad_data("Compilation_setTimeout needs a compilation created by createForDevices with "
                           "exactly one device")
        self.timeout_ns = duration_ns

    def set_caching(self, cache_dir: str, token: bytes) -> None:
        self._modifiable()
        # Nothing is cached on the host; the arguments are only checked.
        self.cache = (cache_dir, token)

    def finish(self) -> None:
        if self.finished:
            raise bad_state("Compilation_finish was already called")
        # Explicit devices mean no CPU fallback, but the model holds only operations the
        # driver computes (Model_addOperation refused the rest), so none needs one. The plan is
        # made on the driver's thread count, as executions run: the preparation's torch passes
        # (folding, proofs) on a busy machine's oversubscribed threads took 10x longer.
        with pinned_torch_settings():
            self.plan = Plan(self.model)
        self.finished = True

    def check_io_index(self, index: int, is_input: bool) -> int:
        n = len(self.model.inputs if is_input else self.model.outputs)
        kind = "input" if is_input else "output"
        if not 0 <= index < n:
            raise bad_data(f"{kind} index {index} is out of range (the model has {n} {kind}s)")
        return index

