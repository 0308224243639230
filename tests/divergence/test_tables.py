"""Terminal and Markdown tables of many pairs: capped, regressions first, steps only on demand."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from rich.console import Console

from reportgen.archive.connection import connect
from reportgen.divergence import tables as compare_tables
from reportgen.divergence.compare import Comparison, compare_pairing
from reportgen.divergence.metrics import insert_runs
from reportgen.divergence.pairing import pair_runs
from reportgen.divergence.reference import Run, Step
from reportgen.divergence.tables import markdown, print_terminal


def fake_pair(n: int, tdi: float, passed: bool) -> dict[str, Any]:
    return {
        "pair_id": f"p{n:05d}",
        "trajectory_divergence_index": tdi,
        "baseline_wei": 0.0,
        "candidate_wei": 0.0,
        "loops_detected": [],
        "recovery_step_ratio": 0.0,
        "cost_delta_percentage": None,
        "token_delta_percentage": 1.0,
        "latency_delta_percentage": -1.0,
        "passed": passed,
        "violations": [] if passed else [{"gate": "divergence"}],
    }


def many(n: int, failing: set[int]) -> Comparison:
    pairs = [fake_pair(i, (i % 97) / 100, i not in failing) for i in range(n)]
    return Comparison(pairs, [], [])


def terminal(comparison: Comparison) -> str:
    buffer = io.StringIO()
    print_terminal(Console(file=buffer, width=200), comparison)
    return buffer.getvalue()


def test_terminal_shows_failures_first_then_the_most_divergent() -> None:
    failing = {3, 5000, 9999}
    text = terminal(many(10_000, failing))
    rows = [line for line in text.splitlines() if "│ p" in line]
    assert len(rows) == compare_tables.TERMINAL_ROWS
    assert all("FAIL" in r for r in rows[:3]) and not any("FAIL" in r for r in rows[3:])
    assert "0.960" in rows[3]  # then the highest TDI
    assert f"... {10_000 - compare_tables.TERMINAL_ROWS} more pair(s) not shown (all passed" in text
    assert (
        "FAILED: 10000 pair(s) compared (two single runs, paired as given), 3 failed a gate" in text
    )


def test_markdown_is_capped_and_says_how_many_failures_it_leaves_out() -> None:
    limit = compare_tables.MARKDOWN_ROWS
    failing = set(range(limit + 7))
    text = markdown(many(10_000, failing))
    assert sum(1 for line in text.splitlines() if line.startswith("| p0")) == limit
    assert f"... {10_000 - limit} more pair(s) not shown (7 failed a gate;" in text
    assert len(text) < 65_536  # fits a GitHub PR comment


def test_few_pairs_are_all_shown_without_a_note() -> None:
    text = terminal(many(5, set()))
    assert "not shown" not in text
    assert "not shown" not in markdown(many(5, set()))


def test_steps_are_attached_only_on_demand(tmp_path: Path) -> None:
    con = connect(None)
    runs = {
        "b": Run((Step("tool_call", "a", {"x": 1}, "o"), Step("tool_call", "b"))),
        "c": Run((Step("tool_call", "a", {"x": 2}, "o"),)),
    }
    insert_runs(con, runs)
    pairing = pair_runs(con, ["b"], ["c"], same_batch=False)
    bare = compare_pairing(con, pairing, with_steps=False)
    assert all("baseline_step" not in row for row in bare.pairs[0]["step_diffs"])
    seen: list[tuple[str, int, int]] = []
    full = compare_pairing(con, pairing, progress=lambda *a: seen.append(a))
    rows = full.pairs[0]["step_diffs"]
    assert rows[0]["baseline_step"]["input"] == {"x": 1}
    assert rows[0]["candidate_step"]["input"] == {"x": 2}
    assert rows[1]["baseline_step"]["action"] == "b" and rows[1]["candidate_step"] is None
    assert seen == [("computing metrics", 1, 1)]


def test_a_broken_outcome_comes_before_more_divergent_unchanged_pairs() -> None:
    """Failed gates first, then pairs that passed on the baseline and fail on the candidate,
    then the most divergent: a newly broken task never sits below unchanged ones."""
    calm = fake_pair(1, 0.9, True) | {"baseline_success": True, "candidate_success": True}
    broke = fake_pair(2, 0.1, True) | {"baseline_success": True, "candidate_success": False}
    fixed = fake_pair(3, 0.5, True) | {"baseline_success": False, "candidate_success": True}
    gated = fake_pair(4, 0.0, False)
    text = markdown(Comparison([calm, broke, fixed, gated], [], []))  # type: ignore[list-item]
    rows = [
        line.split(" | ")[0].lstrip("| ") for line in text.splitlines() if line.startswith("| p0")
    ]
    assert rows == ["p00004", "p00002", "p00001", "p00003"]
