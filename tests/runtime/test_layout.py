"""The copies at the delegate boundary (runtime/src/layout.cpp's permute_copy: NCHW <-> NHWC and
every other dim-order change) against a per-element reference, built with ASan + UBSan
(runtime/checks/layout_check.cpp): 4,000 random shapes of rank 0-5 with extents of 1 (the copy
drops and merges dims), empty tensors, elements of 1, 2, 3, 4 and 8 bytes, aligned and not."""

from __future__ import annotations

import pytest

from runtime_checks import run_sanitized, sanitizer_build

pytestmark = pytest.mark.xdist_group("runtime_checks")


def test_permute_copy_equals_the_per_element_copy():
    build = sanitizer_build("address")
    result = run_sanitized([build / "runtime" / "checks" / "nnapi_layout_check"], build, timeout=120)
    assert result.stdout.strip() == "ok", result.stdout + result.stderr[-3000:]
