"""Allocator settings for a command that builds and frees large buffers in turn (``compare``:
record batches, staged tables, the step texts of each batch it writes): memory it frees stays
with the process for its next buffer, instead of going back to the kernel, which hands out
every fresh page with a page fault (on a virtual machine, one the host serves too).

Process-wide, so set by a command, never by the library: Arrow allocates through the C
library's malloc (its default pool, mimalloc, returns freed segments to the kernel), and glibc
keeps what is freed at the top of its heap (``M_TRIM_THRESHOLD``). DuckDB's own allocator is
left as it is."""

from __future__ import annotations

import ctypes
import sys

M_TRIM_THRESHOLD = -1
"""glibc's mallopt parameter (malloc.h): free memory at the heap's top past this is trimmed."""
TRIM_THRESHOLD_BYTES = 2**31 - 1
"""Trim only past 2 GB (the largest value mallopt takes): a compare keeps its heap between
batches."""


def keep_freed_memory() -> None:
    """Arrow's buffers from malloc, and glibc's heap kept rather than trimmed (a no-op for the
    heap where the C library is not glibc)."""
    import pyarrow as pa

    pa.set_memory_pool(pa.system_memory_pool())
    if not sys.platform.startswith("linux"):
        return
    process = ctypes.CDLL(None)  # the symbols the process has loaded, the C library's among them
    if not hasattr(process, "gnu_get_libc_version"):  # not glibc: its mallopt means other things
        return
    mallopt = process.mallopt
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES)
