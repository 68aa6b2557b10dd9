"""The compiled loops of the 8-bit path (host_driver/kernels/: nnapi_host_kernels.c, nnapi_host_gemm.c),
through ctypes.

``libnnapi_host_kernels.so`` is built with the package (host_driver/CMakeLists.txt) and installed
beside the host shim. Each function computes in one pass what a sequence of torch passes of the
prepared kernels computes (`_qfast`); without the library (a build without it, or
``EXECUTORCH_NNAPI_HOST_KERNELS=off``) the prepared kernels run those torch passes instead, with
the same results. ``EXECUTORCH_NNAPI_HOST_KERNELS`` may also name the library's path.

The loops split their items (blocks of rows, output rows) over a small thread pool
(nnapi_host_threads.c): ``EXECUTORCH_NNAPI_HOST_KERNEL_THREADS`` threads, by default the CPUs this
process may use, at most 4. Each item is computed the same way whichever thread takes it, so the
results do not depend on the count (unlike torch's, which the driver pins: determinism.py).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import logging
import os
import struct
import threading
from typing import Any, Callable, Iterator, Optional

import torch

logger = logging.getLogger("executorch_nnapi.host_driver")

LIBRARY_FILENAME = "libnnapi_host_kernels.so"
LIBRARY_VARIABLE = "EXECUTORCH_NNAPI_HOST_KERNELS"
THREADS_VARIABLE = "EXECUTORCH_NNAPI_HOST_KERNEL_THREADS"
DEFAULT_MAX_THREADS = 4
INTERFACE_VERSION = 10
# The activations the float convolutions apply as they write (nnapi_host_elementwise.h).
EPILOGUE_NONE, EPILOGUE_SILU, EPILOGUE_HARD_SWISH = 0, 1, 2
OFF = ("0", "off", "none", "no")
# The packed 8-bit products of nnapi_host_gemm.c, by the number it takes.
PRODUCTS = ("plain C", "AVX2", "AVX-512 VNNI")
# The requantization loops (nnapi_host_requantize.c), by nnapi_host_requantize_vector's answer.
REQUANTIZE_LOOPS = ("plain C", "AVX2", "AVX-512")
# The depthwise convolution's sums of nnapi_host_kernels.c, by the number it takes.
DEPTHWISE_SUMS = ("plain C", "AVX-512", "AVX-512 VNNI", "AVX2")
# The float loops of nnapi_host_float.c, by the number it takes.
FLOAT_LOOPS = ("plain C", "AVX-512", "AVX2")
FLOAT_CHUNK_ROWS = 48   # nnapi_host_float.c's CHUNK_ROWS: rows of unrolled taps per thread

_P, _I32, _I64, _F64 = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64, ctypes.c_double

# The kinds of a recorded call (nnapi_host_calls.c's CALL_*), by the function's name.
CALL_KINDS = {"nnapi_host_gemm_requantize": 1, "nnapi_host_depthwise": 2, "nnapi_host_table": 3,
              "nnapi_host_table_rows": 4, "nnapi_host_quantize": 5, "nnapi_host_mean_rows": 6,
              "nnapi_host_max_pool": 7, "nnapi_host_requantize": 8, "nnapi_host_float_gemm": 9,
              "nnapi_host_float_conv": 10, "nnapi_host_float_depthwise": 11, "nnapi_host_float_logistic": 12,
              "nnapi_host_float_silu": 13, "nnapi_host_float_mul": 14, "nnapi_host_linear_int8": 15,
              "nnapi_host_float_add": 16, "nnapi_host_float_mean": 17}


class RecordedCall:
    """One kernel call as nnapi_host_calls.c runs it again: ``row`` is its kind and arguments as
    int64 values (a float argument as the bits of a double); ``pointers`` the positions in it of
    addresses; ``keep`` the temporaries its addresses point into (scratch), which must live as
    long as the row."""

    __slots__ = ("row", "pointers", "keep")

    def __init__(self, fn: Any, args: tuple, keep: tuple) -> None:
        row = [CALL_KINDS[fn.__name__]]
        for t, v in zip(fn.argtypes, args):
            if t in (ctypes.c_float, _F64):
                row.append(struct.unpack("<q", struct.pack("<d", float(v)))[0])
            else:
                row.append(0 if v is None else int(v))
        self.row, self.keep = row, keep
        self.pointers = tuple(1 + j for j, t in enumerate(fn.argtypes) if t is _P)


class Recording:
    """The calls the kernels make on this thread inside `NativeKernels.recording`; ``complete``
    turns False when a kernel computed part of its result another way (torch), which a replay of
    the calls would not redo, or a call refused."""

    def __init__(self) -> None:
        self.calls: list[RecordedCall] = []
        self.complete = True


_recording = threading.local()


def _pointer(t: Optional[torch.Tensor]) -> Optional[int]:
    return None if t is None else t.data_ptr()


class NativeKernels:
    """The library's functions, with their C signatures. Every tensor passed must be contiguous
    (the callers check) and stay alive for the call."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self.lib = lib
        self._requantize = lib.nnapi_host_requantize
        self._requantize.argtypes = [_P, _I32, _I64, _I64, _I64, _I64, _P, _P, _P, _P, _I32, _I32, _I32, _I32, _P,
                                     _P]
        self._requantize.restype = None
        self._table = lib.nnapi_host_table
        self._table.argtypes = [_P, _P, _I64, _P, _I32, _P]
        self._table.restype = _I32
        self._table_rows = lib.nnapi_host_table_rows
        self._table_rows.argtypes = [_P, _I64, _I64, _P, _P, _I32, _P]
        self._table_rows.restype = _I32
        self._quantize = lib.nnapi_host_quantize
        self._quantize.argtypes = [_P, _I64, _F64, _I32, _I32, _I32, _P, _P]
        self._quantize.restype = None
        self._depthwise = lib.nnapi_host_depthwise
        self._depthwise.argtypes = [_P, _I32, _P, _P, _I32, _P, _P, _P, _P, _I32, _I32, _I32, _I32, _P, _P, _I32, _I32, _I64,
                                    _P]
        self._depthwise.restype = None
        self._mean_rows = lib.nnapi_host_mean_rows
        self._mean_rows.argtypes = [_P, _I32, _I64, _I64, _I64, _I32, _I32, _P, _P]
        self._mean_rows.restype = None
        self._gemm = lib.nnapi_host_gemm_requantize
        self._gemm.argtypes = [_P, _I32, _I64, _I64, _I64, _P, _I64, _I64, _P, _P, _P, _P, _I32, _I32, _I32, _I32, _P,
                               _I32, _I32, _P, _I32, _P, _P, _I32, _P]
        self._gemm.restype = None
        self._linear_int8 = lib.nnapi_host_linear_int8
        self._linear_int8.argtypes = [_P, _I64, _I64, _P, _I64, _P, _I64, _P, _I32, _P]
        self._linear_int8.restype = None
        self._gemm_vnni = lib.nnapi_host_gemm_vnni
        self._gemm_vnni.argtypes = []
        self._gemm_vnni.restype = _I32
        self._gemm_avx2 = lib.nnapi_host_gemm_avx2
        self._gemm_avx2.argtypes = []
        self._gemm_avx2.restype = _I32
        self._depthwise_avx512 = lib.nnapi_host_depthwise_avx512
        self._depthwise_avx512.argtypes = []
        self._depthwise_avx512.restype = _I32
        self._depthwise_avx2 = lib.nnapi_host_depthwise_avx2
        self._depthwise_avx2.argtypes = []
        self._depthwise_avx2.restype = _I32
        self._set_threads = lib.nnapi_host_set_threads
        self._set_threads.argtypes = [_I32]
        self._set_threads.restype = None
        self._threads = lib.nnapi_host_threads
        self._threads.argtypes = []
        self._threads.restype = _I32

    def _invoke(self, fn: Callable, *args: Any, keep: tuple = ()) -> Any:
        """Call ``fn`` with ``args``; inside `recording`, also note the call."""
        result = fn(*args)
        recording = getattr(_recording, "current", None)
        if recording is not None:
            if fn.restype is not None and result != 0:
                recording.complete = False
            recording.calls.append(RecordedCall(fn, args, keep))
        return result

    @staticmethod
    @contextlib.contextmanager
    def recording() -> Iterator[Recording]:
        """Note every kernel call this thread makes until the block ends (native_runs.py)."""
        recording = Recording()
        _recording.current = recording
        try:
            yield recording
        finally:
            _recording.current = None

    @staticmethod
    def recording_now() -> bool:
        """Whether this thread's kernel calls are being recorded (a native run's first execution)."""
        return getattr(_recording, "current", None) is not None

    @staticmethod
    def computed_otherwise() -> None:
        """A kernel computed (part of) a result without the library: a recording of it is incomplete."""
        recording = getattr(_recording, "current", None)
        if recording is not None:
            recording.complete = False

    @functools.cached_property
    def _run_calls(self):
        f = self.lib.nnapi_host_run_calls
        f.argtypes, f.restype = [_P, _I64, _P], _I64
        slots = self.lib.nnapi_host_call_slots
        slots.argtypes, slots.restype = [], _I32
        return f, int(slots())

    @property
    def call_slots(self) -> int:
        """The width of a row of `run_calls` (int64 values)."""
        return self._run_calls[1]

    def run_calls(self, rows: int, count: int, ns: Optional[int]) -> int:
        """Run ``count`` recorded rows at address ``rows`` ([count][call_slots] int64) in order,
        each one's nanoseconds into the int64 array at ``ns`` (or no timing when None); -1 when
        all ran, else the index of the first that refused."""
        return int(self._run_calls[0](rows, count, ns))

    def set_threads(self, count: int) -> None:
        """The pool's thread count from now on, the calling thread included (1: no pool)."""
        self._set_threads(count)

    @property
    def threads(self) -> int:
        """The pool's thread count: a kernel's per-thread scratch holds this many slots."""
        return int(self._threads())

    def gemm_requantize(self, a: torch.Tensor, packed: torch.Tensor, n: int, block_rows: int, repeat: int,
                        constants: tuple,
                        lo: int, hi: int, xor_mask: int, int32_clamp: bool, table: Optional[torch.Tensor],
                        product: str, out: torch.Tensor, beta: int = 0, unroll: Optional[torch.Tensor] = None,
                        pad_code: int = 0) -> None:
        """Codes of the product of 8-bit rows ``a`` [m, k] and the packed int8 weights (see
        nnapi_host_gemm.c; plus ``beta`` times each row's sum) into ``out`` [m, n], requantized
        as `requantize` does; ``product``: one of `products` (the plain C one, for tests). With
        ``unroll`` (int64 geometry, as `depthwise`'s) the rows are the unrolled taps of the NHWC
        convolution input ``a``, out-of-image taps reading ``pad_code`` (the zero point's code, as
        a byte)."""
        r, c, threshold, half = constants
        if unroll is None:
            m, k = a.shape
        else:
            g = unroll.tolist()
            m, k = g[0] * g[12] * g[13], g[3] * g[4] * g[5]
        slots = self.threads
        scratch = torch.empty(slots * block_rows * n, dtype=torch.int32)
        rows = None if unroll is None else torch.empty(slots * block_rows * k, dtype=torch.uint8)
        self._invoke(self._gemm, a.data_ptr(), a.dtype == torch.int8, m, k, n, packed.data_ptr(), block_rows, repeat,
                     r.data_ptr(), c.data_ptr(), _pointer(threshold), _pointer(half), lo, hi, xor_mask, int32_clamp,
                     _pointer(table), beta, PRODUCTS.index(product), scratch.data_ptr(), slots, _pointer(unroll),
                     _pointer(rows), pad_code & 0xFF, out.data_ptr(), keep=(scratch, rows))

    def linear_int8(self, x: torch.Tensor, q: torch.Tensor, scale: torch.Tensor, bias: Optional[torch.Tensor],
                    out: torch.Tensor, use_avx512: bool = True, repeat: int = 1) -> None:
        """``out`` [m, n] = scale · (``x`` [m, k] float32 @ int8 ``q`` [n, k]ᵀ) + ``bias`` (see
        nnapi_host_gemm.c); ``scale``: float32, one value or one per row of ``q``."""
        m, k = x.shape
        self._invoke(self._linear_int8, x.data_ptr(), m, k, q.data_ptr(), q.shape[0], scale.data_ptr(), scale.numel(),
                     _pointer(bias), use_avx512, out.data_ptr())

    @functools.cached_property
    def depthwise_sums(self) -> tuple[str, ...]:
        """The depthwise convolution's sums this machine runs (of `DEPTHWISE_SUMS`; an AVX-512 machine
        also runs the AVX2 ones, which the tests compare there too)."""
        has = (True, bool(self._depthwise_avx512()), bool(self._depthwise_avx512()) and self.vnni,
               bool(self._depthwise_avx2()))
        return tuple(name for name, there in zip(DEPTHWISE_SUMS, has) if there)

    @property
    def depthwise_vector(self) -> bool:
        """Whether this machine sums depthwise convolutions with vectors (AVX-512 or AVX2: faster
        than oneDNN's at every size measured; the plain loop only below SMALL_DEPTHWISE_PIXELS,
        _qconv.py)."""
        return len(self.depthwise_sums) > 1

    @functools.cached_property
    def vnni(self) -> bool:
        """Whether this machine runs the packed product with AVX-512 VNNI."""
        return bool(self._gemm_vnni())

    @functools.cached_property
    def products(self) -> tuple[str, ...]:
        """The packed 8-bit products this machine runs (of `PRODUCTS`), the fastest last."""
        return PRODUCTS[:3 if self.vnni else 2 if self._gemm_avx2() else 1]

    @property
    def vector_product(self) -> Optional[str]:
        """This machine's fastest packed 8-bit product, or None when it has only the plain C loop
        (slower than torch's kernels: the driver does not choose it)."""
        return self.products[-1] if len(self.products) > 1 else None

    def requantize(self, acc: torch.Tensor, outer: int, channels: int, inner: int, repeat: int,
                   constants: tuple, lo: int, hi: int, xor_mask: int, int32_clamp: bool, out: torch.Tensor,
                   table: Optional[torch.Tensor] = None) -> None:
        """Codes of float32 or int32 accumulators ``acc`` [outer, channels, inner] into ``out``
        (see the C source); ``constants`` = (r, c, threshold or None, half or None), float64;
        ``int32_clamp``: every value of the expression fits int32; ``table``: 256 8-bit codes the
        codes then become, or None."""
        r, c, threshold, half = constants
        self._invoke(self._requantize, acc.data_ptr(), acc.dtype == torch.int32, outer, channels, inner, repeat,
                     r.data_ptr(), c.data_ptr(), _pointer(threshold), _pointer(half), lo, hi, xor_mask, int32_clamp,
                     _pointer(table), out.data_ptr())

    def depthwise(self, x: torch.Tensor, geometry: torch.Tensor, weights: torch.Tensor, x_zp: int, constants: tuple,
                  lo: int, hi: int, xor_mask: int, int32_clamp: bool, table: Optional[torch.Tensor],
                  out: torch.Tensor, sums: Optional[str] = None, repeat: int = 1) -> None:
        """An NHWC depthwise convolution of 8-bit ``x`` with int16 ``weights`` [kh, kw, c] and its
        requantization (as `requantize`) into ``out``; ``geometry``: int64 [n, h, w, c, kh, kw,
        stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left, oh, ow]; ``sums``: one of
        `depthwise_sums` (None: the fastest; the VNNI sums only where the weights fit signed bytes;
        the same exact sums every way); ``constants`` hold ``repeat`` copies (rows of the vector
        paths are requantized as `requantize` with them)."""
        r, c, threshold, half = constants
        slots = self.threads
        acc = torch.empty(slots * int(geometry[13]) * int(weights.shape[-1]), dtype=torch.int32)
        self._invoke(self._depthwise, x.data_ptr(), x.dtype == torch.int8, geometry.data_ptr(), weights.data_ptr(),
                     x_zp, r.data_ptr(), c.data_ptr(), _pointer(threshold), _pointer(half), lo, hi, xor_mask,
                     int32_clamp, _pointer(table), acc.data_ptr(), slots,
                     DEPTHWISE_SUMS.index(sums or "AVX-512 VNNI"), repeat, out.data_ptr(), keep=(acc,))

    def mean_rows(self, x: torch.Tensor, batches: int, rows: int, channels: int, lo: int, hi: int,
                  out: torch.Tensor) -> None:
        """The reference's rounded mean of 8-bit ``x`` [batches, rows, channels] over its rows,
        clamped, into ``out`` [batches, channels] (rows·255 must fit int32)."""
        sums = torch.empty(channels, dtype=torch.int32)
        self._invoke(self._mean_rows, x.data_ptr(), x.dtype == torch.int8, batches, rows, channels, lo, hi,
                     sums.data_ptr(), out.data_ptr(), keep=(sums,))

    def table(self, a: torch.Tensor, b: Optional[torch.Tensor], table: torch.Tensor, out: torch.Tensor) -> bool:
        """out = table[a] or table[256·a + b] (8-bit codes, same shapes); False for an entry size
        the library does not handle (out is then untouched)."""
        return self._invoke(self._table, a.data_ptr(), _pointer(b), a.numel(), table.data_ptr(),
                            table.element_size(), out.data_ptr()) == 0

    def table_rows(self, x: torch.Tensor, key: torch.Tensor, table: torch.Tensor, out: torch.Tensor) -> bool:
        """out[r, k] = table[256·key[k] + x[r, k]] for 8-bit ``x`` [rows, channels] and ``key``
        [channels] (contiguous); False for an entry size the library does not handle."""
        channels = key.numel()
        return self._invoke(self._table_rows, x.data_ptr(), x.numel() // channels, channels, key.data_ptr(),
                            table.data_ptr(), table.element_size(), out.data_ptr()) == 0

    def quantize(self, x: torch.Tensor, scale: float, zp: int, lo: int, hi: int, special: torch.Tensor,
                 out: torch.Tensor) -> None:
        """QUANTIZE of float32 ``x`` into ``out`` (8-bit); ``special``: the int32 codes of +inf,
        -inf and NaN."""
        self._invoke(self._quantize, x.data_ptr(), x.numel(), scale, zp, lo, hi, special.data_ptr(), out.data_ptr())

    @functools.cached_property
    def _max_pool(self):
        f = self.lib.nnapi_host_max_pool
        f.argtypes, f.restype = [_P, _I32, _P, _I32, _I32, _P], None
        return f

    def max_pool(self, x: torch.Tensor, geometry: torch.Tensor, lo: int, hi: int, out: torch.Tensor) -> None:
        """The 8-bit max pool of NHWC codes ``x`` into ``out`` [n, oh, ow, c], clamped to codes
        [lo, hi]; ``geometry``: int64 {n, h, w, c, kh, kw, stride_h, stride_w, pad_top, pad_left,
        oh, ow} (see nnapi_host_kernels.c)."""
        self._invoke(self._max_pool, x.data_ptr(), x.dtype == torch.int8, geometry.data_ptr(), lo, hi, out.data_ptr())

    def requantize_vector(self, enable: Optional[bool] = None) -> bool:
        """Whether rows of 16 channels or more are requantized with vector loops (AVX-512, else
        AVX2: nnapi_host_requantize.c; `requantize`, the product's and the depthwise
        convolution's), the same codes as the plain loops; ``enable`` turns them on (where the CPU
        has them) or off (tests compare the two)."""
        return self.requantize_loops_in_use(-1 if enable is None else int(enable)) != REQUANTIZE_LOOPS[0]

    def requantize_loops(self) -> tuple[str, ...]:
        """The requantization loops this machine runs (of `REQUANTIZE_LOOPS`), the fastest last."""
        return REQUANTIZE_LOOPS[:REQUANTIZE_LOOPS.index(self.requantize_loops_in_use(3)) + 1]

    def use_requantize_loops(self, name: str) -> None:
        """Requantizes with loops ``name`` (of `requantize_loops`) from now on (tests)."""
        if name not in self.requantize_loops():
            raise ValueError(f"this machine has no {name!r} requantization (it has {self.requantize_loops()})")
        self.requantize_loops_in_use({"plain C": 0, "AVX2": 2, "AVX-512": 1}[name])

    def requantize_loops_in_use(self, mode: int = -1) -> str:
        """The loops in use after ``mode`` (nnapi_host_requantize_vector's argument: -1 leaves
        the choice, 3 answers what the default would use)."""
        f = self.lib.nnapi_host_requantize_vector
        f.argtypes, f.restype = [_I32], _I32
        return REQUANTIZE_LOOPS[f(mode)]

    # -- float32 element-wise loops (nnapi_host_elementwise.c) ---------------------------------------
    @functools.cached_property
    def _float_elementwise(self) -> tuple:
        logistic, silu, mul, add = (self.lib.nnapi_host_float_logistic, self.lib.nnapi_host_float_silu,
                                    self.lib.nnapi_host_float_mul, self.lib.nnapi_host_float_add)
        logistic.argtypes = silu.argtypes = [_P, _I64, _P]
        logistic.restype = silu.restype = None
        mul.argtypes = add.argtypes = [_P, _P, _I64, _I64, _I32, _P]
        mul.restype = add.restype = _I32
        return logistic, silu, mul, add

    def float_logistic(self, x: torch.Tensor, out: torch.Tensor, silu: bool = False) -> None:
        """``out`` = 1 / (1 + exp(-x)) of float32 ``x`` (contiguous), or x times that (SiLU)."""
        self._invoke(self._float_elementwise[1 if silu else 0], x.data_ptr(), x.numel(), out.data_ptr())

    def float_mul(self, a: torch.Tensor, b: torch.Tensor, period: int, act: int, out: torch.Tensor,
                  add: bool = False) -> bool:
        """``out`` = act(a · b) (or act(a + b) with ``add``) of contiguous float32 tensors, ``b`` of
        ``period`` elements repeated over ``a`` (its numel for equal shapes); False when the
        library refuses (out untouched)."""
        return self._invoke(self._float_elementwise[3 if add else 2], a.data_ptr(), b.data_ptr(), a.numel(), period,
                            act, out.data_ptr()) == 0

    @functools.cached_property
    def _float_mean(self):
        f = self.lib.nnapi_host_float_mean
        f.argtypes, f.restype = [_P, _I64, _I64, _I64, _P], None
        return f

    def float_mean(self, x: torch.Tensor, batches: int, rows: int, channels: int, out: torch.Tensor) -> None:
        """``out`` [batches, channels] = the mean of contiguous float32 ``x`` [batches, rows,
        channels] over its rows, each sum in float64, rounded once to float32."""
        self._invoke(self._float_mean, x.data_ptr(), batches, rows, channels, out.data_ptr())

    # -- the float path (nnapi_host_float.c) --------------------------------------------------------
    @functools.cached_property
    def float_loops(self) -> tuple[str, ...]:
        """The float loops this machine runs (of `FLOAT_LOOPS`): the plain C ones, AVX-512's where
        it has AVX-512, AVX2's (the same bits as AVX-512's) where it has AVX2 and FMA."""
        avx512, avx2 = self.lib.nnapi_host_float_avx512, self.lib.nnapi_host_float_avx2
        avx512.argtypes, avx512.restype, avx2.argtypes, avx2.restype = [], _I32, [], _I32
        return tuple(name for name, has in zip(FLOAT_LOOPS, (True, avx512(), avx2())) if has)

    @property
    def float_vector(self) -> Optional[str]:
        """The float loops the driver runs here: AVX-512's, else AVX2's, else None (torch's)."""
        return next((name for name in FLOAT_LOOPS[1:] if name in self.float_loops), None)

    @functools.cached_property
    def _float_gemm(self):
        f = self.lib.nnapi_host_float_gemm
        f.argtypes = [_P, _I64, _I64, _I64, _P, _P, ctypes.c_float, ctypes.c_float, _I32, _I32, _P]
        f.restype = None
        return f

    @functools.cached_property
    def _float_depthwise(self):
        f = self.lib.nnapi_host_float_depthwise
        f.argtypes = [_P, _P, _P, _P, ctypes.c_float, ctypes.c_float, _I32, _I32, _P]
        f.restype = None
        return f

    @functools.cached_property
    def _float_conv(self):
        f = self.lib.nnapi_host_float_conv
        f.argtypes = [_P, _P, _I64, _P, _P, ctypes.c_float, ctypes.c_float, _I32, _P, _I32, _I32, _P]
        f.restype = None
        return f

    def float_conv(self, x: torch.Tensor, geometry: torch.Tensor, packed: torch.Tensor, n: int,
                   bias: Optional[torch.Tensor], lo: float, hi: float, out: torch.Tensor,
                   loops: Optional[str] = None, epilogue: int = 0) -> None:
        """An ungrouped NHWC float32 convolution of ``x`` as `float_gemm` over its taps, unrolled
        in C a block of rows at a time (``geometry`` as `depthwise`'s; W [n, kh·kw·c] in (ky, kx, c)
        order, packed)."""
        slots = self.threads
        k = int(geometry[3] * geometry[4] * geometry[5])
        rows = torch.empty(slots * FLOAT_CHUNK_ROWS * k, dtype=torch.float32)
        self._invoke(self._float_conv, x.data_ptr(), geometry.data_ptr(), n, packed.data_ptr(), _pointer(bias), lo, hi,
                     _loops(loops), rows.data_ptr(), slots, epilogue, out.data_ptr(), keep=(rows,))

    def float_gemm(self, a: torch.Tensor, packed: torch.Tensor, n: int, bias: Optional[torch.Tensor], lo: float,
                   hi: float, out: torch.Tensor, loops: Optional[str] = None, epilogue: int = 0) -> None:
        """``out`` [m, n] = clamp(``a`` [m, k] @ W^T + bias, lo, hi), float32, with W packed as
        nnapi_host_float.c reads it ([ceil(n/16), k, 16]) and ``bias`` padded to ceil(n/16)·16 (or
        None); ``loops``: one of `float_loops` (None: the fastest); ``epilogue``: then an activation on
        each block of results while in cache (EPILOGUE_SILU as `float_logistic`'s SiLU computes it,
        EPILOGUE_HARD_SWISH as torch's hardswish)."""
        m, k = a.shape
        self._invoke(self._float_gemm, a.data_ptr(), m, k, n, packed.data_ptr(), _pointer(bias), lo, hi, _loops(loops),
                     epilogue, out.data_ptr())

    def float_depthwise(self, x: torch.Tensor, geometry: torch.Tensor, weights: torch.Tensor,
                        bias: Optional[torch.Tensor], lo: float, hi: float, out: torch.Tensor,
                        loops: Optional[str] = None, epilogue: int = 0) -> None:
        """An NHWC float32 depthwise convolution (multiplier 1) of ``x`` with ``weights`` [kh, kw, c],
        plus ``bias`` [c] (or None), clamped to [lo, hi], into ``out``; ``geometry`` as `depthwise`'s;
        ``epilogue``: then an activation (as `float_gemm`'s)."""
        self._invoke(self._float_depthwise, x.data_ptr(), geometry.data_ptr(), weights.data_ptr(), _pointer(bias), lo,
                     hi, _loops(loops), epilogue, out.data_ptr())


def _loops(name: Optional[str]) -> int:
    """nnapi_host_float.c's number for the float loops named (None: 1, the fastest the machine has)."""
    return 1 if name is None else FLOAT_LOOPS.index(name)


def library_path() -> Optional[str]:
    """$EXECUTORCH_NNAPI_HOST_KERNELS (None when it says off), else the package's copy."""
    value = os.environ.get(LIBRARY_VARIABLE, "").strip()
    if value.lower() in OFF:
        return None
    return value or os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), LIBRARY_FILENAME)


def kernel_threads() -> int:
    """$EXECUTORCH_NNAPI_HOST_KERNEL_THREADS (a positive integer), else the CPUs this process may
    run on, at most DEFAULT_MAX_THREADS."""
    text = os.environ.get(THREADS_VARIABLE, "").strip()
    if text.isdigit() and 0 < int(text) <= 64:
        return int(text)
    if text:
        logger.warning("ignoring %s=%r (not a thread count from 1 to 64)", THREADS_VARIABLE, text)
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, DEFAULT_MAX_THREADS))


@functools.cache
def _load(path: str) -> Optional[NativeKernels]:
    if not os.path.exists(path):
        logger.debug("%s not found: the 8-bit path runs its torch passes", path)
        return None
    try:
        lib = ctypes.CDLL(path)
        version = lib.nnapi_host_kernels_version
        version.restype = _I32
        if version() != INTERFACE_VERSION:
            logger.warning("ignoring %s: interface version %d, this driver needs %d (rebuild the package)", path,
                           version(), INTERFACE_VERSION)
            return None
        kernels = NativeKernels(lib)
        kernels.set_threads(kernel_threads())
        return kernels
    except (OSError, AttributeError) as e:
        logger.warning("ignoring %s (%s): the 8-bit path runs its torch passes", path, e)
        return None


def kernels() -> Optional[NativeKernels]:
    """The loaded library, or None: asked when a plan is made (a plan keeps what it was given)."""
    path = library_path()
    return None if path is None else _load(path)
