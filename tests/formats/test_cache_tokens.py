"""Per format, on a real file of the shared data: the cache and reasoning token columns of the
steps (and runs, where the format gives run totals) sum to what the test sums from the raw
records itself."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reportgen.archive import connect
from reportgen.ingest import ingest

from ..site.shared_data import DATA

Sums = tuple[int, int, int]  # cache read, cache write, reasoning

pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason="the shared data is not beside")


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _n(value: Any) -> int:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else 0


def _claude(path: Path) -> Sums:
    last: dict[str, dict[str, Any]] = {}  # one API response's usage, from its last record
    for record in _lines(path):
        message = record.get("message")
        usage = message.get("usage") if isinstance(message, dict) else None
        if record.get("type") == "assistant" and isinstance(usage, dict):
            last[str(message.get("id") or record["uuid"])] = usage
    read = sum(_n(u.get("cache_read_input_tokens")) for u in last.values())
    write = sum(_n(u.get("cache_creation_input_tokens")) for u in last.values())
    return read, write, 0


def _codex(path: Path) -> Sums:
    totals = [
        r["payload"]["info"]["total_token_usage"]
        for r in _lines(path)
        if r.get("type") == "event_msg"
        and r["payload"].get("type") == "token_count"
        and isinstance(r["payload"].get("info"), dict)
    ]
    final = totals[-1]  # cumulative: the last total is the session's
    return _n(final.get("cached_input_tokens")), 0, _n(final.get("reasoning_output_tokens"))


def _codex_records(path: Path) -> Sums:
    """Rollouts with token_usage_record lines: one per model call, each response once."""
    usage = {
        r["payload"]["response_id"]: r["payload"]["usage"]
        for r in _lines(path)
        if r.get("type") == "token_usage_record"
    }
    return (
        sum(_n(u.get("cached_input_tokens")) for u in usage.values()),
        0,  # cache_write_input_tokens: not read (0 throughout these files)
        sum(_n(u.get("reasoning_output_tokens")) for u in usage.values()),
    )


def _openhands(folder: Path) -> Sums:
    """A conversation folder: the accumulated usage of each usage id in base_state.json."""
    stats = json.loads((folder / "base_state.json").read_text())["stats"]
    usages = [m["accumulated_token_usage"] for m in stats["usage_to_metrics"].values()]
    return (
        sum(_n(u.get("cache_read_tokens")) for u in usages),
        sum(_n(u.get("cache_write_tokens")) for u in usages),
        sum(_n(u.get("reasoning_tokens")) for u in usages),
    )


def _gemini(path: Path) -> Sums:
    tokens = [m["tokens"] for m in json.loads(path.read_text())["messages"] if m.get("tokens")]
    return sum(_n(t.get("cached")) for t in tokens), 0, sum(_n(t.get("thoughts")) for t in tokens)


def _inspect(path: Path) -> Sums:
    usages = [
        e["output"]["usage"]
        for s in json.loads(path.read_text())["samples"]
        for e in s["events"]
        if e["event"] == "model" and isinstance(e.get("output", {}).get("usage"), dict)
    ]
    return (
        sum(_n(u.get("input_tokens_cache_read")) for u in usages),
        sum(_n(u.get("input_tokens_cache_write")) for u in usages),
        sum(_n(u.get("reasoning_tokens")) for u in usages),
    )


def _inspect_runs(path: Path) -> Sums:
    usages = [u for s in json.loads(path.read_text())["samples"] for u in s["model_usage"].values()]
    return (
        sum(_n(u.get("input_tokens_cache_read")) for u in usages),
        sum(_n(u.get("input_tokens_cache_write")) for u in usages),
        sum(_n(u.get("reasoning_tokens")) for u in usages),
    )


def _mini(path: Path) -> Sums:
    usages = [
        m["extra"]["response"]["usage"]
        for m in json.loads(path.read_text())["messages"]
        if m.get("role") == "assistant" and "response" in (m.get("extra") or {})
    ]
    return (
        sum(_n((u.get("prompt_tokens_details") or {}).get("cached_tokens")) for u in usages),
        sum(_n(u.get("cache_creation_input_tokens")) for u in usages),
        sum(_n((u.get("completion_tokens_details") or {}).get("reasoning_tokens")) for u in usages),
    )


def _atif(path: Path) -> Sums:
    steps = json.loads(path.read_text())["steps"]
    return sum(_n((s.get("metrics") or {}).get("cached_tokens")) for s in steps), 0, 0


def _atif_runs(path: Path) -> Sums:
    return _n(json.loads(path.read_text())["final_metrics"].get("total_cached_tokens")), 0, 0


def _otel(path: Path) -> Sums:
    calls = [  # the model-call spans; their ai.generateText / ai.streamText wrappers repeat them
        s["attributes"]
        for s in json.loads(path.read_text())
        if s["name"].endswith((".doGenerate", ".doStream"))
    ]
    read = ("gen_ai.usage.cache_read.input_tokens", "ai.usage.cachedInputTokens")
    return (
        sum(_n(next((a[k] for k in read if k in a), 0)) for a in calls),
        sum(_n(a.get("gen_ai.usage.cache_creation.input_tokens")) for a in calls),
        sum(_n(a.get("ai.usage.reasoningTokens")) for a in calls),
    )


def _otlp(path: Path) -> Sums:
    """OTLP JSON: each model call once (under dual instrumentation two spans, one per
    instrumentation, report it: same parent, same token counts)."""
    calls: dict[tuple[Any, ...], dict[str, Any]] = {}
    for resource in json.loads(path.read_text())["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                attrs = {a["key"]: next(iter(a["value"].values())) for a in span["attributes"]}
                if "gen_ai.usage.input_tokens" in attrs:
                    key = (
                        span.get("parentSpanId"),
                        attrs["gen_ai.usage.input_tokens"],
                        attrs.get("gen_ai.usage.output_tokens"),
                    )
                    calls.setdefault(key, attrs)

    def total(*names: str) -> int:
        return sum(int(next((a[n] for n in names if n in a), 0)) for a in calls.values())

    return (
        total("gen_ai.usage.cache_read.input_tokens"),
        total("gen_ai.usage.cache_write.input_tokens", "gen_ai.usage.cache_creation.input_tokens"),
        total("gen_ai.usage.reasoning_tokens", "gen_ai.usage.reasoning.output_tokens"),
    )


def _agents(path: Path) -> Sums:
    """Agents SDK spans: the usage of each model-call span (the turn wrappers repeat it)."""
    usages = [
        item["span_data"]["usage"]
        for item in _lines(path)
        if item.get("object") == "trace.span"
        and item["span_data"].get("type") in ("generation", "response")
        and isinstance(item["span_data"].get("usage"), dict)
    ]
    return (
        sum(_n((u.get("input_tokens_details") or {}).get("cached_tokens")) for u in usages),
        sum(_n((u.get("input_tokens_details") or {}).get("cache_write_tokens")) for u in usages),
        sum(_n((u.get("output_tokens_details") or {}).get("reasoning_tokens")) for u in usages),
    )


def _copilot_runs(path: Path) -> Sums:
    """Copilot CLI: the session totals of each session.shutdown event."""
    details = [
        item["data"]["tokenDetails"]
        for item in _lines(path)
        if item.get("type") == "session.shutdown" and "tokenDetails" in item.get("data", {})
    ]
    return (
        sum(_n(d.get("cache_read", {}).get("tokenCount")) for d in details),
        sum(_n(d.get("cache_write", {}).get("tokenCount")) for d in details),
        0,
    )


CASES: list[tuple[str, str, Callable[[Path], Sums], Callable[[Path], Sums] | None]] = [
    (
        "claude-code",
        "claude-code/codemie-code/-tmp-private/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl",
        _claude,
        None,
    ),
    (
        "codex-cli",
        "codex-cli/codemie-code/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl",
        _codex,
        None,
    ),
    (
        "codex-cli-token-usage-record",
        "codex-cli/token-usage-record/sessions/2026/12/02/"
        "rollout-2026-12-02T20-40-11-01a2387c-7985-72b2-89c4-9da9c6c8896b.jsonl",
        _codex_records,
        None,
    ),
    ("gemini-cli", "gemini-cli/ai-sessions/gemini-cli-pomodoro-timer.json", _gemini, None),
    (
        "inspect",
        "inspect/tests/analysis/test_logs/2025-05-12T20-27-36-04-00_browser.json",
        _inspect,
        _inspect_runs,
    ),
    (
        "mini-swe-agent",
        "mini-swe-agent/trajs/django__django-16333/django__django-16333.traj.json",
        _mini,
        None,
    ),
    (
        "atif",
        "atif-v1.7/generated/codex__rollout-2026-05-11T11-26-55.trajectory.json",
        _atif,
        _atif_runs,
    ),
    ("otel", "otel-genai/vercel-ai-sdk/all-spans.json", _otel, None),
    (
        "openhands-sdk",
        "openhands-sdk/generated/c49b8685711f4d3e903285a41b3b6d3a",
        _openhands,
        None,
    ),
    ("openai-agents", "openai-agents/raw/support_handoff_responses.jsonl", _agents, None),
    ("openai-agents-reasoning", "openai-agents/raw/max_turns_exceeded.jsonl", _agents, None),
    (
        "otel-2026-anthropic",
        "otel-genai-2026/generated/anthropic-session-A.traces.otlp.json",
        _otlp,
        None,
    ),
    (
        "otel-2026-openai",
        "otel-genai-2026/generated/openai-session-C.traces.otlp.json",
        _otlp,
        None,
    ),
]

STEP_SUMS = (
    "SELECT coalesce(sum(cache_read_tokens), 0), coalesce(sum(cache_write_tokens), 0),"
    " coalesce(sum(reasoning_tokens), 0), count(cache_read_tokens) FROM steps"
)
RUN_SUMS = (
    "SELECT coalesce(sum(cache_read_tokens), 0), coalesce(sum(cache_write_tokens), 0),"
    " coalesce(sum(reasoning_tokens), 0) FROM runs"
)


def _load(tmp_path: Path, file: Path) -> tuple[tuple[int, ...], tuple[int, ...]]:
    db = tmp_path / "a.duckdb"
    ingest([file], db=db)
    con = connect(db, read_only=True)
    try:
        steps = con.execute(STEP_SUMS).fetchone()
        runs = con.execute(RUN_SUMS).fetchone()
    finally:
        con.close()
    assert steps is not None and runs is not None
    return tuple(int(v) for v in steps), tuple(int(v) for v in runs)


@pytest.mark.parametrize(("name", "where", "raw", "raw_runs"), CASES, ids=[c[0] for c in CASES])
def test_sums_equal_the_raw_records(
    tmp_path: Path,
    name: str,
    where: str,
    raw: Callable[[Path], Sums],
    raw_runs: Callable[[Path], Sums] | None,
) -> None:
    file = DATA / where
    expected = raw(file)
    steps, runs = _load(tmp_path, file)
    assert steps[:3] == expected
    assert steps[3] > 0, "the format gives the counts: stored as numbers, not NULL"
    if raw_runs is not None:
        assert runs == raw_runs(file)
    if name != "otel":  # the real OTel file's counts are all 0
        assert sum(expected) > 0, "a file whose counts say something"


def test_otel_gen_ai_names(tmp_path: Path) -> None:
    """The OTel GenAI names (gen_ai.usage.cache_read.input_tokens, ...) on a real file's
    model-call span (the Vercel AI SDK file, with the attributes added)."""
    spans = json.loads((DATA / "otel-genai/vercel-ai-sdk/all-spans.json").read_text())
    call = next(s for s in spans if s["name"].endswith(".doStream"))
    del (
        call["attributes"]["ai.usage.cachedInputTokens"],
        call["attributes"]["ai.usage.reasoningTokens"],
    )
    call["attributes"] |= {
        "gen_ai.usage.cache_read.input_tokens": 7,
        "gen_ai.usage.cache_creation.input_tokens": 5,
        "gen_ai.usage.reasoning.output_tokens": 3,
    }
    folder = tmp_path / "otel"
    folder.mkdir()
    (folder / "all-spans.json").write_text(json.dumps(spans))
    steps, _ = _load(tmp_path, folder / "all-spans.json")
    assert steps[:3] == (7, 5, 3)


def test_copilot_session_totals_fill_the_run_columns(tmp_path: Path) -> None:
    """Copilot CLI logs no cache counts per reply: the session's totals are the run's."""
    file = DATA / "copilot-cli/agent-sessions/small.jsonl"
    expected = _copilot_runs(file)
    steps, runs = _load(tmp_path, file)
    assert runs == expected
    assert expected[0] > 0, "a file whose counts say something"
    assert steps[3] == 0, "no per-step counts invented"
