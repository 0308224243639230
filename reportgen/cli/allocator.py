"""Allocator settings for a command that builds and frees large buffers in turn (``compare``:
record batches, staged tables, the step texts of each batch it writes): memory it frees stays
with the process for its next buffer, instead of going back to the kernel, which hands out
every fresh page with a page fault (on a virtual machine, one the host serves too).

Arrow allocates through the C library's malloc (its default pool, mimalloc, returns freed
segments to the kernel), and glibc keeps what is freed at the top of its heap
(``M_TRIM_THRESHOLD``). DuckDB's own allocator is left as it is. Process-wide, so set for the
command's work only and restored after (an in-process caller, e.g. a test, runs on as before,
but for glibc's threshold: restored to its default value, no longer adjusted by glibc)."""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

M_TRIM_THRESHOLD = -1
"""glibc's mallopt parameter (malloc.h): free memory at the heap's top past this is trimmed."""
M_MMAP_THRESHOLD = -3
"""glibc's mallopt parameter: a block this large or larger is mapped apart (mmap), and
unmapped when freed: each use of it faults its pages in afresh."""
TRIM_THRESHOLD_BYTES = 2**31 - 1
"""Trim only past 2 GB (the largest value mallopt takes): a compare keeps its heap between
batches."""
DEFAULT_TRIM_THRESHOLD_BYTES = 128 * 1024
"""glibc's own M_TRIM_THRESHOLD, restored after."""
MMAP_THRESHOLD_BYTES = 32 * 1024 * 1024
"""Map apart only blocks of 32 MB or more (the largest value mallopt takes on 64 bits): setting
M_TRIM_THRESHOLD stops glibc from raising its threshold of 128 KB itself, and the text
buffers of each batch compare writes (a few MB each) would otherwise be mapped, unmapped and
faulted in again batch after batch."""
DEFAULT_MMAP_THRESHOLD_BYTES = 128 * 1024
"""glibc's own initial M_MMAP_THRESHOLD, restored after."""


@contextmanager
def keep_freed_memory() -> Iterator[None]:
    """Arrow's buffers from malloc, and glibc's heap kept rather than trimmed, inside the
    block (the heap as before where the C library is not glibc)."""
    import pyarrow as pa

    pool = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    mallopt = _glibc_mallopt()
    if mallopt is not None:
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES)
        mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
    try:
        yield
    finally:
        pa.set_memory_pool(pool)
        if mallopt is not None:
            mallopt(M_TRIM_THRESHOLD, DEFAULT_TRIM_THRESHOLD_BYTES)
            mallopt(M_MMAP_THRESHOLD, DEFAULT_MMAP_THRESHOLD_BYTES)


def _glibc_mallopt() -> Callable[[int, int], int] | None:
    """glibc's mallopt (None on other C libraries, whose parameters mean other things)."""
    if not sys.platform.startswith("linux"):
        return None
    process = ctypes.CDLL(None)  # the symbols the process has loaded, the C library's among them
    if not hasattr(process, "gnu_get_libc_version"):
        return None
    mallopt = process.mallopt
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return mallopt
