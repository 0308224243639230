"""compare's process-wide settings (cli/allocator.py, cli/collector.py) hold inside the
command only: an in-process caller (a test, a notebook) gets its own back."""

from __future__ import annotations

import gc

import pyarrow as pa

from reportgen.cli.allocator import keep_freed_memory
from reportgen.cli.collector import YOUNG_THRESHOLD, fewer_collections


def test_fewer_collections_restores_the_collector() -> None:
    before, frozen = gc.get_threshold(), gc.get_freeze_count()
    with fewer_collections():
        assert gc.get_threshold() == (YOUNG_THRESHOLD, *before[1:])
        assert gc.get_freeze_count() >= frozen
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_keep_freed_memory_restores_arrows_pool() -> None:
    before = pa.default_memory_pool().backend_name
    with keep_freed_memory():
        assert pa.default_memory_pool().backend_name == "system"
        assert pa.array([1, 2, 3]).sum().as_py() == 6  # allocates from the system pool
    assert pa.default_memory_pool().backend_name == before
