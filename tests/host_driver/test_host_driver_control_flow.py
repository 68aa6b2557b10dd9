"""IF and WHILE on the host driver: referenced models (setOperandValueFromModel), the operand
lists of both operations, WHILE's loop timeout and outputs whose shape is known only after the
loop, driven through the NNAPI C API as a C program would."""

from __future__ import annotations

import pytest
import torch

from nnapi_client import BAD_DATA, NO_ERROR, TB8, TF32, TI32, Execution, Model, last_error

MISSED_DEADLINE_TRANSIENT = 10


def _branch(lib, op: str, shape=(2, 3)) -> Model:
    """A finished model computing ``op(x, y)`` on two [2, 3] tensors."""
    m = Model(lib)
    x, y, out = m.tensor(shape), m.tensor(shape), m.tensor(shape)
    m.op(op, [x, y, m.i32(0)], [out])
    m.io([x, y], [out])
    m.finish()
    return m


def _if_model(lib) -> Model:
    then_model, else_model = _branch(lib, "ADD"), _branch(lib, "SUB")
    m = Model(lib)
    cond, x, y, out = m.tensor([1], TB8), m.tensor([2, 3]), m.tensor([2, 3]), m.tensor([2, 3])
    m.op("IF", [cond, m.reference(then_model), m.reference(else_model), x, y], [out])
    m.io([cond, x, y], [out])
    return m


@pytest.mark.parametrize("taken", [True, False])
def test_if_runs_the_branch_its_condition_chooses(lib, driver, taken):
    m = _if_model(lib)
    x, y = torch.randn(2, 3), torch.randn(2, 3)
    (res,) = m.run([torch.tensor([taken]), x, y], [[2, 3]])
    torch.testing.assert_close(res, x + y if taken else x - y)


def test_if_branch_signature_must_match(lib, driver):
    then_model, narrow = _branch(lib, "ADD"), _branch(lib, "ADD", (3, 2))
    m = Model(lib)
    cond, x, y, out = m.tensor([1], TB8), m.tensor([2, 3]), m.tensor([2, 3]), m.tensor([2, 3])
    m.op("IF", [cond, m.reference(then_model), m.reference(narrow), x, y], [out])
    m.io([cond, x, y], [out])
    m.finish(expect=BAD_DATA)
    assert "input 0 of the else model is TENSOR_FLOAT32[3, 2]" in driver.last_error


def test_model_operand_rules(lib, driver):
    unfinished = Model(lib)
    a, b = unfinished.tensor([1]), unfinished.tensor([1])
    unfinished.op("ABS", [a], [b])
    unfinished.io([a], [b])
    m = Model(lib)
    m.reference(unfinished, expect=BAD_DATA)
    assert "must be finished first" in driver.last_error
    m.reference(m, expect=BAD_DATA)
    assert "cannot refer to itself" in driver.last_error
    # A MODEL operand without a referenced model is refused at finish.
    cond, x, out = m.tensor([1], TB8), m.tensor([1]), m.tensor([1])
    m.op("IF", [cond, 0, 1, x], [out])
    m.io([cond, x], [out])
    m.finish(expect=BAD_DATA)
    assert "setOperandValueFromModel was not called" in driver.last_error


def _counting_loop(lib, limit_input: bool = True) -> Model:
    """while i < n: i += 1; acc = acc * 2 (i, acc carried; n input-only). Outputs i and acc."""
    cond = Model(lib)
    i, acc, n, flag = cond.tensor([1], TI32), cond.tensor([2, 2]), cond.tensor([1], TI32), cond.tensor([1], TB8)
    cond.op("LESS", [i, n], [flag])
    cond.io([i, acc, n], [flag])
    cond.finish()
    body = Model(lib)
    i, acc, n = body.tensor([1], TI32), body.tensor([2, 2]), body.tensor([1], TI32)
    i2, acc2 = body.tensor([1], TI32), body.tensor([2, 2])
    body.op("ADD", [i, body.const(torch.tensor([1], dtype=torch.int32)), body.i32(0)], [i2])
    body.op("ADD", [acc, acc, body.i32(0)], [acc2])
    body.io([i, acc, n], [i2, acc2])
    body.finish()
    m = Model(lib)
    i, acc, n = m.tensor([1], TI32), m.tensor([2, 2]), m.tensor([1], TI32)
    i_out, acc_out = m.tensor([1], TI32), m.tensor([0, 0])  # acc's shape known after the loop
    m.op("WHILE", [m.reference(cond), m.reference(body), i, acc, n], [i_out, acc_out])
    m.io([i, acc, n], [i_out, acc_out])
    return m


@pytest.mark.parametrize("trips", [0, 1, 5])
def test_while_carries_integer_and_tensor_values(lib, driver, trips):
    m = _counting_loop(lib)
    m.finish()
    ex = Execution(lib, m.compile())
    acc = torch.randn(2, 2)
    ex.set_input(0, torch.tensor([0], dtype=torch.int32))
    ex.set_input(1, acc)
    ex.set_input(2, torch.tensor([trips], dtype=torch.int32))
    i_out, acc_out = torch.zeros(1, dtype=torch.int32), torch.zeros(2, 2)
    ex.set_output(0, i_out)
    ex.set_output(1, acc_out)
    assert ex.compute() == NO_ERROR, last_error(lib)
    assert int(i_out) == trips
    torch.testing.assert_close(acc_out, acc * 2 ** trips)


def test_while_stops_at_the_loop_timeout(lib, driver):
    m = _counting_loop(lib)
    m.finish()
    ex = Execution(lib, m.compile())
    assert lib.ANeuralNetworksExecution_setLoopTimeout(ex.handle, 1_000_000) == NO_ERROR  # 1 ms
    ex.set_input(0, torch.tensor([0], dtype=torch.int32))
    ex.set_input(1, torch.zeros(2, 2))
    ex.set_input(2, torch.tensor([2**31 - 1], dtype=torch.int32))
    ex.set_output(0, torch.zeros(1, dtype=torch.int32))
    ex.set_output(1, torch.zeros(2, 2))
    assert ex.compute() == MISSED_DEADLINE_TRANSIENT
    assert "loop timeout (1000000 ns" in driver.last_error


def test_while_body_must_return_the_outputs(lib, driver):
    cond = Model(lib)
    x, flag = cond.tensor([1]), cond.tensor([1], TB8)
    cond.op("GREATER", [x, cond.const(torch.zeros(1))], [flag])
    cond.io([x], [flag])
    cond.finish()
    body = Model(lib)
    x, y = body.tensor([1]), body.tensor([1], TI32)
    body.op("CAST", [x], [y])
    body.io([x], [y])
    body.finish()
    m = Model(lib)
    x, out = m.tensor([1]), m.tensor([1])
    m.op("WHILE", [m.reference(cond), m.reference(body), x], [out])
    m.io([x], [out])
    m.finish(expect=BAD_DATA)
    assert "output 0 of the body model is TENSOR_INT32[1]" in driver.last_error
