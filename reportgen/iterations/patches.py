"""Patch measures shared by the Recorder and the SQL UDFs, so both give the same numbers."""

from __future__ import annotations

from rapidfuzz import fuzz


def patch_ratio(previous: str | None, current: str | None) -> float | None:
    """How much of the previous patch an attempt kept: rapidfuzz's ratio over 100.

    1.0 means the same patch (refining), near 0 means rewritten (restarting). The record calls
    it ``patch_distance``, as the seed does, although it is a similarity. None when either
    patch is unknown."""
    if previous is None or current is None:
        return None
    return float(fuzz.ratio(previous, current)) / 100.0


def count_patch_lines(patch: str | None) -> int | None:
    """Lines added plus removed in a unified diff (file headers ``---``/``+++`` not counted)."""
    if patch is None:
        return None
    count = 0
    for line in patch.splitlines():
        if line.startswith(("+", "-")) and not line.startswith(("+++ ", "--- ")):
            count += 1
    return count
