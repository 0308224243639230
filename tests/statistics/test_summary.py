"""summary.metrics, summary.tasks and the label-level gates over pair records, and the CLI
surfaces: --json keys, Markdown verdict lines, --max-success-drop, --fail-on-regression."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reportgen.cli import make_app
from reportgen.gating.thresholds import Threshold
from reportgen.statistics.summary import label_statistics, label_violations, task_classes
from tests.conftest import make_run

runner = CliRunner()
KEYS = {"metric", "baseline", "candidate", "delta", "ci_low", "ci_high", "p_value", "verdict",
        "n_tasks", "n_trials_baseline", "n_trials_candidate", "method"}  # fmt: skip


def _pair(task: str, trial: int, **values: Any) -> dict[str, Any]:
    totals = {"steps": 3, "wasted_steps": 0, "tokens": 100, "cost_usd": 1.0, "latency_ms": 10.0}
    pair = {
        "pair_id": f"s/{task}/n#{trial}", "task_id": task,
        "trajectory_divergence_index": 0.0, "baseline_wei": 0.0, "candidate_wei": 0.0,
        "baseline_totals": dict(totals), "candidate_totals": dict(totals),
        "baseline_success": None, "candidate_success": None,
        "baseline_reward": None, "candidate_reward": None,
    }  # fmt: skip
    pair.update(values)
    return pair


def _by_metric(pairs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    keys = {p["pair_id"]: "s/" + p["task_id"] for p in pairs}
    return {m["metric"]: m for m in label_statistics(pairs, keys)}  # type: ignore[arg-type]


def test_rewards_by_hand() -> None:
    # task a: baseline 0.5, 0.7 (mean 0.6), candidate 0.4, 0.4 (0.4): difference -0.2
    # task b: 0.8 / 0.6 -> -0.2; task c: 0.3 / 0.5 -> +0.2. Mean -0.2 / 3 = -0.0667,
    # sd of (-0.2, -0.2, 0.2) = 0.23094, se 0.13333, t(2) 4.30265: CI -0.0667 ± 0.57369
    rows = [("a", 0, 0.5, 0.4), ("a", 1, 0.7, 0.4), ("b", 0, 0.8, 0.6), ("c", 0, 0.3, 0.5)]
    pairs = [_pair(t, k, baseline_reward=b, candidate_reward=c) for t, k, b, c in rows]
    reward = _by_metric(pairs)["reward"]
    assert set(reward) >= KEYS
    assert reward["delta"] == pytest.approx(-0.2 / 3)
    assert reward["ci_low"] == pytest.approx(-0.2 / 3 - 0.57369, abs=1e-4)
    assert reward["ci_high"] == pytest.approx(-0.2 / 3 + 0.57369, abs=1e-4)
    assert (reward["n_tasks"], reward["n_trials_baseline"], reward["n_trials_candidate"]) == (
        3,
        4,
        4,
    )
    assert reward["baseline"] == pytest.approx((0.6 + 0.8 + 0.3) / 3)
    assert reward["verdict"] == "inconclusive" and reward["method"] == "paired_t_over_tasks"


def test_one_trial_a_side_uses_exact_mcnemar() -> None:
    pairs = [_pair(f"t{i}", 0, baseline_success=True, candidate_success=i >= 10) for i in range(12)]
    success = _by_metric(pairs)["success_rate"]
    assert success["method"] == "mcnemar_exact+newcombe"
    assert success["p_value_raw"] == pytest.approx(2 / 2**10)  # 10 broken, 0 fixed
    assert success["delta"] == pytest.approx(-10 / 12) and success["verdict"] == "regression"
    assert success["baseline_ci"][1] == 1.0


def test_no_change_needs_a_narrow_interval() -> None:
    many = [_pair(f"t{i}", 0, baseline_success=True, candidate_success=True) for i in range(200)]
    few = many[:3]
    assert _by_metric(many)["success_rate"]["verdict"] == "no_change"
    assert _by_metric(few)["success_rate"]["verdict"] == "inconclusive"
    assert _by_metric(many)["cost_usd"]["verdict"] == "no_change"
    assert _by_metric([])["success_rate"]["verdict"] == "inconclusive"


def test_task_classes() -> None:
    outcomes = {"fixed": [(False, True)], "broken": [(True, False), (True, False)],
                "flaky": [(True, True), (True, False)], "ok": [(True, True)],
                "bad": [(False, False)], "unsaid": [(None, True)]}  # fmt: skip
    pairs = [
        _pair(task, k, baseline_success=b, candidate_success=c)
        for task, rows in outcomes.items()
        for k, (b, c) in enumerate(rows)
    ]
    keys = {p["pair_id"]: p["task_id"] for p in pairs}
    tasks = task_classes(pairs, keys)  # type: ignore[arg-type]
    assert {k: tasks[k] for k in ("fixed", "newly_broken", "flaky", "still_passing",
            "still_failing", "unknown")} == dict.fromkeys(
        ("fixed", "newly_broken", "flaky", "still_passing", "still_failing", "unknown"), 1
    )  # fmt: skip
    assert tasks["newly_broken_tasks"] == ["broken"] and tasks["flaky_tasks"] == ["flaky"]


def test_success_drop_gate_in_points() -> None:
    pairs = [_pair(f"t{i}", 0, baseline_success=True, candidate_success=i > 0) for i in range(4)]
    metrics = list(_by_metric(pairs).values())
    broken, unknown = label_violations(
        metrics, [Threshold("success_drop", 20, "--max-success-drop")]
    )
    assert [(v["gate"], v["value"]) for v in broken] == [("success_drop", pytest.approx(25.0))]
    assert not label_violations(metrics, [Threshold("success_drop", 25, "x")])[0]
    _, unknown = label_violations(metrics, [Threshold("reward_drop", 0.1, "--max-reward-drop")])
    assert [u["gate"] for u in unknown] == ["reward_drop"]


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    """Twelve tasks, one run a side: every task passes in the baseline, ten fail after."""
    base, cand = tmp_path / "base", tmp_path / "cand"
    for folder, fails in ((base, 0), (cand, 10)):
        folder.mkdir()
        for i in range(12):
            run = make_run(f"task-{i:02d}", success=i >= fails, reward=1.0 if i >= fails else 0.2)
            (folder / f"{i}.json").write_text(json.dumps(run))
    return base, cand


def test_cli_verdicts_gates_and_exit_codes(
    folders: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    b, c = map(str, folders)
    app = make_app()
    plain = runner.invoke(app, ["compare", b, c, "--json"])
    assert plain.exit_code == 0, plain.stdout
    summary = json.loads(plain.stdout)["summary"]
    by_metric = {m["metric"]: m for m in summary["metrics"]}
    assert [m["metric"] for m in summary["metrics"]] == [
        "success_rate", "reward", "trajectory_divergence_index", "candidate_wei", "cost_usd",
        "tokens", "latency_ms", "recovery_step_ratio", "stagnant_loops", "error_rate",
    ]  # fmt: skip
    assert by_metric["success_rate"]["verdict"] == "regression"
    assert by_metric["reward"]["verdict"] == "regression"
    assert summary["regressions"] == ["success_rate", "reward"]
    assert summary["tasks"]["newly_broken"] == 10 and summary["tasks"]["still_passing"] == 2

    failed = runner.invoke(app, ["compare", b, c, "--fail-on-regression"])
    assert failed.exit_code == 3
    assert "regression (--fail-on-regression): success_rate, reward" in failed.stdout
    assert "0 failed a gate" in failed.stdout  # per-pair gates said apart

    md = runner.invoke(app, ["compare", b, c, "--markdown"]).stdout.splitlines()
    assert md[2].startswith("Worse\\: 10 tasks newly broken")  # the headline comes first
    assert md[4].startswith(
        "- success, mean over 12 tasks: 100.0 % → 16.7 % (\N{MINUS SIGN}83.3 pp, 97.5 % CI "
    )
    assert md[4].endswith("pp): regression")
    tasks = md.index("Tasks: 10 newly broken, 0 fixed, 0 flaky, 0 still failing, 2 still passing")
    assert md[tasks + 1].startswith("- newly broken: `") and "task-00" in md[tasks + 1]

    drop = runner.invoke(app, ["compare", b, c, "--json", "--max-success-drop", "50"])
    assert drop.exit_code == 3
    (violation,) = json.loads(drop.stdout)["summary"]["label_violations"]
    assert violation["gate"] == "success_drop" and violation["value"] == pytest.approx(250 / 3)
    assert runner.invoke(app, ["compare", b, c, "--max-success-drop", "90"]).exit_code == 0
    assert runner.invoke(app, ["compare", b, c, "--alpha", "1"]).exit_code == 2
    narrow = runner.invoke(app, ["compare", b, c, "--markdown", "--alpha", "0.1"]).stdout
    assert "95 % CI" in narrow  # --alpha 0.1: each of the two outcomes at 1 - 0.1 / 2
    config = tmp_path / "reportgen.toml"
    config.write_text("[cli]\nmax_reward_drop = 0.5\n")
    assert runner.invoke(app, ["compare", b, c, "--config", str(config)]).exit_code == 3


def test_divergence_is_judged_against_the_baseline_noise_floor() -> None:
    # tasks a, b, c diverge 0.5, 0.4, 0.6 from the baseline; two baseline runs of a and b
    # diverge 0.1 and 0.2 from each other (c has one baseline run: no floor, left out)
    rows = [("a", 0.5), ("b", 0.4), ("c", 0.6)]
    pairs = [_pair(t, 0, trajectory_divergence_index=tdi) for t, tdi in rows]
    keys = {p["pair_id"]: p["task_id"] for p in pairs}
    found = label_statistics(pairs, keys, {"a": 0.1, "b": 0.2})  # type: ignore[arg-type]
    tdi = next(m for m in found if m["metric"] == "trajectory_divergence_index")
    assert (tdi["n_tasks"], tdi["baseline"], tdi["candidate"]) == (2, pytest.approx(0.15), 0.45)
    assert tdi["delta"] == pytest.approx(0.3) and tdi["method"].startswith("paired_t")
    none = label_statistics(pairs, keys)  # type: ignore[arg-type]
    assert next(m for m in none if m["metric"] == "trajectory_divergence_index")["n_tasks"] == 0


def test_repeat_pairs_give_one_floor_per_task(tmp_path: Path) -> None:
    from reportgen.api import compare

    base, cand = tmp_path / "b", tmp_path / "c"
    for folder in (base, cand):
        folder.mkdir()
        for trial in range(3):
            run = make_run("t", n_steps=3 + trial, trial=trial, success=True)
            (folder / f"{trial}.json").write_text(json.dumps(run))
    comparison = compare(base, cand)
    assert len(comparison.pairs) == 3
    ((key, floor),) = comparison.repeat_tdi.items()
    assert key.endswith("/t") and 0 < floor < 1


def test_api_comes_with_statistics_and_can_fail_on_regression(folders: tuple[Path, Path]) -> None:
    from reportgen.api import RegressionError, assert_no_regressions, compare

    comparison = compare(*folders)
    assert comparison.summary()["regressions"] == ["success_rate", "reward"]
    assert_no_regressions(comparison, config=False)
    with pytest.raises(RegressionError, match="success_rate: regression"):
        assert_no_regressions(comparison, config=False, fail_on_regression=True)
