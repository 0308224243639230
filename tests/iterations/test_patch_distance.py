"""The patch distance cut-off (LOW_PATCH_DISTANCE: a mean under it says attempts rewrite rather
than refine), pinned with real patches: the 20 mini-swe-agent submissions in the shared data
(SWE-bench Verified fixes of 20 different tasks) are unrelated to each other, and a patch with
one of its lines reworked is a refinement of it."""

from __future__ import annotations

import itertools
import json
import statistics
from pathlib import Path

import pytest
from rapidfuzz import fuzz

from reportgen.iterations.analysis import LOW_PATCH_DISTANCE
from reportgen.iterations.patches import changed_lines, patch_ratio

TRAJS = Path(__file__).resolve().parents[3] / "shared" / "data" / "mini-swe-agent" / "trajs"


@pytest.fixture(scope="module")
def patches() -> list[str]:
    if not TRAJS.is_dir():
        pytest.skip(f"{TRAJS} is missing (the shared real data)")
    found = []
    for path in sorted(TRAJS.glob("*/*.traj.json")):
        submission = json.loads(path.read_text(encoding="utf-8"))["info"].get("submission")
        if submission:
            found.append(submission)
    assert len(found) == 20
    return found


def test_unrelated_real_patches_fall_under_the_cut_off(patches: list[str]) -> None:
    pairs = list(itertools.combinations(patches, 2))
    lines = [patch_ratio(a, b) for a, b in pairs]
    chars = [fuzz.ratio(a, b) / 100 for a, b in pairs]
    assert len(pairs) == 190
    # line level: no unrelated pair reaches the cut-off; most share no changed line at all
    assert max(v for v in lines if v is not None) < LOW_PATCH_DISTANCE
    assert statistics.median(v for v in lines if v is not None) == 0.0
    # the character ratio it replaces put unrelated fixes at 0.38 (median), 6 of them >= 0.5
    assert 0.3 < statistics.median(chars) < 0.45
    assert sum(c >= LOW_PATCH_DISTANCE for c in chars) == 6


def test_reworking_one_line_of_a_real_patch_stays_above_the_cut_off(patches: list[str]) -> None:
    for patch in patches:
        changed = changed_lines(patch)
        if len(changed) < 2:
            continue
        last = max(i for i, line in enumerate(patch.splitlines()) if line.startswith("+"))
        lines = patch.splitlines()
        lines[last] += "  # reworked"
        refined = "\n".join(lines)
        ratio = patch_ratio(patch, refined)
        assert ratio is not None and ratio >= LOW_PATCH_DISTANCE
        assert ratio == pytest.approx(2 * (len(changed) - 1) / (2 * len(changed)))
        assert patch_ratio(patch, patch) == 1.0
