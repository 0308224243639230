"""Hypothesis: any valid run survives ingest with the same steps in the same order."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen.archive import connect
from reportgen.ingest import ingest

text = st.text(min_size=1, max_size=12)
counts = st.none() | st.integers(min_value=0, max_value=10**11)  # 6 steps stay under 10^12
amounts = st.none() | st.floats(min_value=0, max_value=1e6, allow_nan=False, allow_infinity=False)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


@st.composite
def steps(draw: st.DrawFn, n: int) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        step: dict[str, Any] = {
            "type": draw(st.sampled_from(["tool", "llm", "agent"])),
            "action": draw(text),
            "status": draw(st.sampled_from(["ok", "success", "error", "retry", "abandoned"])),
        }
        for key, strategy in (
            ("input", json_values),
            ("output", json_values),
            ("tokens_in", counts),
            ("tokens_out", counts),
            ("cost_usd", amounts),
            ("latency_ms", amounts),
        ):
            if draw(st.booleans()):
                step[key] = draw(strategy)
        if i and draw(st.booleans()):
            step["parent"] = draw(st.integers(0, i - 1))
        out.append(step)
    return out


@st.composite
def runs(draw: st.DrawFn) -> list[dict[str, Any]]:
    n_runs = draw(st.integers(1, 3))
    return [
        {"run_id": f"run-{i}", "task_id": draw(text), "steps": draw(steps(draw(st.integers(0, 6))))}
        for i in range(n_runs)
    ]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runs())
def test_ingest_round_trips_steps(generated: list[dict[str, Any]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "runs.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in generated), encoding="utf-8")
        ingest([path], Path(tmp) / "a.duckdb")
        con = connect(Path(tmp) / "a.duckdb", read_only=True)
        got = con.execute(
            "SELECT run_id, idx, type, action, status, input::VARCHAR, output::VARCHAR, tokens_in,"
            " tokens_out, cost_usd, latency_ms, parent, input_keys FROM steps ORDER BY run_id, idx"
        ).fetchall()
        tasks = dict(con.execute("SELECT run_id, task_id FROM runs").fetchall())
        con.close()
    expected = []
    for run in generated:
        assert tasks[run["run_id"]] == run["task_id"]
        for i, s in enumerate(run["steps"]):
            status = "ok" if s["status"] == "success" else s["status"]
            as_json = {
                k: (None if s.get(k) is None else json.loads(json.dumps(s[k])))
                for k in ("input", "output")
            }
            keys = sorted(s["input"]) if isinstance(s.get("input"), dict) else []
            expected.append(
                (
                    run["run_id"],
                    i,
                    s["type"],
                    s["action"],
                    status,
                    as_json["input"],
                    as_json["output"],
                    s.get("tokens_in"),
                    s.get("tokens_out"),
                    s.get("cost_usd"),
                    s.get("latency_ms"),
                    s.get("parent"),
                    keys,
                )
            )
    actual = [
        (
            *g[:5],
            None if g[5] is None else json.loads(g[5]),
            None if g[6] is None else json.loads(g[6]),
            *g[7:],
        )
        for g in got
    ]
    assert actual == expected
