"""The accuracy criteria CTS applies to generated tests, as AOSP's ``TestHarness.cpp`` states them.

Per output element: |actual - expected| <= atol + rtol * |expected|, with
- float32: atol 1e-5, rtol 5 ULP of float32 (5 * 2^-23); when the model is relaxed or holds any
  TENSOR_FLOAT16 operand, float32 takes float16's criterion;
- float16: atol = rtol = 5 ULP of float16 (5 * 2^-10);
- int32, quant8 (asymm, signed, symm), quant16: atol 1 (quant8: 3 for the tests named
  "mobilenet"); bool8: no mismatch.
The bias and MSE criteria are at their maximum for generated tests (not enforced), so only the
element-wise bound is checked. RANDOM_MULTINOMIAL's output is checked as a distribution: each
class's frequency within the spec's tolerance of its softmax probability.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from spec_cases import Case

FLOAT32 = (1e-5, 5.0 * 1.1920928955078125e-7)
FLOAT16 = (5.0 * 0.0009765625, 5.0 * 0.0009765625)
INTEGER_TYPES = ("TENSOR_INT32", "INT32", "TENSOR_QUANT16_ASYMM", "TENSOR_QUANT16_SYMM")
QUANT8_TYPES = ("TENSOR_QUANT8_ASYMM", "TENSOR_QUANT8_ASYMM_SIGNED", "TENSOR_QUANT8_SYMM")


def _criterion(case: Case, type_name: str) -> tuple[float, float]:
    """(atol, rtol) for an output of ``type_name`` in ``case``."""
    if type_name == "TENSOR_FLOAT16":
        return FLOAT16
    if type_name == "TENSOR_FLOAT32":
        has_f16 = any(o.type_name == "TENSOR_FLOAT16" for g in (case.main, *case.referenced) for o in g.operands)
        return FLOAT16 if case.relaxed or has_f16 else FLOAT32
    if type_name in QUANT8_TYPES:
        return (3.0 if "mobilenet" in case.name else 1.0, 0.0)
    if type_name in INTEGER_TYPES:
        return (1.0, 0.0)
    raise ValueError(f"no criterion for outputs of type {type_name}")


def check_outputs(case: Case, outputs: list[np.ndarray]) -> Optional[str]:
    """None when every compared output meets CTS's criterion, else what differs (first output)."""
    if case.multinomial_tolerance > 0:
        return _check_multinomial(case, outputs[0])
    for j, index in enumerate(case.main.outputs):
        o = case.main.operands[index]
        if o.ignored:
            continue
        actual = outputs[j][:o.data.size]
        if o.type_name in ("TENSOR_BOOL8", "BOOL"):
            bad = np.flatnonzero((actual != 0) != (o.data != 0))
            if bad.size:
                return f"output {j}: {bad.size} of {o.data.size} booleans differ (first at {bad[0]})"
            continue
        atol, rtol = _criterion(case, o.type_name)
        expected = o.data.astype(np.float64)
        got = actual.astype(np.float64)
        if np.isnan(got).any():
            return f"output {j}: NaN at element {int(np.flatnonzero(np.isnan(got))[0])}"
        err = np.abs(got - expected)
        bad = np.flatnonzero(err > atol + rtol * np.abs(expected))
        if bad.size:
            k = int(bad[0])
            return (f"output {j}: {bad.size} of {o.data.size} elements outside the tolerance; element {k}: "
                    f"got {got[k]!r}, expected {expected[k]!r} (atol {atol:g}, rtol {rtol:g})")
    return None


def _check_multinomial(case: Case, samples: np.ndarray) -> Optional[str]:
    inp = case.main.operands[case.main.inputs[0]]
    out = case.main.operands[case.main.outputs[0]]
    batches, classes = inp.dims
    draws = out.dims[1]
    logits = inp.data.astype(np.float32).reshape(batches, classes)
    samples = samples[:batches * draws].reshape(batches, draws)
    if samples.min() < 0 or samples.max() >= classes:
        return f"samples outside the {classes} classes: {samples.min()}..{samples.max()}"
    for b in range(batches):
        # TestHarness.cpp reads the logits of row "kBatchSize * b" (row b for its one-batch tests).
        row = logits[batches * b] if batches * b < batches else logits[b]
        probs = np.exp(row) / np.exp(row).sum()
        counts = np.bincount(samples[b], minlength=classes)[:classes] / draws
        worst = np.abs(counts - probs).max()
        if worst > case.multinomial_tolerance:
            return f"batch {b}: class frequencies {counts} differ from {probs} by {worst:.3g}"
    return None
