"""Fixtures of the runtime's checks (tests/runtime_checks.py): the programs they run, exported
once per worker (their tests share one xdist group, so once per suite)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from runtime_checks import CheckProgram, make_program


@pytest.fixture(scope="session")
def check_program(tmp_path_factory) -> Callable[[str], CheckProgram]:
    """``check_program(name)``: program ``name`` of runtime_checks.PROGRAMS, exported on first use."""
    directory: Path = tmp_path_factory.mktemp("check_programs")
    return lambda name, seed=0: make_program(name, directory, seed)
