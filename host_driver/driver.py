"""The host NNAPI driver: handles, the device, memories, counters and the last error message."""

from __future__ import annotations

import ctypes
import json
import logging
import os
import threading
from typing import Any, Optional, Sequence, TypeVar

from .errors import BAD_DATA, UNMAPPABLE, DriverError, bad_data, feature_level_name, unexpected_null

logger = logging.getLogger("executorch_nnapi.host_driver")

FEATURE_LEVELS = (27, 28, 29, 30, 31, 1000006, 1000007, 1000008)
# Android API levels above 30 -> the feature level their NNAPI runtime reports at the least:
# 32 (Android 12L) added nothing; from Android 13 the NNAPI module reports level 8 (AOSP's
# runtime/ServerFlag.h: minimum and default feature level 8). docs/feature_levels.md.
API_LEVEL_FEATURE_LEVELS = {32: 31, 33: 1000008, 34: 1000008, 35: 1000008}


def resolve_feature_level(level: int) -> int:
    """A FeatureLevelCode, or an Android API level (32..35) mapped to the level its NNAPI reports."""
    level = API_LEVEL_FEATURE_LEVELS.get(int(level), int(level))
    if level not in FEATURE_LEVELS:
        raise ValueError(f"feature level must be one of {FEATURE_LEVELS} or an Android API level 32..35, "
                         f"got {level}")
    return level

DEVICE_NAME = "executorch-nnapi-host-cpu"
DEVICE_VERSION = "1.0"
DEVICE_TYPE_CPU = 2
# DeviceTypeCode, by the names the backend's accelerator_type option uses.
DEVICE_TYPES = {"other": 1, "cpu": 2, "gpu": 3, "accelerator": 4}
DEFAULT_DEVICES: tuple[tuple[str, str], ...] = ((DEVICE_NAME, "cpu"),)

PROT_READ, PROT_WRITE = 0x1, 0x2
_MAP_SHARED = 0x01
_MAP_FAILED = ctypes.c_void_p(-1).value

T = TypeVar("T")


class Device:
    """One device the driver presents. Every device computes on the host CPU; more than one
    exists so that device selection (createForDevices) can be exercised."""

    def __init__(self, driver: "HostDriver", name: str = DEVICE_NAME, type_name: str = "cpu") -> None:
        if type_name not in DEVICE_TYPES:
            raise ValueError(f"device type must be one of {', '.join(DEVICE_TYPES)}; got {type_name!r}")
        self.driver = driver
        self.type_name = type_name
        self.type = DEVICE_TYPES[type_name]
        # C strings handed out by getName/getVersion must stay valid for the process.
        self.name = ctypes.create_string_buffer(name.encode())
        self.version = ctypes.create_string_buffer(DEVICE_VERSION.encode())

    @property
    def name_str(self) -> str:
        return self.name.value.decode()


def parse_devices(spec: str) -> tuple[tuple[str, str], ...]:
    """``"nnapi-reference:cpu,host-gpu:gpu"`` -> ((name, type), ...) ($EXECUTORCH_NNAPI_HOST_DEVICES)."""
    devices = []
    for item in spec.split(","):
        name, sep, type_name = item.strip().rpartition(":")
        if not sep or not name or type_name not in DEVICE_TYPES:
            raise ValueError(f"device {item!r} must be NAME:TYPE with TYPE one of {', '.join(DEVICE_TYPES)}")
        devices.append((name, type_name))
    return tuple(devices)


class Memory:
    """A file descriptor mapped with mmap (Memory_createFromFd); unmapped when no longer referenced."""

    _libc: Any = None
    # Device memory (device_memory.py) sets these: the roles it was made for, and whether it holds data yet.
    roles: Optional[frozenset] = None
    initialized = True

    def __init__(self, size: int, protect: int, fd: int, offset: int) -> None:
        self.address = 0
        if protect & ~(PROT_READ | PROT_WRITE):
            raise bad_data(f"protect {protect:#x} must be PROT_NONE or a combination of PROT_READ and PROT_WRITE")
        page = os.sysconf("SC_PAGE_SIZE")
        if offset % page:
            raise bad_data(f"offset {offset} is not a multiple of the page size {page}")
        if size == 0:
            raise bad_data("size must be > 0")
        try:
            file_size = os.fstat(fd).st_size
        except OSError as e:
            raise bad_data(f"fd {fd} is not usable: {e}") from None
        if offset + size > file_size:
            raise bad_data(f"offset {offset} + size {size} exceeds the file size {file_size}")
        libc = Memory._libc
        if libc is None:
            libc = Memory._libc = ctypes.CDLL(None, use_errno=True)
            libc.mmap.restype = ctypes.c_void_p
            libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                  ctypes.c_long)
            libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
        # The mapping keeps the file alive after the caller closes fd (NNAPI dups it).
        address = libc.mmap(None, size, protect, _MAP_SHARED, fd, offset)
        if address is None or address == _MAP_FAILED:
            raise DriverError(UNMAPPABLE, f"mmap of fd {fd} failed: {os.strerror(ctypes.get_errno())}")
        self.address, self.size, self.protect = address, size, protect

    def check_range(self, offset: int, length: int, where: str) -> None:
        if offset + length > self.size:
            raise bad_data(f"{where}: offset {offset} + length {length} exceeds the memory's size {self.size}")

    def check_access(self, is_input: bool, where: str) -> None:
        need = PROT_READ if is_input else PROT_WRITE
        if not self.protect & need:
            raise bad_data(f"{where}: the memory was not mapped with {'PROT_READ' if is_input else 'PROT_WRITE'}")

    def __del__(self) -> None:
        if self.address and Memory._libc is not None:
            Memory._libc.munmap(self.address, self.size)
            self.address = 0


class HostDriver:
    """A strict NNAPI device implemented in Python on torch kernels.

    Attributes:
        feature_level: the NNAPI feature level the driver behaves as (27..31, 1000006..1000008;
            setting an Android API level 32..35 sets the level its NNAPI reports). Models record
            the level at Model_create.
        last_error: the message of the last failed call ("" after a successful one).
        models_finished, compilations_finished, executions_computed: counters of successful
            Model_finish / Compilation_finish calls and of computations run.
        calls: what reached the driver of the runtime options (preference, priority, caching,
            devices, timeouts, fp16 relaxation, bursts): one dict per call, {"call": name, ...}.
            With $EXECUTORCH_NNAPI_HOST_DRIVER_LOG set, each is also appended to that file as a
            JSON line, so a process that embeds the driver (the runner) can be checked from outside.
        devices: the devices presented (see set_devices).
    """

    def __init__(self, feature_level: int = 30, devices: Sequence[tuple[str, str]] = DEFAULT_DEVICES) -> None:
        self._level = 0
        self.feature_level = feature_level
        self.last_error = ""
        self.models_finished = 0
        self.compilations_finished = 0
        self.executions_computed = 0
        self.lock = threading.RLock()
        self._objects: dict[int, Any] = {}
        self._next_handle = 0x10000
        self.calls: list[dict[str, Any]] = []
        self.devices: list[Device] = []
        self.device_handles: list[int] = []
        self.set_devices(devices)

    @property
    def feature_level(self) -> int:
        return self._level

    @feature_level.setter
    def feature_level(self, level: int) -> None:
        self._level = resolve_feature_level(level)

    def set_devices(self, devices: Sequence[tuple[str, str]]) -> None:
        """Present these (name, type) devices from now on; earlier device handles stay valid."""
        if not devices:
            raise ValueError("the driver needs at least one device")
        self.devices = [Device(self, name, type_name) for name, type_name in devices]
        self.device_handles = [self.new_handle(d) for d in self.devices]

    def record_call(self, call: str, **args: Any) -> None:
        """Remember that a runtime-option call reached the driver (see ``calls``)."""
        entry = {"call": call, **args}
        self.calls.append(entry)
        path = os.environ.get("EXECUTORCH_NNAPI_HOST_DRIVER_LOG")
        if path:
            with open(path, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")

    def reset_counters(self) -> None:
        """Zero models_finished, compilations_finished and executions_computed."""
        self.models_finished = self.compilations_finished = self.executions_computed = 0

    # -- handles: the opaque pointers handed to C are these integers -----------------------------------
    def new_handle(self, obj: Any) -> int:
        handle = self._next_handle
        self._next_handle += 16
        self._objects[handle] = obj
        return handle

    def lookup(self, handle: Optional[int], cls: type[T], what: str) -> T:
        if not handle:
            raise unexpected_null(what)
        obj = self._objects.get(handle)
        if not isinstance(obj, cls):
            raise DriverError(BAD_DATA, f"{what} {handle:#x} is not a live {cls.__name__} handle")
        return obj

    def release(self, handle: Optional[int], cls: type) -> None:
        """Forget a handle (the *_free functions); NULL and unknown handles are ignored."""
        if handle and isinstance(self._objects.get(handle), cls):
            del self._objects[handle]

    def live_handles(self) -> int:
        """Number of live objects besides the devices (tests use it to find leaks)."""
        return sum(1 for obj in self._objects.values() if not isinstance(obj, Device))

    # -- errors ------------------------------------------------------------------------------------
    def record(self, function: str, error: DriverError) -> int:
        self.last_error = f"{function}: {error.message}"
        logger.debug("%s -> %s", function, error)
        return error.code

    def level_name(self) -> str:
        return feature_level_name(self._level)
