"""Hand-worked checks of the divergence functions: every Divergence row of conformance.md."""

from __future__ import annotations

from typing import Any

import pytest

from reportgen.divergence.reference import (
    DELTA_NOTES,
    Run,
    Step,
    Totals,
    align,
    compare_pair,
    detect_loops,
    lcs_length,
    pct_delta,
    recovery,
    recovery_step_ratio,
    run_totals,
    step_diffs,
    tdi,
    wei,
)

from .cases import CASES, Case, run, step


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_conformance_case(case: Case) -> None:
    """compare_pair gives the numbers of the conformance table for each case."""
    got = compare_pair(case.baseline, case.candidate)
    exp = case.expected
    assert got["trajectory_divergence_index"] == pytest.approx(exp["tdi"], abs=1e-6)
    if "wei" in exp:
        assert (got["baseline_wei"], got["candidate_wei"]) == pytest.approx(exp["wei"], abs=1e-6)
    if "recovery" in exp:
        assert (got["baseline_recovery_steps"], got["candidate_recovery_steps"]) == exp["recovery"]
    if "unrecovered" in exp:
        got_unrec = (got["baseline_unrecovered_steps"], got["candidate_unrecovered_steps"])
        assert got_unrec == exp["unrecovered"]
    if "rsr" in exp:
        assert got["recovery_step_ratio"] == exp["rsr"]
    if "loops" in exp:
        loops = [
            (
                lp["side"],
                lp["start_index"],
                lp["length"],
                lp["iterations"],
                lp["steps"],
                lp["stagnant"],
            )
            for lp in got["loops_detected"]
        ]
        assert loops == exp["loops"]
    if "diffs" in exp:
        assert [d["status"] for d in got["step_diffs"]] == exp["diffs"]
    if "deltas" in exp:
        for key in ("cost", "token", "latency"):
            value = got[f"{key}_delta_percentage"]
            if exp["deltas"] is None:
                assert value is None
                assert got[f"{key}_delta_note"]
            else:
                assert value == pytest.approx(exp["deltas"], abs=1e-4)
                assert f"{key}_delta_note" not in got


def test_contract_fields_and_types() -> None:
    """The JSON contract: every field present with its JSON type; notes only when null."""
    got = compare_pair(CASES[2].baseline, CASES[2].candidate)
    floats = ("trajectory_divergence_index", "baseline_wei", "candidate_wei", "recovery_step_ratio")
    for key in floats:
        assert type(got[key]) is float
    ints = (
        "baseline_recovery_steps",
        "candidate_recovery_steps",
        "baseline_unrecovered_steps",
        "candidate_unrecovered_steps",
    )
    for key in ints:
        assert type(got[key]) is int
    assert set(got["loops_detected"][0]) == {
        "side",
        "start_index",
        "length",
        "iterations",
        "steps",
        "stagnant",
    }
    assert set(got["step_diffs"][0]) == {"status", "baseline_index", "candidate_index", "action"}
    assert not any(k.endswith("_note") for k in got)


def test_worked_tdi_floats_match_agentdiff_spelling() -> None:
    """TDI uses AgentDiff's formula verbatim, so its floats print the same (no rounding)."""
    got = compare_pair(CASES[1].baseline, CASES[1].candidate)
    assert got["trajectory_divergence_index"] == 1.0 - (2.0 * 4) / 10
    assert repr(got["trajectory_divergence_index"]) == "0.19999999999999996"


# ------------------------------------------------------------------ small cases


@pytest.mark.parametrize(
    ("len_a", "len_b", "lcs", "expected"),
    [(3, 4, 2, 1 - 4 / 7), (6, 2, 2, 0.5), (4, 4, 0, 1.0), (0, 0, 0, 0.0)],
)
def test_tdi_small_cases(len_a: int, len_b: int, lcs: int, expected: float) -> None:
    """TDI from (|A|, |B|, LCS)."""
    assert tdi(len_a, len_b, lcs) == pytest.approx(expected)


def test_wei_small_cases() -> None:
    """WEI counts error, retry and abandoned; an empty run is 0.0; success means ok."""
    assert wei(["ok", "error", "retry", "abandoned", "ok"]) == pytest.approx(0.6)
    assert wei([]) == 0.0
    assert wei(["success", "ok"]) == 0.0


@pytest.mark.parametrize(
    ("baseline", "candidate", "value", "note"),
    [
        (100, 150, 50.0, None),
        (100, 80, -20.0, None),
        (0, 0, None, "baseline_zero"),
        (0, 5, None, "baseline_zero"),
        (None, 5, None, "baseline_unknown"),
        (5, None, None, "candidate_unknown"),
        (0.0, None, None, "candidate_unknown"),
    ],
)
def test_pct_delta_small_cases(
    baseline: float | None, candidate: float | None, value: float | None, note: str | None
) -> None:
    """Deltas: plain percentages, or null plus a note (never inf, never a made-up +100%)."""
    got_value, got_note = pct_delta(baseline, candidate, "cost")
    assert got_value == value
    assert got_note == (None if note is None else DELTA_NOTES[note].format(what="cost"))
    if got_note is not None:
        assert "cost" in got_note


def test_rsr_small_cases() -> None:
    """RSR: candidate over baseline; zero baseline gives the raw count; both zero give 0.0."""
    assert recovery_step_ratio(baseline=2, candidate=4) == 2.0
    assert recovery_step_ratio(baseline=0, candidate=3) == 3.0
    assert recovery_step_ratio(baseline=0, candidate=0) == 0.0
    assert recovery_step_ratio(baseline=4, candidate=0) == 0.0
    assert type(recovery_step_ratio(baseline=0, candidate=3)) is float


# ------------------------------------------------------------------ building blocks


def test_signature_ignores_values_and_status_but_not_keys_or_type() -> None:
    """Signature = (type, action, sorted top-level input keys)."""
    a = Step("tool_call", "f", {"b": 1, "a": 2}, "out", "error")
    b = Step("tool_call", "f", {"a": 9, "b": 0}, None, "ok")
    assert a.signature == b.signature == ("tool_call", "f", ("a", "b"))
    assert Step("llm_call", "f", {"a": 1, "b": 1}).signature != a.signature
    assert Step("tool_call", "f", ["a", "b"]).signature == ("tool_call", "f", ())
    assert Step("tool_call", "f", {"a": {"z": 1}}).signature[2] == ("a",)


def test_lcs_length_on_hashables() -> None:
    """LCS length works on any hashable items, exactly (items are interned first)."""
    assert lcs_length("ABCBDAB", "BDCABA") == 4
    assert lcs_length([("t", "a", ())] * 3, [("t", "a", ())]) == 1
    assert lcs_length([], [1, 2]) == 0


def test_align_traceback_tie_break() -> None:
    """Matches are taken from the end; ties step back in the candidate first."""
    # Equal items match from the end: the last x of the baseline pairs with the candidate x.
    assert align("xyx", "x") == [(0, None), (1, None), (2, 0)]
    # a vs b at the end with dp[i][j-1] == dp[i-1][j]: the candidate steps back first,
    # so after reversal the baseline step comes first.
    assert align("a", "b") == [(0, None), (None, 0)]
    assert align("", "ab") == [(None, 0), (None, 1)]
    assert align("ab", "") == [(0, None), (1, None)]
    assert align("abc", "abc") == [(0, 0), (1, 1), (2, 2)]


def test_recovery_worked_case() -> None:
    """DESIGN.md worked case: [a, q!, q, s] vs [a, q!, x, y, q, s] -> 1 and 3."""
    assert recovery(["ok", "error", "ok", "ok"], [True, True, True, True]) == (1, 0)
    assert recovery(
        ["ok", "error", "ok", "ok", "ok", "ok"], [True, True, False, False, True, True]
    ) == (3, 0)


def test_recovery_window_rules() -> None:
    """Wasted steps open (not counted); ok steps count; an aligned ok step closes (counted)."""
    # never closes: both counted steps are unrecovered
    assert recovery(["ok", "abandoned", "ok", "ok"], [True, True, False, False]) == (2, 2)
    # a second failure while open keeps the same window open
    assert recovery(["error", "ok", "retry", "ok"], [False, False, False, False]) == (2, 2)
    # the window closes at the aligned step; later clean steps are not counted
    assert recovery(["error", "ok", "ok", "ok"], [False, False, True, False]) == (2, 0)
    # an aligned wasted step does not close anything
    assert recovery(["error", "error", "ok"], [True, True, True]) == (1, 0)
    # steps before any failure never count
    assert recovery(["ok", "ok"], [False, False]) == (0, 0)
    # a closed window then an open one: only the open one's steps are unrecovered
    assert recovery(["error", "ok", "error", "ok", "ok"], [False, True, False, False, False]) == (
        3,
        2,
    )


def test_detect_loops_greedy_scan() -> None:
    """Shortest block first at each position; the scan resumes after the repeats."""
    sigs = list("abababcc")
    payloads = [0] * len(sigs)
    loops = detect_loops(sigs, payloads, payloads, side="baseline")
    assert [(lp.start_index, lp.length, lp.iterations, lp.steps) for lp in loops] == [
        (0, 2, 3, ["a", "b"]),
        (6, 1, 2, ["c"]),
    ]
    assert all(lp.side == "baseline" and lp.stagnant for lp in loops)
    # a block must repeat back to back
    assert detect_loops(list("abcab"), [0] * 5, [0] * 5) == []
    # stagnant needs every repeat's input and output equal to the first iteration's
    assert not detect_loops(list("aa"), [1, 1], [1, 2])[0].stagnant
    assert not detect_loops(list("aa"), [1, 2], [1, 1])[0].stagnant


def test_loops_by_signature_not_by_name() -> None:
    """Same action with different input keys is not a loop (AgentDiff, by name, says it is)."""
    got = compare_pair([], [step("a", "x"), step("a", "y")])
    assert got["loops_detected"] == []
    got = compare_pair([], [step("a", "x"), step("a", "x")])
    assert len(got["loops_detected"]) == 1


def test_step_diffs_modified_rules() -> None:
    """Aligned steps are modified when status, input values or output differ."""
    base = [Step("t", "a", {"k": 1}, "o"), Step("t", "b"), Step("t", "c", None, "o")]
    cand = [
        Step("t", "a", {"k": 1}, "o"),
        Step("t", "b", status="retry"),
        Step("t", "c", None, "p"),
    ]
    got = [
        d.status
        for d in step_diffs(
            base, cand, align([s.signature for s in base], [s.signature for s in cand])
        )
    ]
    assert got == ["matched", "modified", "modified"]
    # "success" is "ok"
    assert (
        step_diffs([Step("t", "a")], [Step("t", "a", status="success")], [(0, 0)])[0].status
        == "matched"
    )


def test_run_totals_prefer_run_then_steps_then_unknown() -> None:
    """Run totals win; else step sums (absent step numbers count 0); else unknown."""
    steps = (Step("t", "a", tokens_in=10, cost_usd=0.5), Step("t", "b", latency_ms=None))
    assert run_totals(Run(steps)) == run_totals(Run(steps, tokens_out=None))
    totals = run_totals(Run(steps))
    assert (totals.tokens, totals.cost_usd, totals.latency_ms) == (10, 0.5, None)
    totals = run_totals(Run(steps, tokens_out=5, cost_usd=2.0, latency_ms=7.0))
    assert (totals.tokens, totals.cost_usd, totals.latency_ms) == (15, 2.0, 7.0)
    # an empty run that gives no totals spent nothing (AgentDiff: 0); steps without numbers
    # stay unknown
    assert run_totals(Run()) == Totals(tokens=0, cost_usd=0.0, latency_ms=0.0)
    assert run_totals(Run((Step("t", "a"),))).tokens is None


def test_unknown_baseline_gives_null_with_note() -> None:
    """A delta whose baseline gives no numbers is null with a note naming the metric."""
    got = compare_pair(Run((Step("t", "a"),)), run(step("a")))
    for key, what in (("cost", "cost"), ("token", "tokens"), ("latency", "latency")):
        assert got[f"{key}_delta_percentage"] is None
        assert got[f"{key}_delta_note"] == DELTA_NOTES["baseline_unknown"].format(what=what)


def test_compare_pair_accepts_step_lists() -> None:
    """Bare step lists are runs without run totals."""
    as_list: dict[str, Any] = compare_pair(
        list(CASES[3].baseline.steps), list(CASES[3].candidate.steps)
    )
    assert as_list["trajectory_divergence_index"] == 0.25
    assert compare_pair(run(), run())["step_diffs"] == []
