"""The spend command's cost check: per suite, the cost the traces report beside the cost
recomputed at ingest from tokens and genai-prices (runs.cost_recomputed_usd)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from reportgen.cli import app
from reportgen.spend import avoidable_spend
from tests.spend.helpers import archive, llm

M = 1e6


def test_reported_beside_recomputed(tmp_path: Path) -> None:
    # gpt-5: $1.25 input, $10 output, $0.125 cached input per million
    steps_a = [llm(10_000, 1_000, cost=0.05, model="gpt-5")]
    steps_b = [llm(20_000, 2_000, cost=0.04, model="gpt-5")]
    steps_c = [llm(1_000, 10, cost=None, model="house-model-9")]  # unknown: not compared
    con = archive(tmp_path, {"a": steps_a, "b": steps_b, "c": steps_c})
    costs = avoidable_spend(con).costs["default"]
    recomputed = (10_000 * 1.25 + 1_000 * 10 + 20_000 * 1.25 + 2_000 * 10) / M  # 0.0675
    assert (costs.n_runs, costs.n_compared) == (3, 2)
    assert costs.reported_usd == pytest.approx(0.09)
    assert costs.recomputed_usd == pytest.approx(recomputed)
    assert costs.difference_pct == pytest.approx((recomputed - 0.09) / 0.09 * 100)
    assert costs.summary() == (
        "recomputed $0.0675 vs reported $0.0900, -25.0 % (2 of 3 run(s) with both)"
    )


def test_the_command_prints_it(tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    con = archive(tmp_path, {"a": [llm(10_000, 1_000, cost=0.05, model="gpt-5")]})
    con.execute(f"ATTACH '{db}' AS out")
    con.execute("COPY FROM DATABASE memory TO out")
    con.close()
    result = CliRunner().invoke(app, ["spend", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert "suite default cost: recomputed $0.0225 vs reported $0.0500, -55.0 %" in result.output
    json_result = CliRunner().invoke(app, ["spend", "--db", str(db), "--json"])
    assert '"cost_check"' in json_result.output
