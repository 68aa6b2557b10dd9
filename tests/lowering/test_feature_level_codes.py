"""feature_level as users give it: Android API levels 27..35, feature-level numbers 1..8, the
FeatureLevelCodes, member names; what each names, how it is labelled, and the refusals."""

from __future__ import annotations

import pytest

from executorch_nnapi.lowering.compile_specs import NnapiCompileOptions
from executorch_nnapi.lowering.nnapi_codes import FeatureLevel
from executorch_nnapi.partitioners import NnapiPartitioner

FL5, FL6, FL7, FL8 = FeatureLevel.ANDROID_12, FeatureLevel.FEATURE_LEVEL_6, FeatureLevel.FEATURE_LEVEL_7, \
    FeatureLevel.FEATURE_LEVEL_8


@pytest.mark.parametrize("given, level", [
    (27, FeatureLevel.ANDROID_8_1), (30, FeatureLevel.ANDROID_11), (31, FL5),
    (32, FL5),                                   # Android 12L: no new NNAPI level
    (33, FL8), (34, FL8), (35, FL8),             # Android 13+: the NNAPI runtime reports level 8
    (5, FL5), (6, FL6), (7, FL7), (8, FL8),      # feature-level numbers
    (1000006, FL6), (1000007, FL7), (1000008, FL8),
    ("34", FL8), ("API 33", FL8), ("FEATURE_LEVEL_7", FL7), ("android_11", FeatureLevel.ANDROID_11),
])
def test_parse_accepts_api_levels_numbers_and_codes(given, level) -> None:
    assert FeatureLevel.parse(given) is level


@pytest.mark.parametrize("given", [26, 36, 9, 1000009, "S"])
def test_parse_refuses_unknown_levels_saying_what_is_accepted(given) -> None:
    with pytest.raises(ValueError, match=r"unknown NNAPI feature level .*use an Android API level 27\.\.35, a "
                                         r"feature level 1\.\.8, or a FeatureLevelCode \(27\.\.31, 1000006\.\.1000008\)"):
        FeatureLevel.parse(given)


def test_labels_name_the_android_release_where_there_is_one() -> None:
    assert FeatureLevel.ANDROID_12.label == "API 31 (Android 12)"
    assert FL7.label == "NNAPI feature level 7"
    assert FL8.label == "NNAPI feature level 8 (Android 13+)"
    assert [lv.short_label for lv in FeatureLevel][-4:] == ["API 31", "FL 6", "FL 7", "FL 8"]


def test_the_partitioner_and_compile_spec_carry_the_feature_level_code() -> None:
    assert NnapiPartitioner(feature_level=34).feature_level is FL8
    specs = {s.key: bytes(s.value) for s in NnapiCompileOptions(feature_level=33).to_compile_specs()}
    assert int.from_bytes(specs["feature_level"], "little", signed=True) == 1000008
