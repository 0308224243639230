"""The identical-calls metric goes everywhere the registry takes a metric: a --json field per
side, a table column, a --max-identical-calls gate (CLI, [cli] key, API keyword)."""

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


def _write(path: Path, actions: list[tuple[str, str]]) -> Path:
    """One native run of task t1 whose steps read the given (action, path) pairs."""
    steps = [
        {"type": "tool", "action": a, "status": "ok", "input": {"path": p}, "output": "same"}
        for a, p in actions
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"task_id": "t1", "steps": steps}))
    return path


def test_identical_calls_metric_and_gate(tmp_path: Path) -> None:
    base = _write(tmp_path / "baseline" / "r.json", [("read", "a.py"), ("edit", "a.py")])
    # a.py read three times unchanged, not back to back: 2 identical calls, no loop
    cand = _write(
        tmp_path / "candidate" / "r.json",
        [("read", "a.py"), ("edit", "a.py"), ("read", "a.py"), ("test", "."), ("read", "a.py")],
    )
    assert "identical_calls" in {m.name for m in pair_metrics()}
    app = make_app()
    out = runner.invoke(app, ["compare", str(base), str(cand), "--json"])
    assert out.exit_code == 0, out.output
    pair = json.loads(out.stdout)  # one pair: the pair itself
    assert (pair["baseline_identical_calls"], pair["candidate_identical_calls"]) == (0, 2)
    assert [lp for lp in pair["loops_detected"] if lp["stagnant"]] == []

    failed = runner.invoke(app, ["compare", str(base), str(cand), "--max-identical-calls", "1"])
    assert failed.exit_code == 3, failed.output
    assert "identical" in failed.output
    passed = runner.invoke(app, ["compare", str(base), str(cand), "--max-identical-calls", "2"])
    assert passed.exit_code == 0, passed.output

    config = tmp_path / "reportgen.toml"
    config.write_text("[cli]\nmax_identical_calls = 0\n")
    gated = runner.invoke(app, ["compare", str(base), str(cand), "--config", str(config)])
    assert gated.exit_code == 3, gated.output

    comparison = reportgen.compare(base, cand)
    with pytest.raises(RegressionError, match="identical"):
        reportgen.assert_no_regressions(comparison, max_identical_calls=1, config=False)
    reportgen.assert_no_regressions(comparison, max_identical_calls=2, config=False)
