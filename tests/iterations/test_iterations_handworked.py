"""A tiny loop worked by hand: derived sets, patch distance, thrash evidence, spend.

Run "r", three steps, nine attempts (USD amounts are binary fractions, so sums are exact):

(a patch "abcd" is the diff of four added lines "+a", "+b", "+c", "+d": patch distance is
line-level)

  iter step att check          failing   patch     lines calls/errs tokens  usd     exit
  1    a    1   pytest -q      {x,y}     abcd      10    4/0        110     0.125   1
  2    a    2   pytest -q      {y,z}     abce      12    4/1        220     0.25    1
  3    a    3   pytest -q      {y,z}     wxyz      15    4/2        330     0.25    1
  4    a    4   pytest -q      {w,y,z}   wxyzabcd  20    4/2        440     0.5     1
  5    a    5   pytest -q      {}        wxyzabcd  20    4/0        550     0.125   0 certified
  6    b    1   go build ./... {e}       -         -     2/0        60      0.0625  1
  7    b    2   go build ./... {}        -         -     2/0        40      0.0625  0 (no `certified`)
  8    c    1   ./ci.sh        {q}       -         -     -          1000    1.0     1
  9    c    2   ./ci.sh        {q}       -         -     -          1000    1.0     1
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reportgen.iterations import analyse, page_data
from tests.iterations.helpers import ingested

FIELDS: tuple[str, ...] = ("iter", "step", "attempt", "check", "failing", "patch", "patch_lines")
FIELDS += ("tool_calls", "tool_errors", "tokens_in", "tokens_out", "usd", "exit", "certified")
TEST, BUILD, CI = "pytest -q", "go build ./...", "./ci.sh"


def lines(letters: str) -> str:
    """A unified diff adding one line per letter."""
    return "--- a/f.py\n+++ b/f.py\n@@ -0,0 +1 @@\n" + "".join(f"+{c}\n" for c in letters)


# fmt: off
ROWS: list[tuple[Any, ...]] = [
    (1, "a", 1, TEST, ["x", "y"], lines("abcd"), 10, 4, 0, 100, 10, 0.125, 1, False),
    (2, "a", 2, TEST, ["z", "y"], lines("abce"), 12, 4, 1, 200, 20, 0.25, 1, False),
    (3, "a", 3, TEST, ["y", "z"], lines("wxyz"), 15, 4, 2, 300, 30, 0.25, 1, False),
    (4, "a", 4, TEST, ["w", "y", "z"], lines("wxyzabcd"), 20, 4, 2, 400, 40, 0.5, 1, False),
    (5, "a", 5, TEST, [], lines("wxyzabcd"), 20, 4, 0, 500, 50, 0.125, 0, True),
    (6, "b", 1, BUILD, ["e"], None, None, 2, 0, 60, None, 0.0625, 1, None),
    (7, "b", 2, BUILD, [], None, None, 2, 0, 40, None, 0.0625, 0, None),
    (8, "c", 1, CI, ["q"], None, None, None, None, 1000, None, 1.0, 1, None),
    (9, "c", 2, CI, ["q"], None, None, None, None, 1000, None, 1.0, 1, None),
]
# fmt: on
RECORDS = [
    {"run": "r"} | {k: v for k, v in zip(FIELDS, row, strict=True) if v is not None} for row in ROWS
]


@pytest.fixture
def run(tmp_path: Path) -> Any:
    con = ingested(tmp_path, RECORDS)
    try:
        (result,) = analyse(con)
        yield result
    finally:
        con.close()


def test_derived_sets(run: Any) -> None:
    a = run.steps[0].attempts
    # first attempt: previous set is empty, so everything failing is new
    assert (a[0].resolved, a[0].persisting, a[0].new) == ([], [], ["x", "y"])
    # {x,y} -> {y,z}: x gone, y unmoved, z introduced
    assert (a[1].resolved, a[1].persisting, a[1].new) == (["x"], ["y"], ["z"])
    assert (a[2].resolved, a[2].persisting, a[2].new) == ([], ["y", "z"], [])
    assert (a[3].resolved, a[3].persisting, a[3].new) == ([], ["y", "z"], ["w"])
    assert (a[4].resolved, a[4].persisting, a[4].new) == (["w", "y", "z"], [], [])
    assert [x.n_failing for x in a] == [2, 2, 2, 3, 0]


def test_patch_distance_is_line_level_ratio(run: Any) -> None:
    # ratio = 2 * LCS / (lines a + lines b) over the changed lines: abcd/abce LCS 3 -> 6/8;
    # abce/wxyz -> 0;
    # wxyz/wxyzabcd LCS 4 -> 8/12; identical -> 1
    got = [x.patch_distance for x in run.steps[0].attempts]
    assert got[0] is None
    assert got[1:] == pytest.approx([0.75, 0.0, 2 / 3, 1.0])
    assert [x.diff_volume for x in run.steps[0].attempts] == [10, 12, 15, 20, 20]
    assert run.steps[1].attempts[1].patch_distance is None  # no patches on step b


def test_thrash_evidence_on_step_a(run: Any) -> None:
    t = run.steps[0].thrash
    # attempt 1 sets the low (2 failing); 2, 3, 4 never go below it -> 3 stalled >= k=3;
    # attempt 5 is certified and ends the stretch
    assert t.flagged and t.stalled == 3
    assert (t.anchor_attempt, t.anchor_iter) == (1, 1)
    assert (t.attempts, t.iters) == ([2, 3, 4], [2, 3, 4])
    assert t.failing_set == "churning"  # attempt 2 swapped x for z
    assert t.core_failing == ["y"]  # y failed in attempts 1-4
    assert t.churn_ids == ["w", "z"]
    assert (t.n_failing_from, t.n_failing_to) == (2, 3)
    assert (t.diff_from, t.diff_to, t.growing_diff) == (10, 20, True)
    # mean of 0.75, 0.0, 2/3 = 0.472 < 0.5: attempts rewrite rather than refine
    assert t.mean_patch_distance == pytest.approx((0.75 + 0 + 2 / 3) / 3)
    assert t.low_patch_distance
    assert (t.tool_error_rate_from, t.tool_error_rate_to, t.rising_tool_errors) == (0.0, 0.5, True)
    assert (t.tokens, t.usd) == (220 + 330 + 440, 1.0)


def test_steps_certification_and_check_kind(run: Any) -> None:
    a, b, c = run.steps
    assert (a.step, a.certified, a.certified_attempt, a.certified_iter) == ("a", True, 5, 5)
    # step b gives no `certified`: exit 0 certifies
    assert (b.certified, b.certified_attempt, b.certified_iter) == (True, 2, 7)
    assert (c.certified, c.certified_iter) == (False, None)
    assert (a.check_kind, b.check_kind, c.check_kind) == ("test-suite", "build-only", "unknown")
    # c: one stalled attempt (q again), under k: evidence kept, not flagged
    assert c.thrash is not None and not c.thrash.flagged and c.thrash.failing_set == "unchanged"
    assert b.thrash is None


def test_run_summary(run: Any) -> None:
    assert (run.n_steps, run.certified_steps, run.n_attempts) == (3, 2, 9)
    # tokens 110+220+330+440+550 + 60+40 + 1000+1000 = 3750; usd 1.25 + 0.125 + 2.0 = 3.375
    assert (run.tokens, run.usd) == (3750, 3.375)
    assert run.tokens_per_certified_step == 1875
    assert run.usd_per_certified_step == 1.6875
    # the latest step certified at iteration 7; iterations 8 and 9 bought nothing yet
    assert run.last_certified_iter == 7
    assert (run.marginal_attempts, run.marginal_tokens, run.marginal_usd) == (2, 2000, 2.0)
    # calls 4*5 + 2*2 = 24 (step c records none); errors 0+1+2+2+0 = 5
    assert (run.tool_calls, run.tool_errors) == (24, 5)
    assert run.tool_error_rate == pytest.approx(5 / 24)
    assert run.thrash_steps == ["a"]


def test_thrash_needs_k_stalled_attempts(tmp_path: Path) -> None:
    con = ingested(tmp_path, RECORDS)
    try:
        (loose,) = analyse(con, min_stalled=4)
        (strict,) = analyse(con, min_stalled=1)
    finally:
        con.close()
    assert loose.thrash_steps == []
    assert strict.thrash_steps == ["a", "c"]


def test_no_certified_step_gives_a_reason_not_infinity(tmp_path: Path) -> None:
    con = ingested(tmp_path, RECORDS[7:])
    try:
        (run,) = analyse(con)
    finally:
        con.close()
    assert run.certified_steps == 0
    assert run.tokens_per_certified_step is None and run.usd_per_certified_step is None
    assert run.per_certified_reason == "no step certified yet"
    assert run.last_certified_iter is None
    assert (run.marginal_attempts, run.marginal_tokens) == (2, 2000)
    assert run.tool_error_rate is None


def test_page_data_series(tmp_path: Path) -> None:
    con = ingested(tmp_path, RECORDS)
    try:
        page = page_data(con, "r")
    finally:
        con.close()
    a = page["steps"][0]
    assert a["series"]["resolved"] == [0, 1, 0, 0, 3]
    assert a["series"]["persisting"] == [0, 1, 2, 2, 0]
    assert a["series"]["new"] == [2, 1, 0, 1, 0]
    assert a["series"]["diff_volume"] == [10, 12, 15, 20, 20]
    assert a["thrash"]["attempts"] == [2, 3, 4] and a["thrash"]["evidence"]
    assert page["summary"]["usd_per_certified_step"] == 1.6875
    assert page["progress"]["certified_steps"] == [0, 0, 0, 0, 1, 1, 2, 2, 2]
    assert page["progress"]["cumulative_tokens"][-1] == 3750
