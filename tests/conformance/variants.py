"""CTS's instantiations of the generated tests (AOSP TestGenerated.cpp), as filters and converters.

- GeneratedTests: every valid case, executed synchronously, then again after compiling twice
  with compilation caching (TestGenerated.cpp ``execute``); with NNTEST_COMPUTE_MODE also
  asynchronously and through a burst.
- GeneratedValidationTests: the cases expected to fail, less the infinite-loop timeout models,
  which run on their own (LoopTimeoutTest) as CTS's control-flow tests run them.
- DynamicOutputShapeTest: valid cases without scalar outputs, IF or WHILE, outputs declared
  with unknown dimensions.
- QuantizationCouplingTest: valid one-operation cases with a TENSOR_QUANT8_ASYMM operand (not of
  HASHTABLE_LOOKUP, LSH_PROJECTION, PAD_V2, CAST or QUANTIZED_16BIT_LSTM), run with every such
  operand turned into TENSOR_QUANT8_ASYMM_SIGNED (zero point and values shifted by -128): the
  signed model must give the same results.
- FencedComputeTest: valid cases whose outputs all hold data, executed with
  startComputeWithDependencies (no dependencies) and Event_wait.
- DeviceMemoryTest: valid cases whose outputs all hold data, every input and output bound to a
  memory made from a MemoryDesc of its role, filled and read back with Memory_copy.
"""

from __future__ import annotations

import copy
from typing import Callable

import numpy as np

from cts_runner import Mode
from spec_cases import Case

_NOT_COUPLED = {"HASHTABLE_LOOKUP", "LSH_PROJECTION", "PAD_V2", "CAST", "QUANTIZED_16BIT_LSTM"}


def has_scalar_outputs(case: Case) -> bool:
    """TestHarness.h hasScalarOutputs: RANK, IF or WHILE anywhere."""
    return any(name in ("RANK", "IF", "WHILE") for g in (case.main, *case.referenced) for name, _, _ in g.operations)


def is_infinite_loop_timeout_test(case: Case) -> bool:
    """TestHarness.h isInfiniteLoopTimeoutTest: while_infinite_loop's models, which CTS leaves to
    its control-flow tests (each waits out the 2 s loop timeout); the host driver's loop timeout
    is tested in tests/host_driver/test_host_driver_control_flow.py."""
    return case.expect_failure and case.main.operations[0][0] == "WHILE"


def has_quant8_coupled_operands(case: Case) -> bool:
    """TestHarness.h hasQuant8CoupledOperands."""
    return any(g.operands[i].type_name == "TENSOR_QUANT8_ASYMM"
               for g in (case.main, *case.referenced) for name, ins, outs in g.operations
               if name not in _NOT_COUPLED for i in (*ins, *outs))


def to_signed(case: Case) -> Case:
    """TestHarness.cpp convertQuant8AsymmOperandsToSigned."""
    out = copy.deepcopy(case)
    for g in (out.main, *out.referenced):
        for o in g.operands:
            if o.type_name == "TENSOR_QUANT8_ASYMM":
                o.type_name = "TENSOR_QUANT8_ASYMM_SIGNED"
                o.zero_point -= 128
                o.data = (o.data.astype(np.int32) - 128).astype(np.int8)
    return out


# name -> (which cases, how each is converted, how it is run)
INSTANTIATIONS: dict[str, tuple[Callable[[Case], bool], Callable[[Case], Case], Mode]] = {
    "GeneratedTests": (lambda c: not c.expect_failure, lambda c: c, Mode()),
    "GeneratedTests.CompilationCaching": (lambda c: not c.expect_failure, lambda c: c, Mode(caching=True)),
    "GeneratedTests.Async": (lambda c: not c.expect_failure, lambda c: c, Mode(compute="async")),
    "GeneratedTests.Burst": (lambda c: not c.expect_failure, lambda c: c, Mode(compute="burst")),
    "GeneratedValidationTests": (lambda c: c.expect_failure and not is_infinite_loop_timeout_test(c), lambda c: c,
                                 Mode()),
    # CTS runs while_infinite_loop's models in its control-flow tests: the execution must end at the
    # loop timeout (2 s by default) with an error.
    "LoopTimeoutTest": (is_infinite_loop_timeout_test, lambda c: c, Mode()),
    "DynamicOutputShapeTest": (lambda c: not c.expect_failure and not has_scalar_outputs(c), lambda c: c,
                               Mode(dynamic_outputs=True)),
    "FencedComputeTest": (lambda c: not c.expect_failure and all(c.main.operands[i].data.size for i in c.main.outputs),
                          lambda c: c, Mode(compute="fenced")),
    "DeviceMemoryTest": (lambda c: not c.expect_failure and all(c.main.operands[i].data.size for i in c.main.outputs),
                         lambda c: c, Mode(device_memory=True)),
    "QuantizationCouplingTest": (lambda c: not c.expect_failure and len(c.main.operations) == 1
                                 and not c.referenced and has_quant8_coupled_operands(c), to_signed, Mode()),
}
