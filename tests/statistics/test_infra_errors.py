"""Runs the infrastructure ended (runs.error_kind) are not the agent's failures: no metric but
the error rate scores them, no task is newly broken by them, and an error rate significantly
up reads "broken infrastructure", not "worse agent".

The acceptance night: 40 tasks, one run a side; the baseline passes 30. The candidate behaves
like the baseline, except that 12 of its runs (30 %), all on tasks the baseline passed, died
setting up their environment."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from reportgen.cli import make_app
from reportgen.ingest import ingest
from reportgen.statistics.summary import label_statistics, task_classes

runner = CliRunner()
NIGHT = "2026-11-28"
TASKS = 40
BASELINE_PASSES = 30
ERRORED = 12  # the candidate's runs on tasks 0..11, each passed by the baseline


def _steps(n: int) -> list[dict[str, Any]]:
    return [{"type": "tool", "action": f"a{j}", "status": "ok", "cost_usd": 0.01,
             "tokens_in": 100, "latency_ms": 50} for j in range(n)]  # fmt: skip


def _night(folder: Path, *, as_errors: bool) -> Path:
    """The night as native trace v1 files (one .jsonl a label), ingested into an archive."""
    files = []
    for label in ("baseline", "candidate"):
        runs = []
        for i in range(TASKS):
            run: dict[str, Any] = {"task_id": f"task-{i:02d}", "label": label, "batch": NIGHT,
                                   "success": i < BASELINE_PASSES, "steps": _steps(4)}  # fmt: skip
            if label == "candidate" and i < ERRORED:
                run["steps"] = [{"type": "tool", "action": "setup", "status": "error",
                                 "error": "docker pull: connection reset"}]  # fmt: skip
                run["success"] = False
                if as_errors:
                    run["success"] = None
                    run["meta"] = {
                        "error_kind": "environment",
                        "error_reason": "docker pull: connection reset by peer",
                    }
            runs.append(run)
        path = folder / f"{label}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in runs), encoding="utf-8")
        files.append(path)
    db = folder / "night.duckdb"
    ingest(files, db)
    return db


def _gate(db: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    result = runner.invoke(make_app(), ["gate", "--db", str(db), "--json", *extra])
    return result.exit_code, json.loads(result.stdout)


@pytest.fixture(scope="module")
def errored_night(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _night(tmp_path_factory.mktemp("errors"), as_errors=True)


def test_errored_night_is_no_agent_regression_but_broken_infrastructure(
    errored_night: Path,
) -> None:
    """``gate --fail-on-regression``: exit 0 (the agent did not regress; the error rate is
    not the agent's regression), the headline flags the infrastructure."""
    code, out = _gate(errored_night, "--fail-on-regression")
    summary = out["summary"]
    assert code == 0, out
    metrics = {m["metric"]: m for m in summary["metrics"]}
    assert summary["regressions"] == []
    assert summary["tasks"]["newly_broken"] == 0
    assert summary["tasks"]["unknown"] == ERRORED  # no outcome on the candidate's side
    success = metrics["success_rate"]
    assert (success["n_tasks"], success["delta"]) == (TASKS - ERRORED, 0.0)
    errors = metrics["error_rate"]
    assert (errors["baseline"], errors["candidate"]) == (0.0, 0.3)
    assert (errors["baseline_errored"], errors["candidate_errored"]) == (0, ERRORED)
    assert errors["error_kinds"] == {"baseline": {}, "candidate": {"environment": ERRORED}}
    assert errors["verdict"] == "regression" and errors["family"] == "infrastructure"
    assert errors["pairs_not_scored"] == ERRORED
    assert summary["headline"].startswith("No significant change.")
    assert (
        "Broken infrastructure, not a worse agent: errored runs 0.0 % → 30.0 %"
        in (summary["headline"])
    )
    assert "12 runs errored (12 environment), not scored." in summary["headline"]
    print(summary["headline"])


def test_max_error_rate_fails_the_errored_night(errored_night: Path) -> None:
    code, out = _gate(errored_night, "--fail-on-regression", "--max-error-rate", "10")
    assert code == 3
    (violation,) = out["summary"]["label_violations"]
    assert violation["gate"] == "error_rate" and violation["value"] == pytest.approx(30.0)
    assert _gate(errored_night, "--max-error-rate", "30")[0] == 0  # equal passes


def test_the_same_runs_as_plain_failures_fail_the_gate(tmp_path: Path) -> None:
    code, out = _gate(_night(tmp_path, as_errors=False), "--fail-on-regression")
    summary = out["summary"]
    assert code == 3
    assert summary["regressions"][0] == "success_rate"
    assert summary["tasks"]["newly_broken"] == ERRORED
    assert summary["headline"].startswith("Worse: 12 tasks newly broken")
    assert "errored" not in summary["headline"]


# ---- the metric by hand ---------------------------------------------------------------------


TOTALS = {"cost_usd": None, "tokens": None, "latency_ms": None}


def _pair(task: str, trial: int, b: Any, c: Any) -> dict[str, Any]:
    """A pair; a side is True/False (passed, failed) or an error kind (errored)."""

    def side(name: str, value: Any) -> dict[str, Any]:
        kind = value if isinstance(value, str) else None
        return {f"{name}_run_id": f"{name}-{task}-{trial}", f"{name}_error_kind": kind,
                f"{name}_success": None if kind else value}  # fmt: skip

    return {"pair_id": f"{task}#{trial}", "task_id": task, **side("baseline", b),
            **side("candidate", c), "baseline_totals": TOTALS,
            "candidate_totals": TOTALS}  # fmt: skip


def _metrics(pairs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {m["metric"]: m for m in label_statistics(pairs, {})}  # type: ignore[arg-type]


def test_error_rate_by_hand() -> None:
    """Baseline 1 of 10 runs errored, candidate 4 of 10: 10 % → 40 %. Wilson (95 %) of 4/10:
    z = 1.959964, z² = 3.841459, centre (4 + z²/2) / (10 + z²) = 5.920729 / 13.841459 =
    0.427751, half z √(10·0.4·0.6 + z²/4) / 13.841459 = 1.959964 · 1.833130 / 13.841459 =
    0.259574: [0.168177, 0.687325]; of 1/10: centre 0.211013, half 0.193137:
    [0.017876, 0.404150]. Newcombe: δ = 0.3;
    low = 0.3 - √((0.4 - 0.168177)² + (0.404150 - 0.1)²) = 0.3 - 0.382425 = -0.082425;
    high = 0.3 + √((0.687325 - 0.4)² + (0.1 - 0.017876)²) = 0.3 + 0.298831 = 0.598831.
    Fisher's exact two-sided p of [[4, 6], [1, 9]]: the tables at least as unlikely (4, 5, 0
    or 1 errored candidate runs of the 5) weigh (2100 + 252 + 252 + 2100) / C(20, 5) =
    4704 / 15504 = 0.303406: inconclusive."""
    outcomes = [("env" if i < 4 else True, "rate_limit" if i < 1 else True) for i in range(10)]
    pairs = [_pair(f"t{i}", 0, b, c) for i, (c, b) in enumerate(outcomes)]
    found = _metrics(pairs)["error_rate"]
    assert (found["baseline"], found["candidate"], found["delta"]) == pytest.approx((0.1, 0.4, 0.3))
    assert found["candidate_ci"] == pytest.approx([0.168177, 0.687325], abs=1e-5)
    assert found["baseline_ci"] == pytest.approx([0.017876, 0.404150], abs=1e-5)
    assert (found["ci_low"], found["ci_high"]) == pytest.approx((-0.082425, 0.598831), abs=1e-5)
    assert found["p_value"] == pytest.approx(4704 / 15504)
    assert found["verdict"] == "inconclusive"
    assert found["error_kinds"] == {"baseline": {"rate_limit": 1}, "candidate": {"env": 4}}
    assert found["pairs_not_scored"] == 4  # t0 errored on both sides


def test_errored_runs_are_never_failures() -> None:
    """A task whose candidate errored is not newly broken (unknown); one with a failure beside
    an errored trial is still_failing, not flaky; success counts the scored pairs only."""
    pairs = [
        _pair("a", 0, True, "sandbox"),  # passed, then errored: unknown, not newly broken
        _pair("b", 0, True, False),  # newly broken
        _pair("c", 0, False, False),
        _pair("c", 1, False, "timeout"),  # the errored trial does not make c flaky
        _pair("d", 0, True, True),
    ]
    tasks = task_classes(pairs, {})  # type: ignore[arg-type]
    assert (tasks["newly_broken_tasks"], tasks["unknown"], tasks["flaky"]) == (["b"], 1, 0)
    assert tasks["still_failing"] == 1
    success = _metrics(pairs)["success_rate"]
    assert (success["n_tasks"], success["n_trials_candidate"]) == (3, 3)


# ---- the metric against a slow reference ---------------------------------------------------


def _slow_error_rate(runs_b: list[bool], runs_c: list[bool]) -> tuple[float, float, float]:
    """Each side's share of errored runs and their Wilson intervals, from the formula, one
    run at a time (no scipy)."""
    z = 1.959963984540054

    def wilson(x: int, n: int) -> tuple[float, float]:
        p = x / n
        centre = (x + z * z / 2) / (n + z * z)
        half = z * math.sqrt(n * p * (1 - p) + z * z / 4) / (n + z * z)
        return centre - half, centre + half

    x_b = x_c = 0
    for e in runs_b:
        x_b += 1 if e else 0
    for e in runs_c:
        x_c += 1 if e else 0
    n = len(runs_b)
    lb, ub = wilson(x_b, n)
    lc, uc = wilson(x_c, n)
    p_b, p_c = x_b / n, x_c / n
    delta = p_c - p_b
    return (delta, delta - math.hypot(p_c - lc, ub - p_b), delta + math.hypot(uc - p_c, p_b - lb))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.sampled_from([True, False])),
                min_size=1, max_size=40))  # fmt: skip
def test_error_rate_matches_a_slow_reference(rows: list[tuple[bool, bool, bool]]) -> None:
    pairs = [_pair(f"t{i % 7}", i, "network" if b else ok, "quota" if c else ok)
             for i, (b, c, ok) in enumerate(rows)]  # fmt: skip
    found = _metrics(pairs)["error_rate"]
    delta, low, high = _slow_error_rate([b for b, _, _ in rows], [c for _, c, _ in rows])
    assert found["delta"] == pytest.approx(delta, abs=1e-9)
    assert (found["ci_low"], found["ci_high"]) == pytest.approx((low, high), abs=1e-7)
    assert found["candidate_errored"] == sum(c for _, c, _ in rows)
    worse = found["verdict"] == "regression"
    assert worse == (low > 0)
