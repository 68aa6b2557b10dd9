"""The torch settings the host driver computes under: the same in every process that hosts it.

The driver is a reference, so one input must give one answer, whether it runs in a Python
process, embedded in a C++ process through the shim, or in the NNAPI server. torch's answer
depends on how many intra-op threads compute it: oneDNN splits the reduction of a 1x1
convolution with many input channels (mobilenet_v2's 384..960) across threads, so 1 and 2
threads give results up to a few float32 ulps apart. Each process has its own default (the
host application's torch.set_num_threads, OMP_NUM_THREADS, the number of cores), so the driver
pins its own count for the length of each execution and gives the caller's back afterwards.

``EXECUTORCH_NNAPI_HOST_THREADS`` (default 1) sets that count: every process that reads the
same value computes the same bits. The other half of the answer, torch's own BLAS in a process
whose host exports another one, is the shim's (host_driver/shim/nnapi_host_shim.c); see
docs/runtime.md, "One answer per input".
"""

from __future__ import annotations

import contextlib
import logging
import os
from typing import Iterator

import torch

__all__ = ["THREADS_VARIABLE", "DEFAULT_THREADS", "compute_threads", "pinned_torch_settings"]

THREADS_VARIABLE = "EXECUTORCH_NNAPI_HOST_THREADS"
DEFAULT_THREADS = 1

logger = logging.getLogger("executorch_nnapi.host_driver")
_warned: set[str] = set()


def compute_threads() -> int:
    """The intra-op thread count the driver computes with: $EXECUTORCH_NNAPI_HOST_THREADS (a
    positive integer), else 1. A malformed value is reported once and the default used."""
    text = os.environ.get(THREADS_VARIABLE, "").strip()
    if not text:
        return DEFAULT_THREADS
    if text.isdigit() and 0 < int(text) <= 1024:
        return int(text)
    if text not in _warned:
        _warned.add(text)
        logger.warning("ignoring %s=%r (not a positive number of threads); computing on %d",
                       THREADS_VARIABLE, text, DEFAULT_THREADS)
    return DEFAULT_THREADS


@contextlib.contextmanager
def pinned_torch_settings() -> Iterator[None]:
    """Runs the body with the driver's intra-op thread count and restores the caller's.

    OpenMP keeps the count per thread, and the driver computes on the thread that called it;
    setting the count costs well under a microsecond.
    """
    wanted = compute_threads()
    before = torch.get_num_threads()
    if before != wanted:
        torch.set_num_threads(wanted)
    try:
        yield
    finally:
        if before != wanted:
            torch.set_num_threads(before)
