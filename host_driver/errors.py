"""NNAPI result codes and the exception the driver raises to return one."""

from __future__ import annotations

import traceback

NO_ERROR = 0
OUT_OF_MEMORY = 1
INCOMPLETE = 2
UNEXPECTED_NULL = 3
BAD_DATA = 4
OP_FAILED = 5
BAD_STATE = 6
UNMAPPABLE = 7
OUTPUT_INSUFFICIENT_SIZE = 8
UNAVAILABLE_DEVICE = 9
MISSED_DEADLINE_TRANSIENT = 10
MISSED_DEADLINE_PERSISTENT = 11
RESOURCE_EXHAUSTED_TRANSIENT = 12
RESOURCE_EXHAUSTED_PERSISTENT = 13
DEAD_OBJECT = 14

RESULT_NAMES = {
    NO_ERROR: "NO_ERROR",
    OUT_OF_MEMORY: "OUT_OF_MEMORY",
    INCOMPLETE: "INCOMPLETE",
    UNEXPECTED_NULL: "UNEXPECTED_NULL",
    BAD_DATA: "BAD_DATA",
    OP_FAILED: "OP_FAILED",
    BAD_STATE: "BAD_STATE",
    UNMAPPABLE: "UNMAPPABLE",
    OUTPUT_INSUFFICIENT_SIZE: "OUTPUT_INSUFFICIENT_SIZE",
    UNAVAILABLE_DEVICE: "UNAVAILABLE_DEVICE",
    MISSED_DEADLINE_TRANSIENT: "MISSED_DEADLINE_TRANSIENT",
    MISSED_DEADLINE_PERSISTENT: "MISSED_DEADLINE_PERSISTENT",
    RESOURCE_EXHAUSTED_TRANSIENT: "RESOURCE_EXHAUSTED_TRANSIENT",
    RESOURCE_EXHAUSTED_PERSISTENT: "RESOURCE_EXHAUSTED_PERSISTENT",
    DEAD_OBJECT: "DEAD_OBJECT",
}


class DriverError(Exception):
    """A failed NNAPI call: `code` is the ResultCode returned to C, `message` goes to last_error."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{RESULT_NAMES.get(self.code, self.code)}: {self.message}"


def bad_data(message: str) -> DriverError:
    return DriverError(BAD_DATA, message)


def bad_state(message: str) -> DriverError:
    return DriverError(BAD_STATE, message)


def unexpected_null(what: str) -> DriverError:
    return DriverError(UNEXPECTED_NULL, f"{what} is NULL")


def op_failed(message: str) -> DriverError:
    return DriverError(OP_FAILED, message)


def feature_level_name(level: int) -> str:
    """'29' for FL1..FL5 (== API level), 'FL6 (1000006)' after that."""
    if level > 1000000:
        return f"FL{level - 1000000} ({level})"
    return str(level)


def summarize_exception(e: BaseException, frames: int = 3) -> str:
    """'Type: message [at innermost (file:line) <- caller ...]' for last_error."""
    tb = traceback.extract_tb(e.__traceback__)[-frames:]
    where = " <- ".join(f"{f.name} ({f.filename.rsplit('/', 1)[-1]}:{f.lineno})" for f in reversed(tb))
    return f"{type(e).__name__}: {e}" + (f" [at {where}]" if where else "")
