"""Every pair record carries both runs' outcomes (success, reward; None when unknown), and
the registry shows them in every table and on the pair page."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from reportgen.api import compare
from reportgen.cli import make_app
from reportgen.site.pages_compare import metric_rows
from tests.conftest import make_run

runner = CliRunner()


def _traces(tmp_path: Path, base: dict[str, object], cand: dict[str, object]) -> tuple[Path, Path]:
    b, c = tmp_path / "b.json", tmp_path / "c.json"
    b.write_text(json.dumps(make_run(**base)))
    c.write_text(json.dumps(make_run(**cand)))
    return b, c


def test_outcomes_reach_record_tables_and_page(tmp_path: Path) -> None:
    b, c = _traces(tmp_path, {"success": True, "reward": 0.75}, {"success": False, "reward": 0.5})
    pair = compare(b, c).pairs[0]
    assert (pair["baseline_success"], pair["candidate_success"]) == (True, False)
    assert (pair["baseline_reward"], pair["candidate_reward"]) == (0.75, 0.5)
    assert pair["reward_delta"] == -0.25

    out = json.loads(runner.invoke(make_app(), ["compare", str(b), str(c), "--json"]).stdout)
    assert out["candidate_success"] is False and out["reward_delta"] == -0.25
    md = runner.invoke(make_app(), ["compare", str(b), str(c), "--markdown"]).stdout
    assert "| success | reward Δ |" in md and "| ✓→✗ | -0.250 |" in md

    run = {"n_steps": 3, "cost_usd": None, "tokens": None, "latency_ms": None}
    rows = {r.key: r for r in metric_rows(pair, run, run)}
    success, reward = rows["candidate_success"], rows["reward_delta"]
    assert (success.baseline, success.candidate, success.change, success.worse) == (
        "passed", "failed", "✓→✗", True
    )  # fmt: skip
    assert (reward.change, reward.worse) == ("-0.250", True)


def test_unknown_outcomes_are_none(tmp_path: Path) -> None:
    b, c = _traces(tmp_path, {}, {"success": True})
    pair = compare(b, c).pairs[0]
    assert pair["baseline_success"] is None and pair["candidate_success"] is True
    assert pair["baseline_reward"] is None and pair["reward_delta"] is None
    md = runner.invoke(make_app(), ["compare", str(b), str(c), "--markdown"]).stdout
    assert "| ?→✓ | n/a |" in md
