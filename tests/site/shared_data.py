"""The shared real data (``../shared/data`` beside the checkout): which of its folders an
adapter reads, for the tests that ingest all of it."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"

# Folders of the shared data in formats no adapter reads yet (P19, issue 31). Each is taken off
# this list when an adapter reads it; any other folder that fails to load fails the test. Empty
# since inspect-scout (the last one) is read.
NOT_YET_READ: frozenset[str] = frozenset()


def read_folders(root: Path, prefix: str = "") -> list[Path]:
    """The folders under ``root`` an adapter reads: all but NOT_YET_READ, descending
    into a folder only where a part of it is on that list."""
    picked = []
    for entry in sorted(p for p in root.iterdir() if p.is_dir()):
        name = f"{prefix}{entry.name}"
        if name in NOT_YET_READ:
            continue
        if any(n.startswith(f"{name}/") for n in NOT_YET_READ):
            picked += read_folders(entry, f"{name}/")
        else:
            picked.append(entry)
    return picked
