"""Android's own NNAPI conformance tests (AOSP android11-release, specs V1_0-V1_3) on the host
driver: every case of every spec file, under every CTS instantiation the driver has the
feature for (variants.py), with TestHarness.cpp's tolerances (tolerances.py)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from cts_runner import Mode, run_case, declare_extra_signatures
from run_conformance import run
from spec_cases import iter_spec, spec_files
from variants import INSTANTIATIONS, to_signed

SPECS = [f"{p.parent.name}/{p.name.removesuffix('.mod.py')}" for p in spec_files()]


@pytest.mark.parametrize("spec", SPECS)
def test_every_case_of_the_spec_passes(lib, driver, spec):
    cases = list(iter_spec(spec))
    assert cases, f"{spec} defines no case"
    results = run(cases, instantiations=list(INSTANTIATIONS), lib=lib)
    failed = [f"{name}: {r.status}: {r.message}" for name, r in results.items() if not r.passed]
    assert not failed, f"{len(failed)} of {len(results)} cases failed:\n" + "\n".join(failed[:20])


def test_the_specs_define_the_cases_android_counts():
    """597 spec files (598 in AOSP, less the unreadable V1_0/mobilenet_quantized); 3,803 cases, 8,857 with the lifetime variations (the DSL's own expansion)."""
    assert len(SPECS) == 597
    cases = [c for spec in SPECS for c in iter_spec(spec)]
    assert len(cases) == 8857
    assert sum(1 for c in cases if not c.lifetime) == 3803
    assert sum(1 for c in cases if c.expect_failure) == 55


def _conv_case():
    return next(c for c in iter_spec("V1_0/conv_float") if not c.lifetime)


def test_a_result_outside_the_tolerance_fails(lib, driver):
    declare_extra_signatures(lib)
    case = _conv_case()
    assert run_case(lib, case).passed
    out = case.main.operands[case.main.outputs[0]]
    # float32: atol 1e-5 + 5 ULP relative; 2e-5 off is outside, 5e-6 inside.
    for delta, passes in ((2e-5, False), (5e-6, True)):
        wrong = copy.deepcopy(case)
        wrong.main.operands[wrong.main.outputs[0]].data = out.data + np.float32(delta)
        outcome = run_case(lib, wrong)
        assert outcome.passed is passes, outcome.message
        if not passes:
            assert outcome.status == "wrong_result" and "outside the tolerance" in outcome.message


def test_a_model_expected_to_fail_that_runs_is_a_failure(lib, driver):
    declare_extra_signatures(lib)
    valid = copy.deepcopy(_conv_case())
    valid.expect_failure = True
    outcome = run_case(lib, valid)
    assert not outcome.passed and outcome.status == "accepted_invalid"


def test_dynamic_output_shapes_and_coupled_signed_quantization(lib, driver):
    declare_extra_signatures(lib)
    case = next(c for c in iter_spec("V1_0/add_quant8") if not c.lifetime)
    signed = to_signed(case)
    assert {o.type_name for o in signed.main.operands if o.is_tensor} == {"TENSOR_QUANT8_ASYMM_SIGNED"}
    assert run_case(lib, signed).passed
    assert run_case(lib, case, Mode(dynamic_outputs=True)).passed
