"""``--max-avoidable-cost``: a pair metric like --max-identical-calls, so compare, gate, the
[cli] key, the pytest option and assert_no_regressions all take it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import reportgen
from reportgen.api import RegressionError
from reportgen.cli import make_app
from reportgen.gating import pair_metrics

runner = CliRunner()


def _write(path: Path, repeats: int) -> Path:
    """A native run of task t1: one model call ($0.04) issuing 1 + ``repeats`` identical calls."""
    calls = [{"type": "tool", "action": "Glob", "status": "ok", "input": {"p": "*"},
              "output": "a", "parent": 0} for _ in range(repeats + 1)]  # fmt: skip
    steps = [{"type": "llm", "action": "m", "status": "ok", "tokens_in": 10, "cost_usd": 0.04}]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"task_id": "t1", "steps": steps + calls}))
    return path


def test_max_avoidable_cost_gate(tmp_path: Path) -> None:
    base = _write(tmp_path / "baseline" / "r.json", 0)
    cand = _write(tmp_path / "candidate" / "r.json", 3)  # 3 repeats of 4 calls: 3 x $0.01
    assert "avoidable_cost" in {m.name for m in pair_metrics()}
    app = make_app()
    out = runner.invoke(app, ["compare", str(base), str(cand), "--json"])
    assert out.exit_code == 0, out.output
    pair = json.loads(out.stdout)
    assert pair["baseline_avoidable_cost_usd"] == 0.0
    assert pair["candidate_avoidable_cost_usd"] == pytest.approx(0.03)
    failed = runner.invoke(app, ["compare", str(base), str(cand), "--max-avoidable-cost", "0.02"])
    assert failed.exit_code == 3, failed.output
    passed = runner.invoke(app, ["compare", str(base), str(cand), "--max-avoidable-cost", "0.05"])
    assert passed.exit_code == 0, passed.output
    config = tmp_path / "reportgen.toml"
    config.write_text("[cli]\nmax_avoidable_cost = 0.01\n")
    by_config = runner.invoke(app, ["compare", str(base), str(cand), "--config", str(config)])
    assert by_config.exit_code == 3, by_config.output
    comparison = reportgen.compare(base, cand)
    with pytest.raises(RegressionError, match="avoidable"):
        reportgen.assert_no_regressions(comparison, max_avoidable_cost=0.02, config=False)
    reportgen.assert_no_regressions(comparison, max_avoidable_cost=0.05, config=False)
    assert "--max-avoidable-cost" in runner.invoke(app, ["gate", "--help"]).stdout


def test_gate_on_an_archive(tmp_path: Path) -> None:
    base = _write(tmp_path / "runs" / "baseline" / "r.json", 0)
    cand = _write(tmp_path / "runs" / "candidate" / "r.json", 2)  # $0.04 / 3 x 2 avoidable
    db = tmp_path / "a.duckdb"
    app = make_app()
    assert runner.invoke(app, ["ingest", str(base), str(cand), "--db", str(db)]).exit_code == 0
    failed = runner.invoke(app, ["gate", "--db", str(db), "--max-avoidable-cost", "0.02", "--json"])
    assert failed.exit_code == 3, failed.output
    data = json.loads(failed.stdout)
    assert data["candidate_avoidable_cost_usd"] == pytest.approx(0.04 / 3 * 2)
    assert [v["gate"] for v in data["violations"]] == ["avoidable_cost"]
    passed = runner.invoke(app, ["gate", "--db", str(db), "--max-avoidable-cost", "0.03"])
    assert passed.exit_code == 0, passed.output


def test_latency_past_duckdb_times_is_no_crash(tmp_path: Path) -> None:
    """A latency of 1e16 ms is valid input; the end time it gives is past what DuckDB's times
    hold, so it counts as unknown instead of failing the comparison (it raised an interval
    out-of-range error)."""
    step = {"type": "tool", "action": "Read", "status": "ok", "latency_ms": 1e16,
            "started_at": "2026-11-28T02:00:00Z", "input": {"file_path": "a"}}  # fmt: skip
    paths = []
    for side in ("baseline", "candidate"):
        path = tmp_path / side / "r.json"
        path.parent.mkdir()
        path.write_text(json.dumps({"task_id": "t1", "steps": [step, step]}))
        paths.append(str(path))
    out = runner.invoke(make_app(), ["compare", *paths, "--json"])
    assert out.exit_code == 0, out.output
    assert "baseline_avoidable_cost_usd" in json.loads(out.stdout)
