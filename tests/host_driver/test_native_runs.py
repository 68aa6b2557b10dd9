"""Native runs (host_driver/native_runs.py): a plan's consecutive compiled steps recorded on the first
execution and replayed as one call of nnapi_host_run_calls after it. Held here: the same bytes as
the plan run step by step ($EXECUTORCH_NNAPI_HOST_NATIVE_RUNS=0) for an 8-bit model lowered from
PyTorch and a float32 NNAPI model, over executions whose inputs lie at other addresses (one
strided); each operation's time still reported; two executions at once on one compilation; and a
run whose step computes part of its result in torch staying a sequence of ordinary steps."""

from __future__ import annotations

import threading

import pytest
import torch

from nnapi_client import QA8, Execution, Model
from executorch_nnapi.host_driver import native_runs
from executorch_nnapi.host_driver.compilation import Compilation
from executorch_nnapi.host_driver.execution import Execution as DriverExecution
from executorch_nnapi.host_driver.operations import _native

NATIVE = _native.kernels()


@pytest.fixture(autouse=True, scope="module")
def _library_loaded() -> None:
    assert NATIVE is not None, f"{_native.library_path()} did not load: build the package"


@pytest.fixture
def replays(monkeypatch) -> list:
    """The number of rows of each replay made while the test runs."""
    made: list = []
    real = _native.NativeKernels.run_calls

    def counted(self, rows, count, ns):
        made.append(count)
        return real(self, rows, count, ns)

    monkeypatch.setattr(_native.NativeKernels, "run_calls", counted)
    return made


class _Block(torch.nn.Module):
    """An inverted residual with a squeeze-and-excite gate, then a pool and a classifier."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.stem = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, stride=2, padding=1), torch.nn.ReLU6())
        self.expand = torch.nn.Sequential(torch.nn.Conv2d(16, 48, 1), torch.nn.Hardswish())
        self.depthwise = torch.nn.Sequential(torch.nn.Conv2d(48, 48, 3, padding=1, groups=48), torch.nn.ReLU())
        self.squeeze = torch.nn.Sequential(torch.nn.AdaptiveAvgPool2d(1), torch.nn.Conv2d(48, 16, 1), torch.nn.ReLU(),
                                           torch.nn.Conv2d(16, 48, 1), torch.nn.Hardsigmoid())
        self.project = torch.nn.Conv2d(48, 16, 1)
        self.head = torch.nn.Sequential(torch.nn.MaxPool2d(2), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
                                        torch.nn.Linear(16, 10))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x)
        y = self.depthwise(self.expand(x))
        return self.head(x + self.project(y * self.squeeze(y)))


@pytest.mark.parametrize("signed", [False, True], ids=["uint8", "int8"])
def test_an_8bit_model_replays_the_bytes_of_its_steps(monkeypatch, replays, signed):
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime
    from torchao.quantization.pt2e.quantize_pt2e import prepare_pt2e

    import executorch_nnapi.runtime  # noqa: F401  (the NNAPI backend, on the host driver)
    from quantized_reference import calibrated
    from executorch_nnapi.partitioners import NnapiPartitioner
    from executorch_nnapi.quantizer import NnapiQuantizer

    x = torch.randn(1, 3, 32, 32)
    gm = prepare_pt2e(torch.export.export(_Block().eval(), (x,)).module(), NnapiQuantizer(30, signed=signed))
    program = to_edge_transform_and_lower(torch.export.export(calibrated(gm, (x,), 4), (x,)),
                                          partitioner=[NnapiPartitioner(30)]).to_executorch()
    programs, methods = [], []   # a Method needs its Program alive
    for runs in ("0", "1"):
        monkeypatch.setenv(native_runs.VARIABLE, runs)
        programs.append(Runtime.get().load_program(program.buffer))
        methods.append(programs[-1].load_method("forward"))
    gen = torch.Generator().manual_seed(5)
    for _ in range(4):
        inp = torch.randn(1, 3, 32, 32, generator=gen) * 2
        want, got = (method.execute([inp])[0] for method in methods)
        assert torch.equal(want, got)
    # Replayed from the second execution on, most of the model in one run.
    assert len(replays) >= 3 and max(replays) >= 8


def _float_model(lib) -> Model:
    """x -> CONV 1x1 (RELU6) -> DEPTHWISE 3x3 -> CONV 1x1 -> ADD x -> RESHAPE -> FULLY_CONNECTED."""
    gen = torch.Generator().manual_seed(3)
    m = Model(lib)
    x = m.tensor([1, 24, 24, 16])

    def conv(inp, w, depthwise=False, act=0):
        out = m.tensor([1, 24, 24, w.shape[0] if not depthwise else w.shape[3]])
        bias = m.const(torch.randn(w.shape[3] if depthwise else w.shape[0], generator=gen))
        if depthwise:
            m.op("DEPTHWISE_CONV_2D", [inp, m.const(w), bias, m.i32(1), m.i32(1), m.i32(1), m.i32(1), m.i32(1),
                                       m.i32(1), m.i32(1), m.i32(act)], [out])
        else:
            m.op("CONV_2D", [inp, m.const(w), bias, m.i32(0), m.i32(0), m.i32(0), m.i32(0), m.i32(1), m.i32(1),
                             m.i32(act)], [out])
        return out

    a = conv(x, torch.randn(32, 1, 1, 16, generator=gen) * 0.3, act=3)
    b = conv(a, torch.randn(1, 3, 3, 32, generator=gen) * 0.3, depthwise=True)
    c = conv(b, torch.randn(16, 1, 1, 32, generator=gen) * 0.3)
    s = m.tensor([1, 24, 24, 16])
    m.op("ADD", [c, x, m.i32(0)], [s])
    flat = m.tensor([1, 9216])
    m.op("RESHAPE", [s, m.const(torch.tensor([1, 9216], dtype=torch.int32))], [flat])
    y = m.tensor([1, 10])
    m.op("FULLY_CONNECTED", [flat, m.const(torch.randn(10, 9216, generator=gen) * 0.01),
                             m.const(torch.randn(10, generator=gen)), m.i32(0)], [y])
    m.io([x], [y])
    m.finish()
    return m


def _execute(lib, compilation, x: torch.Tensor) -> tuple[torch.Tensor, Execution]:
    ex = Execution(lib, compilation)
    ex.set_input(0, x)
    out = torch.zeros(1, 10)
    ex.set_output(0, out)
    assert ex.compute() == 0
    return out, ex


def test_a_float_plan_replays_the_bytes_of_its_steps_and_reports_each_operations_time(lib, driver, monkeypatch,
                                                                                       replays):
    compiled = {}
    for runs in ("0", "1"):
        monkeypatch.setenv(native_runs.VARIABLE, runs)
        compiled[runs] = _float_model(lib).compile().value
    plan = driver.lookup(compiled["1"], Compilation, "compilation").plan
    [run] = [u for u in plan.units if isinstance(u, native_runs.NativeRun)]
    # The classifier writes the model's output: it stays a step of its own.
    assert [st.op.name for st in run.steps] == ["CONV_2D", "DEPTHWISE_CONV_2D", "CONV_2D", "ADD", "RESHAPE"]
    gen = torch.Generator().manual_seed(11)
    for _ in range(3):
        x = torch.randn(1, 24, 24, 16, generator=gen)
        want, _ = _execute(lib, compiled["0"], x)
        got, ex = _execute(lib, compiled["1"], x)
        assert torch.equal(want, got)
        times = driver.lookup(ex.handle.value, DriverExecution, "execution").operation_ns
        assert all(times[st.op.index] > 0 for st in run.steps if st.view is None)
    assert not run.unbindable and len(replays) == 2
    # A strided input (the C API hands over contiguous memory; a plan may get a view): the run
    # reads a contiguous copy.
    x = torch.randn(1, 24, 16, 24, generator=gen).transpose(2, 3)
    results = []
    for plan in (driver.lookup(compiled[runs], Compilation, "compilation").plan for runs in ("0", "1")):
        env = plan.env_template.copy()
        env[plan.model.inputs[0]] = x
        plan.run(env)
        results.append(env[plan.model.outputs[0]])
    assert torch.equal(results[0], results[1]) and len(replays) == 3


def test_two_executions_at_once_replay_on_buffers_of_their_own(lib, driver):
    plan = driver.lookup(_float_model(lib).compile().value, Compilation, "compilation").plan
    gen = torch.Generator().manual_seed(2)
    inputs = [torch.randn(1, 24, 24, 16, generator=gen) for _ in range(6)]
    x_index, y_index = plan.model.inputs[0], plan.model.outputs[0]

    def compute(x: torch.Tensor) -> torch.Tensor:
        env = plan.env_template.copy()
        env[x_index] = x
        plan.run(env)
        return env[y_index].clone()

    want = [compute(x) for x in inputs]
    barrier, got, failures = threading.Barrier(2), {}, []

    def worker(half: int) -> None:
        try:
            barrier.wait()
            for _ in range(20):
                for k in range(half, len(inputs), 2):
                    got[k] = compute(inputs[k])
                    assert torch.equal(got[k], want[k])
        except BaseException as e:  # reported below
            failures.append(e)

    threads = [threading.Thread(target=worker, args=(h,)) for h in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures[0]
    assert len(got) == len(inputs)


def test_a_step_computing_in_torch_keeps_its_run_a_sequence_of_steps(lib, driver, monkeypatch, replays):
    """An 8-bit ADD of [1, 8, 8, 16] and [1, 8, 1, 16] (neither shape a row of the other) looks its
    codes up on both inputs broadcast by torch: its run is never replayed, and its results stand."""
    def model(runs: str) -> int:
        monkeypatch.setenv(native_runs.VARIABLE, runs)
        m = Model(lib)
        q = dict(scale=0.05, zp=100)
        x, y = m.operand(QA8, [1, 8, 8, 16], **q), m.operand(QA8, [1, 8, 1, 16], **q)
        a, b = (m.operand(QA8, [1, 8, 8, 16], **q) for _ in range(2))
        out = m.operand(QA8, [1, 8, 8, 16], scale=1 / 256, zp=0)
        m.op("ADD", [x, y, m.i32(0)], [a])
        m.op("ADD", [a, x, m.i32(1)], [b])
        m.op("LOGISTIC", [b], [out])
        m.io([x, y], [out])
        m.finish()
        return m.compile().value

    plans = {runs: driver.lookup(model(runs), Compilation, "compilation").plan for runs in ("0", "1")}
    [run] = [u for u in plans["1"].units if isinstance(u, native_runs.NativeRun)]
    gen = torch.Generator().manual_seed(8)
    for _ in range(3):
        x = torch.randint(0, 256, (1, 8, 8, 16), generator=gen, dtype=torch.uint8)
        y = torch.randint(0, 256, (1, 8, 1, 16), generator=gen, dtype=torch.uint8)
        results = []
        for plan in plans.values():
            env = plan.env_template.copy()
            env[plan.model.inputs[0]], env[plan.model.inputs[1]] = x, y
            plan.run(env)
            results.append(env[plan.model.outputs[0]])
        assert torch.equal(results[0], results[1])
    assert run.unbindable and not replays


def test_a_view_of_an_outside_value_read_after_the_run_keeps_that_value_alive(lib, driver, monkeypatch, replays):
    """a = TANH(x) lies in a buffer of the plan's pool; the run views it (RESHAPE) and is its last
    reader, and the view is read after the run: the pool must not lend a's buffer to the next TANH
    while the view lives (found on ConvBERT: its attention's reshapes)."""
    gen = torch.Generator().manual_seed(6)
    weights = [torch.randn(16, 1, 1, 16, generator=gen) * 0.3 for _ in range(2)]

    def model(runs: str) -> int:
        monkeypatch.setenv(native_runs.VARIABLE, runs)
        m = Model(lib)
        x, a, c, d, e = (m.tensor([1, 24, 24, 16]) for _ in range(5))
        y, f, out = (m.tensor([1, 9216]) for _ in range(3))
        shape = m.const(torch.tensor([1, 9216], dtype=torch.int32))
        m.op("TANH", [x], [a])
        m.op("RESHAPE", [a, shape], [y])
        for inp, w, res in ((a, weights[0], c), (c, weights[1], d)):
            m.op("CONV_2D", [inp, m.const(w), m.const(torch.zeros(16)), m.i32(0), m.i32(0), m.i32(0), m.i32(0),
                             m.i32(1), m.i32(1), m.i32(0)], [res])
        m.op("TANH", [d], [e])
        m.op("RESHAPE", [e, shape], [f])
        m.op("ADD", [y, f, m.i32(0)], [out])
        m.io([x], [out])
        m.finish()
        return m.compile().value

    compiled = {runs: model(runs) for runs in ("0", "1")}
    plan = driver.lookup(compiled["1"], Compilation, "compilation").plan
    [run] = [u for u in plan.units if isinstance(u, native_runs.NativeRun)]
    assert [st.op.name for st in run.steps] == ["RESHAPE", "CONV_2D", "CONV_2D"]
    for _ in range(3):
        x = torch.randn(1, 24, 24, 16, generator=gen)
        got, want = torch.zeros(1, 9216), torch.zeros(1, 9216)
        for runs, out in (("0", want), ("1", got)):
            ex = Execution(lib, compiled[runs])
            ex.set_input(0, x)
            ex.set_output(0, out)
            assert ex.compute() == 0
        assert torch.equal(got, want)
    assert not run.unbindable and len(replays) == 2
