"""Strict JSON: no NaN or Infinity in machine output, and a percentage change that overflows a
float is null with a reason, not inf."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from reportgen.cli import app
from reportgen.divergence.reference import pct_delta
from reportgen.strict_json import StrictJSONEncoder, dumps_bytes

runner = CliRunner()


def strict_loads(text: str) -> Any:
    """json.loads that refuses NaN, Infinity and -Infinity, as jq does."""
    return json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))


def test_json_out_writes_non_finite_floats_as_null() -> None:
    data = {"a": math.inf, "b": [1.5, -math.inf, (math.nan, 2)], "c": "Infinity", "d": 3}
    assert strict_loads(dumps_bytes(data).decode()) == {
        "a": None,
        "b": [1.5, None, [None, 2]],
        "c": "Infinity",
        "d": 3,
    }
    assert strict_loads(dumps_bytes(math.nan).decode()) is None
    assert data["a"] == math.inf  # the input is left alone


def test_json_out_of_nesting_past_orjsons_limit_is_strict() -> None:
    """orjson refuses nesting past 254 levels; the stdlib fallback is strict too (ingest
    refuses records deeper than 200, so this is the worst a report holds)."""
    deep: Any = math.inf
    for _ in range(300):
        deep = [deep]
    value = strict_loads(dumps_bytes(deep).decode())
    for _ in range(300):
        value = value[0]
    assert value is None


def test_strict_encoder_output_parses_strictly() -> None:
    data = {"x": math.inf, "y": [math.nan, 1.0]}
    text = "".join(StrictJSONEncoder(indent=2, sort_keys=True, default=str).iterencode(data))
    assert strict_loads(text) == {"x": None, "y": [None, 1.0]}


def test_percentage_overflow_is_null_with_a_reason() -> None:
    value, note = pct_delta(1e-300, 1e308, "cost")
    assert value is None and note is not None and "too large" in note
    value, note = pct_delta(1, 10**400, "tokens")
    assert value is None and note is not None
    assert pct_delta(2.0, 3.0) == (50.0, None)


def _trace(path: Path, cost: float) -> Path:
    step = {"type": "tool", "action": "a", "status": "ok", "cost_usd": cost, "latency_ms": 1}
    path.write_text(json.dumps({"task_id": "t", "steps": [step]}), encoding="utf-8")
    return path


def test_compare_json_overflow_gives_strict_json(tmp_path: Path) -> None:
    base, cand = _trace(tmp_path / "b.json", 1e-300), _trace(tmp_path / "c.json", 1e308)
    result = runner.invoke(app, ["compare", str(base), str(cand), "--json"])
    assert result.exit_code == 0, result.output
    pair = strict_loads(result.stdout)  # two files: the one pair itself
    assert pair["cost_delta_percentage"] is None
    assert "too large" in pair["cost_delta_note"]


def test_compare_json_with_infinite_totals_is_strict(tmp_path: Path) -> None:
    base, cand = _trace(tmp_path / "b.json", 1e308), _trace(tmp_path / "c.json", 1e308)
    text = json.loads((tmp_path / "c.json").read_text())
    text["steps"].append(dict(text["steps"][0]))  # 2e308: the total itself is inf
    (tmp_path / "c.json").write_text(json.dumps(text))
    result = runner.invoke(app, ["compare", str(base), str(cand), "--json"])
    assert result.exit_code == 0, result.output
    strict_loads(result.stdout)
