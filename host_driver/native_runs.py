"""Runs of a plan's consecutive compiled steps, replayed as one native call per execution.

Most steps of an 8-bit or float32 image model are one or two calls of the compiled kernels
(operations/_native.py), and every execution of a compilation makes them with the same arguments:
the same constants, shapes and scratch, and outputs written where the step before left them.
Only the values entering the run from outside (the model's inputs, results of steps that run in
Python) may lie elsewhere. So the first execution runs the steps one by one while recording their
calls (`NativeKernels.recording`) and keeps the rows; later executions write the outside values'
addresses into the rows and run them all in C (nnapi_host_calls.c). The kernels and their
arguments are the same, so are the bytes; what goes is the Python around each step (about 7 us a
step: a fifth of mobilenet_v2's 8-bit execution, and a part a second thread does not shrink).

Buffers: each result gets one when recorded, and keeps it. Runs bind in plan order, so a buffer
whose result is dead (its last reader ran, and no live value is a view of it) serves any later
result of the same size, in this run or a later one: one set of buffers for the plan, as the
`BufferPool` of the Python steps would have it. A view (RESHAPE) of an outside value is made anew
at each execution and counted as a use of that value's pooled buffer.

A step joins a run when its kernel says its work is its native calls (``replayable``) or it is a
view, its shapes are static, it writes no model output (those leave the plan) and it is not the
operation EXECUTORCH_NNAPI_HOST_FAULT perturbs. If a recording shows a step computing part of its
result another way (torch), the run stays a sequence of ordinary steps. Each concurrent execution
has its own rows and buffers (they hang on its `BufferPool`). EXECUTORCH_NNAPI_HOST_NATIVE_RUNS=0
turns runs off (tests compare the two).
"""

from __future__ import annotations

import ctypes
import logging
import os
import time
from typing import Any, Optional

import torch

from .errors import op_failed
from .model import NO_VALUE
from .operations import _native

logger = logging.getLogger("executorch_nnapi.host_driver")

VARIABLE = "EXECUTORCH_NNAPI_HOST_NATIVE_RUNS"
MIN_STEPS = 2   # a lone step gains nothing from a run


def enabled() -> bool:
    """Whether plans group their compiled steps into runs ($EXECUTORCH_NNAPI_HOST_NATIVE_RUNS)."""
    return os.environ.get(VARIABLE, "1").strip().lower() not in _native.OFF


def _joins(st: Any, plan: Any, outputs: set[int]) -> bool:
    static = st.params is not None and st.shapes is not None and None not in st.shapes and None not in st.dtypes
    return (static and st.op.index != plan.faulted and not any(o in outputs for o in st.outs)
            and all(0 not in s for s in st.shapes)
            and (getattr(st.fn, "replayable", False) or st.view is not None))


def group(plan: Any) -> list:
    """The plan's steps with each stretch of MIN_STEPS or more joining steps made a `NativeRun`."""
    steps, outputs = plan.steps, set(plan.model.outputs)
    last_read: dict[int, int] = {}
    for k, st in enumerate(steps):
        for i in st.ins:
            last_read[i] = k
    units: list = []
    pending: list = []

    def flush(end: int) -> None:
        if sum(1 for st in pending if st.view is None) >= MIN_STEPS:
            units.append(NativeRun(plan, pending, end - len(pending), last_read))
        else:
            units.extend(pending)
        pending.clear()

    for k, st in enumerate(steps):
        if _joins(st, plan, outputs):
            pending.append(st)
        else:
            flush(k)
            units.append(st)
    flush(len(steps))
    return units


class _Replay:
    """A bound run: its rows, where the outside values go, the results read after it."""

    __slots__ = ("native", "rows", "count", "ns", "patches", "exports", "views", "spans", "keep")

    def __init__(self, native: _native.NativeKernels, rows: list[list[int]], patches: list, exports: list,
                 views: list, spans: list, keep: list) -> None:
        self.native, self.count, slots = native, len(rows), native.call_slots
        self.rows = (ctypes.c_int64 * (self.count * slots))()
        for k, row in enumerate(rows):
            self.rows[k * slots:k * slots + len(row)] = row
        self.ns = (ctypes.c_int64 * self.count)()
        self.patches, self.exports, self.views, self.spans, self.keep = patches, exports, views, spans, keep


class _PoolRuns:
    """What the runs keep on one `BufferPool` (one concurrent execution): their replays, and the
    buffers their results lie in. Runs bind in plan order on the first execution, so a buffer
    whose operand is dead by a step (its last reader ran) is free for any result after it, in
    this and every later execution."""

    def __init__(self) -> None:
        self.replays: dict[int, _Replay] = {}
        self.free: dict[tuple[torch.dtype, int], list[torch.Tensor]] = {}
        # (the step index of its last reader, buffer) of each result read after its run
        self.pending: list[tuple[int, torch.Tensor]] = []

    def take(self, dtype: torch.dtype, numel: int) -> Optional[torch.Tensor]:
        stack = self.free.get((dtype, numel))
        return stack.pop() if stack else None

    def give(self, buffer: torch.Tensor) -> None:
        self.free.setdefault((buffer.dtype, buffer.numel()), []).append(buffer)

    def reclaim(self, before: int, env: list) -> None:
        """Free the buffers of results read after their run whose last reader is before step
        ``before`` (a buffer pending twice, for a result and a view of it, waits for both), unless
        a live value of ``env`` still lies in one: a view a Python step made of the result (a
        RESHAPE outside the run) lives on after the result's last reader."""
        in_use = {v.untyped_storage().data_ptr() for v in env if isinstance(v, torch.Tensor)}
        waiting = {id(b) for last, b in self.pending if last >= before or b.untyped_storage().data_ptr() in in_use}
        done = [(last, b) for last, b in self.pending if id(b) not in waiting]
        self.pending = [(last, b) for last, b in self.pending if id(b) in waiting]
        given: set[int] = set()
        for _, b in done:
            if id(b) not in waiting and id(b) not in given:
                given.add(id(b))
                self.give(b)


def _pool_runs(pool: Any) -> _PoolRuns:
    if pool.runs is None:
        pool.runs = _PoolRuns()
    return pool.runs


class NativeRun:
    """Consecutive steps of a plan replayed as one native call (see the module docstring)."""

    def __init__(self, plan: Any, steps: list, first: int, last_read: dict[int, int]) -> None:
        self.steps, self.first = tuple(steps), first
        produced = {o for st in steps for o in st.outs}
        operands = plan.model.operands
        self.inputs = tuple(dict.fromkeys(
            i for st in steps for i in st.ins
            if i not in produced and plan.env_template[i] is None and operands[i].lifetime != NO_VALUE))
        # Results read after the run -> the index of their last reader.
        end = first + len(steps)
        self.escaping = {o: last_read[o] for o in produced if last_read.get(o, -1) >= end}
        self.release = tuple(dict.fromkeys(i for st in steps for i in st.release))
        self.unbindable = False

    @property
    def op(self) -> Any:
        return self.steps[0].op

    def run(self, plan: Any, env: list, pool: Any, durations: Optional[list]) -> None:
        """Compute the run's steps on ``env`` (replayed when bound on ``pool``, else step by step)."""
        state = _pool_runs(pool)
        replay = state.replays.get(id(self))
        if replay is None or not self._replay(replay, env, pool, durations):
            if self.unbindable or replay is not None:
                self._as_steps(plan, env, pool, durations, 0)
                return
            replay = self._bind(plan, env, pool, durations, state)
            if replay is None:
                return
            state.replays[id(self)] = replay
        for i in self.release:   # last read in the run, so none of them is read after it
            pool.release(env[i])
            env[i] = None

    def _replay(self, r: _Replay, env: list, pool: Any, durations: Optional[list]) -> bool:
        hold = []
        rows = r.rows
        for i, positions, shape, dtype in r.patches:
            v = env[i]
            if not isinstance(v, torch.Tensor) or v.shape != shape or v.dtype != dtype:
                return False
            if not v.is_contiguous():
                v = v.contiguous()
                hold.append(v)
            address = v.data_ptr()
            for k in positions:
                rows[k] = address
        failed = r.native.run_calls(ctypes.addressof(rows), r.count, ctypes.addressof(r.ns))
        if failed >= 0:   # the same calls passed when recorded
            st = next(s for s, (first, last) in zip(self.steps, r.spans) if first <= failed < last)
            raise op_failed(f"host driver bug: {st.op.name} (operation #{st.op.index}) refused a recorded call")
        for o, t in r.exports:
            env[o] = t
        for st in r.views:   # views of this execution's inputs: made anew, counted as the pool's
            results = st.view([env[i] for i in st.ins], st.params)
            if results is None:   # it was a view when recorded, of the same shapes
                raise op_failed(f"host driver bug: {st.op.name} (operation #{st.op.index}) is no longer a view")
            for o, t in zip(st.outs, results):
                env[o] = t
                pool.adopt(t)
        if durations is not None:
            ns = r.ns
            for st, (first, last) in zip(self.steps, r.spans):
                durations[st.op.index] = sum(ns[first:last])
        return True

    def _bind(self, plan: Any, env: list, pool: Any, durations: Optional[list],
              state: _PoolRuns) -> Optional[_Replay]:
        """Run the steps one by one on ``env``, recording their calls; the replay, or None (the
        steps ran the ordinary way, and will from now on) when a step is not replayable here."""
        outside = [env[i] for i in self.inputs]
        if (any(not isinstance(v, torch.Tensor) or not v.is_contiguous() for v in outside)
                or len({v.data_ptr() for v in outside}) != len(outside)):
            return self._give_up(plan, env, pool, durations, 0, "an input is not a distinct contiguous tensor")
        state.reclaim(self.first, env)
        binder = _Binder(self, _native.kernels(), state, pool)
        for k, st in enumerate(self.steps):
            started = time.perf_counter_ns()
            why = binder.step(st, env)
            if why is not None:
                return self._give_up(plan, env, pool, durations, k, why)
            if durations is not None:
                durations[st.op.index] = time.perf_counter_ns() - started
        return binder.replay(env, [(i, env[i]) for i in self.inputs])

    def _give_up(self, plan: Any, env: list, pool: Any, durations: Optional[list], done: int,
                 why: str) -> None:
        """Steps ``done`` onwards the ordinary way (the earlier ones' results are in env); no replay."""
        logger.debug("%s (operation #%d) and %d steps after it stay Python steps: %s", self.op.name,
                     self.op.index, len(self.steps) - 1, why)
        self.unbindable = True
        self._as_steps(plan, env, pool, durations, done)
        return None

    def _as_steps(self, plan: Any, env: list, pool: Any, durations: Optional[list], done: int) -> None:
        """Steps ``done`` onwards as ordinary steps of the plan."""
        for st in self.steps[done:]:
            plan.run_step(st, env, pool, durations)


class _Binder:
    """The recording of one run's first execution: rows, buffers by lifetime, aliases."""

    def __init__(self, run: NativeRun, native: _native.NativeKernels, state: _PoolRuns, pool: Any) -> None:
        self.run, self.native, self.state, self.pool = run, native, state, pool
        self.rows: list[list[int]] = []
        self.pointer_slots: list[tuple[int, ...]] = []   # per row, the slots holding addresses
        self.spans: list[tuple[int, int]] = []
        self.keep: list = []
        self.root: dict[int, torch.Tensor] = {}   # operand -> the shared buffer holding it
        self.users: dict[int, int] = {}           # id(buffer) -> live operands in it
        self.done: list[int] = []                 # operands set in env
        self.escaped: dict[int, torch.Tensor] = {}  # operand read after the run -> its buffer
        self.views: list = []                       # the view steps of outside values
        self.input_views: set[int] = set()          # their results

    def step(self, st: Any, env: list) -> Optional[str]:
        """Run and record one step; None, or why it cannot be replayed."""
        ins = [env[i] for i in st.ins]
        first = len(self.rows)
        if getattr(st.fn, "replayable", False):
            with self.native.recording() as recording:
                results = st.fn(ins, st.params)
            if not recording.complete or not recording.calls:
                return "its kernel computed part of the result in Python"
            for call in recording.calls:
                self.rows.append(call.row)   # this recording's own list: relocated in place
                self.pointer_slots.append(call.pointers)
                self.keep.extend(t for t in call.keep if t is not None)
            alias = None
        else:
            results = st.view(ins, st.params)
            if results is None or any(not r.is_contiguous() or r.data_ptr() != ins[0].data_ptr() for r in results):
                return "its view is not one of its input"
            alias = st.ins[0]
            if alias in self.run.inputs or alias in self.input_views:
                self.views.append(st)   # a view of an outside value: remade at each execution
                self.input_views.update(st.outs)
        for j, (o, t) in enumerate(zip(st.outs, results)):
            if tuple(t.shape) != st.shapes[j] or t.dtype != st.dtypes[j]:
                return f"it produced {t.dtype}{list(t.shape)}, expected {st.dtypes[j]}{list(st.shapes[j])}"
            self._place(o, t, alias, first, env)
        self.spans.append((first, len(self.rows)))
        for i in st.release:
            self._drop(i)
        return None

    def _place(self, o: int, t: torch.Tensor, alias: Optional[int], first: int, env: list) -> None:
        """Give result ``t`` of operand ``o`` a buffer: a free one of its size when there is one
        (the step's rows then write there), else its own; one read after the run is freed after
        its last reader (`_PoolRuns.reclaim`)."""
        self.done.append(o)
        if o in self.input_views:   # a view of an outside value, which may be the pool's
            self.pool.adopt(t)
        if alias is not None:
            buffer = self.root.get(alias)
            if alias in self.escaped and o in self.run.escaping:   # a view read after the run too
                self.escaped[o] = self.escaped[alias]
                self.state.pending.append((self.run.escaping[o], self.escaped[o]))
        else:
            buffer = self.state.take(t.dtype, t.numel())
            if buffer is None:
                buffer = t.reshape(-1)
            else:
                self._relocate(t.data_ptr(), buffer.data_ptr(), first)
                buffer.copy_(t.reshape(-1))
                t = buffer.view(t.shape)
            self.keep.append(buffer)
            if o in self.run.escaping:
                self.state.pending.append((self.run.escaping[o], buffer))
                self.escaped[o], buffer = buffer, None
        if buffer is not None:
            self.root[o] = buffer
            self.users[id(buffer)] = self.users.get(id(buffer), 0) + 1
        env[o] = t

    def _relocate(self, old: int, new: int, first: int) -> None:
        for row, slots in zip(self.rows[first:], self.pointer_slots[first:]):
            for s in slots:
                if row[s] == old:
                    row[s] = new

    def _drop(self, i: int) -> None:
        buffer = self.root.pop(i, None)
        if buffer is None:
            return
        self.users[id(buffer)] -= 1
        if self.users[id(buffer)] == 0:
            self.state.give(buffer)

    def replay(self, env: list, outside: list) -> _Replay:
        patches = []
        for i, v in outside:
            address = v.data_ptr()
            positions = [k * self.native.call_slots + s for k, (row, slots) in enumerate(zip(self.rows,
                                                                                          self.pointer_slots))
                         for s in slots if row[s] == address]
            patches.append((i, positions, v.shape, v.dtype))
        exports = [(o, env[o]) for o in self.done if o in self.run.escaping and o not in self.input_views]
        return _Replay(self.native, self.rows, patches, exports, self.views, self.spans, self.keep)
