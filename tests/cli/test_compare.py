"""`reportgen compare` and `reportgen gate` end to end: files, folders, archive labels, output
modes, exit codes, and conformance cases through the whole pipeline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reportgen.cli import app
from reportgen.demo import run_demo

runner = CliRunner()


def step(action: str, status: str = "ok", **inp: Any) -> dict[str, Any]:
    return {
        "type": "tool_call",
        "action": action,
        "status": status,
        "input": inp,
        "output": "",
        "latency_ms": 100,
        "tokens_in": 50,
        "tokens_out": 25,
        "cost_usd": 0.001,
    }


def write(path: Path, task: str, steps: list[dict[str, Any]], **extra: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"task_id": task, "steps": steps, **extra}))
    return path


@pytest.fixture
def detour(tmp_path: Path) -> tuple[Path, Path]:
    """Conformance 'detour': [fetch, query, synthesize] -> [fetch, query!, extra_check, query, synthesize]."""
    base = write(tmp_path / "b.json", "t", [step("fetch"), step("query"), step("synthesize")])
    cand = write(
        tmp_path / "c.json",
        "t",
        [
            step("fetch"),
            step("query", "error"),
            step("extra_check"),
            step("query"),
            step("synthesize"),
        ],
    )
    return base, cand


def test_two_files_json_contract(detour: tuple[Path, Path]) -> None:
    result = runner.invoke(app, ["compare", str(detour[0]), str(detour[1]), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["trajectory_divergence_index"] == pytest.approx(0.25)
    assert data["candidate_wei"] == pytest.approx(0.2)
    assert (data["baseline_recovery_steps"], data["candidate_recovery_steps"]) == (0, 2)
    assert data["recovery_step_ratio"] == 2.0
    assert data["cost_delta_percentage"] == pytest.approx(66.6667, abs=1e-3)
    assert data["loops_detected"] == []
    assert [d["status"] for d in data["step_diffs"]] == [
        "matched",
        "added",
        "added",
        "matched",
        "matched",
    ]
    assert data["step_diffs"][1]["candidate_step"]["status"] == "error"
    assert data["passed"] is True and data["violations"] == [] and data["thresholds"] == []


def test_gate_fails_with_exit_3_and_report_still_printed(detour: tuple[Path, Path]) -> None:
    result = runner.invoke(
        app, ["compare", str(detour[0]), str(detour[1]), "--json", "--max-recovery-ratio", "1.5"]
    )
    assert result.exit_code == 3
    data = json.loads(result.stdout)
    assert data["passed"] is False
    assert (
        data["violations"][0]["gate"] == "recovery_ratio"
        and data["violations"][0]["source"] == "--max-recovery-ratio"
    )
    assert "failed a gate" in result.stderr
    ok = runner.invoke(
        app, ["compare", str(detour[0]), str(detour[1]), "--max-recovery-ratio", "2.0"]
    )
    assert ok.exit_code == 0  # equal passes


def test_config_file_thresholds_and_unknown_key(detour: tuple[Path, Path], tmp_path: Path) -> None:
    config = tmp_path / "reportgen.toml"
    config.write_text("[cli]\nmax_cost_delta = 50\n")
    result = runner.invoke(
        app, ["compare", str(detour[0]), str(detour[1]), "--config", str(config), "--json"]
    )
    assert result.exit_code == 3
    assert json.loads(result.stdout)["thresholds"][0]["source"] == f"{config} [cli] max_cost_delta"
    config.write_text("[cli]\nmax_cost = 50\n")
    result = runner.invoke(
        app, ["compare", str(detour[0]), str(detour[1]), "--config", str(config)]
    )
    assert result.exit_code == 2 and "unknown key 'max_cost'" in result.stderr


def test_explain_and_tree(detour: tuple[Path, Path]) -> None:
    result = runner.invoke(app, ["compare", str(detour[0]), str(detour[1]), "--explain", "--tree"])
    assert result.exit_code == 0
    text = result.stdout
    assert (
        "Trajectory divergence 0.2500 = 1 - 2 x 3 aligned steps / (3 baseline + 5 candidate steps)"
        in text
    )
    assert (
        "First divergence at step 2 of the path (the first 2 step(s) take the same path):"
        " baseline step #2 synthesize vs candidate step #2 extra_check" in text
    )
    assert (
        "Recovery step ratio 2.0000 = 2 (the baseline needed no recovery, so the raw candidate count)"
        in text
    )
    assert "Likely culprit: candidate step #1 query (error)" in text
    tree_lines = [" ".join(line.split()) for line in text.splitlines()]
    # the tree matches as early as possible: the failed query lines up with the baseline's
    assert "~ b#1 c#1 query [error]" in tree_lines and "+ c#2 extra_check [ok]" in tree_lines
    assert "+ c#3 query [ok]" in tree_lines and "b#2 c#4 synthesize [ok]" in tree_lines


def test_markdown(detour: tuple[Path, Path]) -> None:
    result = runner.invoke(app, ["compare", str(detour[0]), str(detour[1]), "--markdown"])
    assert result.exit_code == 0
    assert result.stdout.startswith("### reportgen: no gates set")  # never a plain pass without one
    assert "| pair | TDI |" in result.stdout


def test_zero_baseline_delta_is_null_with_note(tmp_path: Path) -> None:
    free = [dict(step("a"), cost_usd=0), dict(step("b"), cost_usd=0)]
    base = write(tmp_path / "b.json", "t", free)
    cand = write(tmp_path / "c.json", "t", [step("a"), step("b")])
    data = json.loads(runner.invoke(app, ["compare", str(base), str(cand), "--json"]).stdout)
    assert data["cost_delta_percentage"] is None and data["cost_delta_note"]
    assert data["token_delta_percentage"] == 0.0


def test_folders_pair_by_task_and_list_unpaired(tmp_path: Path) -> None:
    for side in ("base", "cand"):
        write(tmp_path / side / "x.json", "x", [step("a"), step("b")])
    write(tmp_path / "base" / "only-base.json", "y", [step("a")])
    write(tmp_path / "cand" / "only-cand.json", "z", [step("a")])
    result = runner.invoke(
        app, ["compare", str(tmp_path / "base"), str(tmp_path / "cand"), "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [p["task_id"] for p in data["pairs"]] == ["x"]
    assert sorted((u["side"], u["task_id"]) for u in data["unpaired"]) == [
        ("baseline", "y"),
        ("candidate", "z"),
    ]
    assert data["summary"]["unpaired"] == 2


def test_same_run_ids_on_both_sides_stay_apart(tmp_path: Path) -> None:
    base = write(tmp_path / "b.json", "t", [step("a")], run_id="r1")
    cand = write(tmp_path / "c.json", "t", [step("a"), step("b")], run_id="r1")
    data = json.loads(runner.invoke(app, ["compare", str(base), str(cand), "--json"]).stdout)
    assert data["trajectory_divergence_index"] == pytest.approx(1 - 2 / 3)


def test_usage_errors(detour: tuple[Path, Path], tmp_path: Path) -> None:
    assert runner.invoke(app, ["compare", str(detour[0])]).exit_code == 2
    assert (
        runner.invoke(
            app, ["compare", str(detour[0]), str(detour[1]), "--max-loops", "x"]
        ).exit_code
        == 2
    )
    assert (
        runner.invoke(app, ["compare", str(detour[0]), str(tmp_path / "missing.json")]).exit_code
        == 1
    )


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db, _, _ = run_demo(tmp_path_factory.mktemp("demo"))
    return db


def test_gate_on_archive_latest_night(demo_db: Path) -> None:
    result = runner.invoke(app, ["gate", "--db", str(demo_db), "--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["summary"]["pairs"] == 24 and all(
        p["pair_id"].endswith(("2026-11-28",)) or "#" in p["pair_id"] for p in data["pairs"]
    )
    failing = runner.invoke(app, ["gate", "--db", str(demo_db), "--max-loops", "0", "--json"])
    assert failing.exit_code == 3
    failed = json.loads(failing.stdout)["summary"]["failed_pairs"]
    assert failed == ["nightly/fix-login/2026-11-28"]


def test_gate_all_batches_and_compare_labels(demo_db: Path) -> None:
    data = json.loads(
        runner.invoke(app, ["gate", "--db", str(demo_db), "--batch", "all", "--json"]).stdout
    )
    assert data["summary"]["pairs"] == 144
    result = runner.invoke(
        app, ["compare", "--db", str(demo_db), "--batch", "2026-11-23", "--json"]
    )
    assert json.loads(result.stdout)["summary"]["pairs"] == 24


def test_gate_min_convergence(demo_db: Path, tmp_path: Path) -> None:
    base = ["gate", "--db", str(demo_db), "--json"]
    loose = runner.invoke(app, [*base, "--min-convergence", "0"])
    assert loose.exit_code == 0
    groups = json.loads(loose.stdout)["convergence"]
    assert groups["groups"] == 3 and groups["violations"] == []
    strict = runner.invoke(app, [*base, "--min-convergence", "0.5"])
    assert strict.exit_code == 3
    (violation,) = json.loads(strict.stdout)["convergence"]["violations"]
    assert violation["task_id"] == "triage-bug-report" and violation["value"] < 0.5
    at = runner.invoke(app, [*base, "--min-convergence", str(violation["value"])])
    assert at.exit_code == 0  # equal passes, as in agent-convergence-scorer
    assert runner.invoke(app, [*base, "--min-convergence", "1.5"]).exit_code == 2
    config = tmp_path / "reportgen.toml"
    config.write_text("[cli]\nmin_convergence = 0.5\n")
    from_config = runner.invoke(app, [*base, "--config", str(config)])
    assert from_config.exit_code == 3
    assert (
        json.loads(from_config.stdout)["convergence"]["source"] == f"{config} [cli] min_convergence"
    )


POLY = (
    Path(__file__).resolve().parents[2].parent
    / "shared/data/swe-bench-experiments/swe-polybench/evaluation/PBVerified"
)


def test_a_regression_is_never_a_plain_pass() -> None:
    """iSWE-Agent against Kodah on the same 69 SWE-PolyBench tasks: success drops by 18.8
    points and 14 tasks break. Without a gate the report says no gates were set and what it
    found; with a gate that passes it says the gates passed and what it found; only a failed
    gate says failed. Never a green tick."""
    if not POLY.is_dir():
        pytest.skip(f"{POLY} is missing (the shared real data)")
    sides = [str(POLY / "20260201_iswe_agent"), str(POLY / "20260430_kodah_gpt-5-mini")]
    cases = {
        (): ("### reportgen: ⚠️ no gates set; found 3 regression(s)", "NO GATES SET", 0),
        ("--max-loops", "100"): ("### reportgen: ⚠️ passed its gates; found", "PASSED", 0),
        ("--max-success-drop", "5"): ("### reportgen: ❌ failed", "FAILED", 3),
    }
    for flags, (head, word, code) in cases.items():
        result = runner.invoke(app, ["compare", *sides, *flags, "--markdown"])
        assert result.exit_code == code, result.output
        assert result.stdout.startswith(head), result.stdout[:200]
        assert "✅" not in result.stdout
        line = next(x for x in result.stdout.splitlines() if x.startswith(word + ":"))
        if code == 0:
            assert "Found: 3 regression(s)" in line and "14 task(s) newly broken" in line
        data = json.loads(runner.invoke(app, ["compare", *sides, *flags, "--json"]).stdout)
        assert data["summary"]["gates_set"] is bool(flags)
        assert data["summary"]["paired_by"] == ["suite", "task"]  # one leaderboard split


def test_explain_leads_each_pair_with_its_why(tmp_path: Path) -> None:
    """--explain prints the pair page's why panel in words first (P18): goal, outcomes and
    the scorer's reason, both final answers, the first divergence and the first error; agent
    text never starts a line."""
    from reportgen.ingest import ingest
    from tests.site.why_pair import ERROR, SCORER, write_traces

    db = tmp_path / "db.duckdb"
    ingest([write_traces(tmp_path / "traces")], db)
    for command in ("compare", "gate"):
        result = runner.invoke(app, [command, "--db", str(db), "--explain"])
        assert result.exit_code == 0, result.output
        lines = result.stdout.splitlines()
        start = next(n for n, line in enumerate(lines) if line.startswith("== "))
        why = lines[start + 1 : next(n for n, x in enumerate(lines) if x.startswith("Trajectory"))]
        assert why[0] == "Goal: Answer the customer's question about refunds."
        assert why[1].startswith("  | Rule 1:") and "more line(s)" in why[4]
        assert "Outcome: baseline success (reward 1), candidate failure (reward 0)." in why
        assert f"Scorer (candidate): {SCORER}" in why
        assert "Final answer (baseline): Refunds are issued within 30 days of the request." in why
        assert any(
            x.startswith("Final answer (candidate): Refunds are issued within 60") for x in why
        )
        assert any(x.startswith("  First divergence at step 1 of the path") for x in lines)
        assert f"First error (candidate step #1 open_policy): {ERROR}" in why
        assert not any(x.lstrip().startswith(("<", "::")) for x in lines)
