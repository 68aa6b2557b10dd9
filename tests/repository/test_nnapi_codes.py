"""The NNAPI codes are defined twice on purpose: by the lowering (what it emits) and by the host
driver (the independent device it is tested against). Every name the two share must have the same
number, or a blob would mean one thing to the lowering and another to the device."""

from __future__ import annotations

import enum

import pytest

from executorch_nnapi.lowering import nnapi_codes
from executorch_nnapi.host_driver import driver, operand_types
from executorch_nnapi.host_driver.operations import OPERATION_NAMES, OPERATIONS, common


def _shared(lowering: dict[str, int], host: dict[str, int]) -> list[tuple[str, int, int]]:
    """(name, lowering value, driver value) for every name both define."""
    return [(name, lowering[name], host[name]) for name in sorted(lowering.keys() & host.keys())]


def _members(e: type[enum.Enum]) -> dict[str, int]:
    return {m.name: int(m.value) for m in e}


def _assert_same(lowering: dict[str, int], host: dict[str, int], what: str, min_shared: int) -> None:
    shared = _shared(lowering, host)
    # Guard against a rename that silently empties the comparison.
    assert len(shared) >= min_shared, f"only {len(shared)} {what} names in common"
    mismatched = [(name, a, b) for name, a, b in shared if a != b]
    assert not mismatched, f"{what} (name, lowering, driver): {mismatched}"


def test_operand_codes_agree():
    _assert_same(_members(nnapi_codes.OperandCode), {n: c for c, n in operand_types.NAMES.items()},
                 "OperandCode", len(nnapi_codes.OperandCode))


def test_operation_codes_agree():
    _assert_same(_members(nnapi_codes.OperationCode), {n: c for c, n in OPERATION_NAMES.items()},
                 "OperationCode", len(nnapi_codes.OperationCode))


def test_every_driver_operation_exists_from_the_lowerings_feature_level():
    """OPERATION_SINCE (lowering) and each driver operation's SINCE come from the opcode table."""
    since = {code.name: int(level) for code, level in nnapi_codes.OPERATION_SINCE.items()}
    _assert_same(since, {op.NAME: op.SINCE for op in OPERATIONS.values()}, "operation SINCE", len(OPERATIONS))


def test_operand_type_feature_levels_agree():
    # The lowering has no table of type levels; TENSOR_BOOL8 and BOOL are the ones it relies on.
    assert operand_types.SINCE[nnapi_codes.OperandCode.TENSOR_BOOL8] == nnapi_codes.FeatureLevel.ANDROID_10
    assert operand_types.SINCE[nnapi_codes.OperandCode.BOOL] == nnapi_codes.FeatureLevel.ANDROID_10


def test_element_sizes_agree():
    host = {operand_types.NAMES[c]: size for c, size in operand_types.ELEMENT_SIZE.items()}
    _assert_same({c.name: n for c, n in nnapi_codes.ELEMENT_BYTES.items()}, host, "element size",
                 len(nnapi_codes.ELEMENT_BYTES))


def test_scalar_types_agree():
    assert {int(c) for c in nnapi_codes.SCALAR_CODES} == set(operand_types.SCALARS)


def test_fuse_and_padding_codes_agree():
    host_fuse = {"NONE": common.FUSE_NONE, "RELU": common.FUSE_RELU, "RELU1": common.FUSE_RELU1,
                 "RELU6": common.FUSE_RELU6}
    _assert_same(_members(nnapi_codes.FuseCode), host_fuse, "FuseCode", 4)
    _assert_same(_members(nnapi_codes.PaddingCode), {"SAME": common.PADDING_SAME, "VALID": common.PADDING_VALID},
                 "PaddingCode", 2)


def test_feature_levels_agree():
    assert sorted(int(level) for level in nnapi_codes.FeatureLevel) == sorted(driver.FEATURE_LEVELS)
    assert common.FL6 == nnapi_codes.FeatureLevel.FEATURE_LEVEL_6
    assert common.FL7 == nnapi_codes.FeatureLevel.FEATURE_LEVEL_7
    assert common.FL8 == nnapi_codes.FeatureLevel.FEATURE_LEVEL_8


def test_api_levels_map_to_the_same_feature_levels():
    """feature_level=34 (lowering) and EXECUTORCH_NNAPI_HOST_FEATURE_LEVEL=34 (driver) mean one level."""
    for api in range(27, 36):
        assert int(nnapi_codes.FeatureLevel.parse(api)) == driver.resolve_feature_level(api), api


@pytest.mark.parametrize("lowering, host", [({"A": 1, "B": 2}, {"A": 1, "B": 3})])
def test_a_mismatch_is_reported(lowering, host):
    with pytest.raises(AssertionError, match=r"\('B', 2, 3\)"):
        _assert_same(lowering, host, "test", 1)
