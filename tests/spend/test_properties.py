"""The SQL findings against a slow plain-Python reading of the same rules (reference.py), on
random step sequences: same findings, same tokens and cost, same totals."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen.spend import SpendOptions, avoidable_spend
from tests.spend import reference
from tests.spend.helpers import archive

MODELS = ("claude-sonnet-4-5", "house-model")
TOOLS = ("Read", "Edit", "Bash", "Glob")
PATHS = ("a.py", "b.py")


@st.composite
def runs(draw: Any) -> list[dict[str, Any]]:
    """A run: model calls each issuing 0-3 tool calls, at random times, tokens and statuses."""
    steps: list[dict[str, Any]] = []
    clock = 1_767_225_600  # 2026-01-01
    for _ in range(draw(st.integers(1, 6))):
        clock += draw(st.sampled_from((1, 60, 299, 300, 301, 900)))
        tokens_in = draw(st.sampled_from((10, 1000, 120_000, 160_000)))
        step: dict[str, Any] = {
            "type": "llm", "action": draw(st.sampled_from(MODELS)), "status": "ok",
            "tokens_in": tokens_in, "tokens_out": draw(st.integers(0, 500)),
            "cost_usd": draw(st.sampled_from((None, 0.01, 0.5))),
            "latency_ms": draw(st.sampled_from((0, 1000, 2000))),
            "started_at": f"{_iso(clock)}",
            "output": {"usage": {"cache_write": draw(st.sampled_from((0, 500, 4000)))}},
        }  # fmt: skip
        parent = len(steps)
        steps.append(step)
        for _ in range(draw(st.integers(0, 3))):
            action = draw(st.sampled_from(TOOLS))
            path = draw(st.sampled_from(PATHS))
            if action == "Bash":
                inputs: dict[str, Any] = {"command": draw(st.sampled_from((
                    f"cat {path}", "ls", f"sed -n '1,20p' {path}", f"sed -n '5,9p' {path}",
                    f"head -n 10 {path}", f"tail -n 5 {path}", f"echo x > {path}",
                )))}  # fmt: skip
            elif action == "Glob":
                inputs = {"pattern": "*"}
            else:
                inputs = {"file_path": path, **draw(st.sampled_from(
                    ({}, {"offset": 1, "limit": 20}, {"offset": 5, "limit": 5}, {"offset": 30})
                ))}  # fmt: skip
            steps.append({
                "type": "tool", "action": action, "input": inputs, "parent": parent,
                "status": draw(st.sampled_from(("ok", "error"))),
                "output": draw(st.sampled_from(("x", "y"))),
            })  # fmt: skip
    return steps


def _iso(epoch: int) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _rounded(found: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return [(*f[:4], None if f[4] is None else round(f[4], 9)) for f in found]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(run=runs(), long_context=st.sampled_from((100_000, 150_000)))
def test_sql_matches_the_reference(run: list[dict[str, Any]], long_context: int) -> None:
    options = SpendOptions(long_context=long_context)
    with tempfile.TemporaryDirectory() as tmp:
        con = archive(Path(tmp), {"r": run})
        spent = avoidable_spend(con, options=options).run("r")
        con.close()
    got = sorted(
        ((f.kind, f.step, f.ref_step, f.tokens, f.cost_usd) for f in spent.findings),
        key=lambda f: (f[1], f[0]),
    )
    want = reference.findings(run, options)
    assert _rounded(got) == _rounded(want)
    tokens, cost = reference.total(want)
    assert spent.tokens == tokens
    assert spent.cost_usd == pytest.approx(cost, abs=1e-12)
