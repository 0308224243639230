"""Pause the cyclic garbage collector around work that builds millions of small objects."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic collections inside the block (the dicts and lists built there hold no cycles;
    collections would only rescan them, again and again as they grow); restored after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
