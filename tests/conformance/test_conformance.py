"""Android's own NNAPI conformance tests (AOSP android11-release, specs V1_0-V1_3) on the host
driver: every case of every spec file, under every CTS instantiation the driver has the
feature for (variants.py), with TestHarness.cpp's tolerances (tolerances.py)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from cts_runner import Mode, run_case, declare_extra_signatures
from operation_validation import add_operation, check as validation_check, signatures
from run_conformance import run
from spec_cases import iter_spec, spec_names
from variants import INSTANTIATIONS, to_signed

SPECS = spec_names()
# One pytest-xdist worker runs the specs and the tests that read them all (here and in
# tests/host_driver/test_quantized_fast_path.py): each spec goes through the DSL at most once per
# run (~50 s of parsing in all; none when load_cases' on-disk cache holds these specs), not once per
# worker and again for the census of every case.
pytestmark = pytest.mark.xdist_group("aosp_specs")


@pytest.mark.parametrize("spec", SPECS)
def test_every_case_of_the_spec_passes_and_its_operations_validate_as_androids(lib, driver, spec):
    """Every case under every CTS instantiation; then AOSP's operation validation procedure
    (operation_validation.py) on each operand signature of the spec's one-operation cases."""
    cases = list(iter_spec(spec))
    assert cases, f"{spec} defines no case"
    results = run(cases, instantiations=list(INSTANTIATIONS), lib=lib)
    failed = [f"{name}: {r.status}: {r.message}" for name, r in results.items() if not r.passed]
    failed += [problem for sig in signatures(cases) for problem in validation_check(lib, sig)]
    assert not failed, f"{len(failed)} failures in {len(results)} cases:\n" + "\n".join(failed[:20])


def test_the_specs_define_the_cases_android_counts():
    """597 spec files (598 in AOSP, less the unreadable V1_0/mobilenet_quantized); 3,803 cases, 8,857 with the lifetime variations (the DSL's own expansion)."""
    assert len(SPECS) == 597
    cases = [c for spec in SPECS for c in iter_spec(spec)]
    assert len(cases) == 8857
    assert sum(1 for c in cases if not c.lifetime) == 3803
    assert sum(1 for c in cases if c.expect_failure) == 55


def test_the_cases_kept_on_disk_are_what_the_dsl_gives_now():
    """iter_spec reads load_cases' cache when it has one for these specs and this code: three specs
    (a convolution, its quantized variations, a control-flow model) go through the DSL again."""
    import pickle

    from spec_cases import AOSP, _cases_of_spec, _load_dsl

    for spec in ("V1_0/conv_float", "V1_3/transpose_conv2d_quant8_signed", "V1_3/while_fib"):
        fresh = _cases_of_spec(_load_dsl(), AOSP / "specs" / f"{spec}.mod.py")
        assert pickle.dumps(fresh) == pickle.dumps(list(iter_spec(spec))), spec


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


def test_the_validation_procedure_reports_what_a_lax_driver_accepts(lib, driver, monkeypatch):
    """On the real driver CONV_2D's signature validates, and its valid types are accepted with no
    value set; a driver accepting everything is reported for every mutation AOSP tries: each
    other type of each input and output, 1-5 extra inputs, 1-6 extra outputs."""
    import operation_validation

    declare_extra_signatures(lib)
    (sig,) = signatures([_conv_case()])
    assert sig.operation == "CONV_2D" and validation_check(lib, sig) == []
    assert add_operation(lib, "CONV_2D", sig.inputs, sig.outputs) == 0
    filter_as_int = [sig.inputs[0], sig.inputs[1].retyped(4), *sig.inputs[2:]]
    assert add_operation(lib, "CONV_2D", filter_as_int, sig.outputs) != 0
    monkeypatch.setattr(operation_validation, "add_operation", lambda *args: 0)
    problems = validation_check(lib, sig)
    codes = len(operation_validation.AVAILABLE_CODES) - 1
    # CONV_2D's 10-input form lets input 7 be INT32 or BOOL: that swap is not tried.
    expected = (len(sig.inputs) + len(sig.outputs)) * codes - (len(sig.inputs) == 10) + 5 + 6
    assert len(problems) == expected, problems[:5]
