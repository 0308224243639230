"""convergence_report, the gate helper and the page data, on a small hand-made archive.

Trajectory numbers are checked against a slow LCS written here (a plain DP table)."""

from __future__ import annotations

import json
import math
from typing import Any

import duckdb
import pytest

from reportgen.archive import connect
from reportgen.convergence import score_runs
from reportgen.convergence.archive import (
    GroupConvergence,
    convergence_gate,
    convergence_report,
    group_convergence,
    history_series,
    page_data,
)

Step = tuple[str, str, tuple[str, ...]]
READ: Step = ("tool", "read_file", ("path",))
EDIT: Step = ("tool", "edit_file", ("path", "text"))
TEST: Step = ("tool", "run_tests", ())
SEARCH: Step = ("tool", "search", ("q",))

# (run_id, task, batch, trial, output, steps or None = no trace, success, reward)
RUNS: list[tuple[str | None, str, str, int, str, list[Step] | None, bool | None, float | None]] = [
    ("r0", "fix", "b1", 0, "Fix applied", [READ, EDIT, TEST], True, None),
    ("r1", "fix", "b1", 1, "fix applied", [READ, EDIT, TEST], True, None),
    ("r2", "fix", "b1", 2, "fix applied to login", [READ, TEST], False, None),
    ("r3", "fix", "b1", 3, "could not fix it", [SEARCH, READ, EDIT, TEST, TEST], None, 1.0),
    ("r4", "fix", "b1", 4, "fix applied", None, None, None),  # an output without a trace
    ("r5", "fix", "b2", 0, "done", [], None, None),
    ("r6", "fix", "b2", 1, "done", [], None, None),
    (None, "plan", "b1", 0, "plan A", None, None, None),  # outputs file: no run ids
    (None, "plan", "b1", 1, "plan B", None, None, None),
    ("r9", "lonely", "b1", 0, "single output, no group", [READ], True, None),
]


def make_archive() -> duckdb.DuckDBPyConnection:
    con = connect()
    for run_id, task, batch, trial, output, steps, success, reward in RUNS:
        con.execute(
            "INSERT INTO outputs VALUES (?, 's', 'L', ?, ?, ?, ?, 'f', 'h')",
            [run_id, task, batch, trial, output],
        )
        if steps is None:
            continue
        con.execute(
            "INSERT INTO runs (run_id, suite, label, task_id, batch, trial, output, success, "
            "reward, n_steps, format, source_file, content_hash) "
            "VALUES (?, 's', 'L', ?, ?, ?, ?, ?, ?, ?, 'native', 'f', 'h')",
            [run_id, task, batch, trial, output, success, reward, len(steps)],
        )
        for idx, (type_, action, keys) in enumerate(steps):
            con.execute(
                "INSERT INTO steps (run_id, idx, type, action, input_keys, status) "
                "VALUES (?, ?, ?, ?, ?, 'ok')",
                [run_id, idx, type_, action, list(keys)],
            )
    return con


def slow_lcs(a: list[Step], b: list[Step]) -> int:
    dp = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a)):
        for j in range(len(b)):
            dp[i + 1][j + 1] = dp[i][j] + 1 if a[i] == b[j] else max(dp[i][j + 1], dp[i + 1][j])
    return dp[-1][-1]


def slow_tdi(a: list[Step], b: list[Step]) -> float:
    return 0.0 if not a and not b else 1.0 - 2.0 * slow_lcs(a, b) / (len(a) + len(b))


@pytest.fixture(scope="module")
def report() -> list[GroupConvergence]:
    return convergence_report(make_archive())


def test_groups_and_scorer_numbers(report: list[GroupConvergence]) -> None:
    assert [g.key for g in report] == [
        ("s", "L", "fix", "b1"),
        ("s", "L", "fix", "b2"),
        ("s", "L", "plan", "b1"),
    ]
    fix = report[0]
    assert fix.run_ids == ["r0", "r1", "r2", "r3", "r4"]
    outputs = [r[4] for r in RUNS[:5]]
    assert fix.scores() == score_runs(outputs)
    archive = group_convergence(make_archive())
    assert [
        {k: v for k, v in row.items() if k not in ("suite", "label", "task_id", "batch")}
        for row in archive
    ] == [g.scores() for g in report]


def test_output_matrix_and_medoid(report: list[GroupConvergence]) -> None:
    fix = report[0]
    sets = [set(r[4].lower().split()) for r in RUNS[:5]]
    for i in range(5):
        for j in range(5):
            expected = 1.0 if i == j else len(sets[i] & sets[j]) / len(sets[i] | sets[j])
            assert fix.output_similarity[i][j] == expected
    totals = [sum(row) for row in fix.output_similarity]
    assert fix.output_medoid == totals.index(max(totals))


def test_trajectory(report: list[GroupConvergence]) -> None:
    path = report[0].trajectory
    assert path is not None
    steps = [r[5] for r in RUNS[:4]]
    pairs = {
        (i, j): slow_tdi(steps[i] or [], steps[j] or []) for i in range(4) for j in range(i + 1, 4)
    }
    assert path.runs_with_path == 4
    assert path.mean_tdi == pytest.approx(sum(pairs.values()) / len(pairs))
    totals = [sum(v for k, v in pairs.items() if i in k) for i in range(4)]
    assert path.medoid == totals.index(min(totals)) and path.medoid_run_id == "r0"
    assert path.distinct_paths == 3
    for (i, j), t in pairs.items():
        assert path.similarity[i][j] == pytest.approx(1.0 - t)
    assert path.similarity[4] == [None] * 5  # r4 has no trace
    empty = report[1].trajectory  # two runs without steps: TDI 0, one path
    assert empty is not None and (empty.mean_tdi, empty.distinct_paths) == (0.0, 1)
    assert report[2].trajectory is None  # outputs only


def test_outliers_and_outcomes(report: list[GroupConvergence]) -> None:
    fix = report[0]
    assert {(o.run_id, o.measure) for o in fix.outliers} >= {("r3", "output")}
    outcomes = fix.outcomes
    assert outcomes is not None
    assert (outcomes.runs_with_outcome, outcomes.passes, outcomes.mean_reward) == (4, 3, 1.0)
    assert outcomes.pass_at_k[0] == pytest.approx(0.75)
    assert outcomes.pass_hat_k[3] == 0.0
    assert report[2].outcomes is None


def test_json_and_filters(report: list[GroupConvergence]) -> None:
    json.dumps([g.as_dict() for g in report])
    con = make_archive()
    assert [g.key for g in convergence_report(con, batch="b2")] == [("s", "L", "fix", "b2")]
    assert convergence_report(con, label="other") == []


def test_gate(report: list[GroupConvergence]) -> None:
    scores = sorted(g.convergence_score for g in report)
    assert convergence_gate(report, scores[0]) == []  # equal passes
    bad = convergence_gate(report, math.nextafter(scores[0], 1.0))
    assert len(bad) == 1 and bad[0]["value"] == scores[0]
    assert bad[0]["metric"] == "convergence_score" and "convergence_score" in bad[0]["message"]
    rows: list[dict[str, Any]] = group_convergence(make_archive())
    assert [v["task_id"] for v in convergence_gate(rows, 1.0)] == [
        v["task_id"] for v in convergence_gate(report, 1.0)
    ]
    for wrong in (float("nan"), float("inf"), -0.1, 1.1):
        with pytest.raises(ValueError):
            convergence_gate(report, wrong)


def test_page_data() -> None:
    page = page_data(make_archive(), ("s", "L", "fix", "b1"))
    json.dumps(page)
    assert page["group"] == {"suite": "s", "label": "L", "task_id": "fix", "batch": "b1"}
    assert page["scores"]["divergence_point"]["token_position"] == 0
    assert [r["divergence_index"] for r in page["runs"]] == [0, 0, 0, 0, 0]
    assert page["runs"][0]["tokens"] == ["Fix", "applied"]
    assert page["matrix"]["labels"] == ["r0", "r1", "r2", "r3", "r4"]
    assert len(page["matrix"]["trajectory_similarity"]) == 5
    assert sum(r["is_trajectory_medoid"] for r in page["runs"]) == 1
    plan = page_data(make_archive(), {"suite": "s", "label": "L", "task_id": "plan", "batch": "b1"})
    assert plan["matrix"]["labels"] == ["trial 0", "trial 1"]
    assert plan["trajectory"] is None
    with pytest.raises(KeyError):
        page_data(make_archive(), ("s", "L", "lonely", "b1"))


def test_history() -> None:
    series = history_series(make_archive())
    assert [(s["task_id"], [p["batch"] for p in s["points"]]) for s in series] == [
        ("fix", ["b1", "b2"]),
        ("plan", ["b1"]),
    ]
    assert series[0]["points"][1]["convergence_score"] == 1.0
