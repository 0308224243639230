"""Patch measures shared by the Recorder and the SQL UDFs, so both give the same numbers."""

from __future__ import annotations

from rapidfuzz.distance import Indel


def changed_lines(patch: str) -> list[str]:
    """The lines a unified diff adds or removes, with their sign, trailing space stripped (file
    headers ``---``/``+++``, hunk headers and context lines left out: they move with the code
    around the change). A text with no such lines (not a diff) gives all its non-blank lines."""
    lines = patch.splitlines()
    changed = [
        line.rstrip()
        for line in lines
        if line.startswith(("+", "-")) and not line.startswith(("+++ ", "--- "))
    ]
    return changed or [line.rstrip() for line in lines if line.strip()]


def patch_ratio(previous: str | None, current: str | None) -> float | None:
    """How much of the previous patch an attempt kept, at line level: the changed lines of the
    two patches as sequences, 2 x their longest common subsequence / (lines of both) (rapidfuzz
    ``Indel.normalized_similarity``; two empty patches: 1.0).

    1.0 means the same patch (refining), near 0 means rewritten (restarting): unrelated real
    patches score 0 (median) where the character ratio gave them about 0.36 to 0.6, because any
    two diffs share most characters (tests/iterations/test_patch_distance.py). The record calls
    it ``patch_distance``, as the seed does, although it is a similarity. None when either
    patch is unknown."""
    if previous is None or current is None:
        return None
    return float(Indel.normalized_similarity(changed_lines(previous), changed_lines(current)))


def count_patch_lines(patch: str | None) -> int | None:
    """Lines added plus removed in a unified diff (file headers ``---``/``+++`` not counted)."""
    if patch is None:
        return None
    count = 0
    for line in patch.splitlines():
        if line.startswith(("+", "-")) and not line.startswith(("+++ ", "--- ")):
            count += 1
    return count
