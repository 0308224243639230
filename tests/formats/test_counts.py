"""Counts checked by hand against the raw files (two or more files per format).

How they were counted: each raw file was opened with ``json`` in a Python shell, independent
of the adapters, and counted as the mapping in docs/formats-adapters.md says: for tau/tau2,
steps = sum over assistant messages of len(tool_calls), or 1 for a text-only reply; tool
errors = tool messages with ``error: true`` or content starting "Error"; for mini-swe-agent,
steps = assistant messages, errors = following user message with a non-zero <returncode> or a
"timed out" notice, retries = following "EXACTLY ONE action" message; for SWE-agent, steps =
len(trajectory), retries = observations starting "Your proposed edit has introduced new syntax
error", errors = observations starting with a Traceback; for Inspect, steps = model + tool
events (or assistant + tool messages when there are no events); for spans, steps = spans or
observations, with the span kinds listed by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import DATA, FIXTURES, load, needs_data, per_run, totals

TAU2 = DATA / "tau2-bench"


def _tau2(pattern: str) -> Path:
    (found,) = sorted(TAU2.glob(f"*_{pattern}_user_simulator_*.json"))
    return found


@needs_data
def test_tau2_grok3_mini_airline(tmp_path: Path) -> None:
    con = load(tmp_path, _tau2("airline_llm_agent_grok-3-mini"))
    assert totals(con) == (16, 109)
    rows = per_run(con)
    # Tasks 11 and 24: 3 steps in every trial; task 32: 7; task 8: 14, 14, 14, 15. No errors.
    assert [r for r in rows if r[0] == "8"] == [
        ("8", 0, 14, 0, 0),
        ("8", 1, 14, 0, 0),
        ("8", 2, 14, 0, 0),
        ("8", 3, 15, 0, 0),
    ]
    assert {(r[0], r[2]) for r in rows if r[0] != "8"} == {("11", 3), ("24", 3), ("32", 7)}
    labels = con.execute("SELECT DISTINCT label, suite FROM runs").fetchall()
    assert labels == [("xai/grok-3-mini", "tau2-bench/airline")]
    # Only task 8 trial 1 earned reward 1.
    assert con.execute("SELECT task_id, trial FROM runs WHERE success").fetchall() == [("8", 1)]


@needs_data
def test_tau2_grok4_tighter_policy_tool_errors(tmp_path: Path) -> None:
    con = load(tmp_path, _tau2("airline_tighter_policy_llm_agent_grok-4"))
    assert totals(con) == (16, 270)
    errors = [r for r in per_run(con) if r[3]]
    # Two tool messages flagged error=true ("Error: Not enough balance in payment method").
    assert errors == [("11", 1, 14, 1, 0), ("24", 0, 36, 1, 0)]
    cost = con.execute("SELECT round(sum(cost_usd), 6) FROM runs").fetchone()
    assert cost == (5.407485,)  # sum of the simulations' agent_cost


@needs_data
def test_tau2_models_pair_by_task_and_trial_within_a_domain(tmp_path: Path) -> None:
    con = load(tmp_path, TAU2)
    pairs = con.execute(
        """SELECT b.suite, count(*) FROM runs b JOIN runs c
           ON b.suite = c.suite AND b.task_id = c.task_id AND b.trial = c.trial
              AND b.batch = c.batch
           WHERE b.label = 'xai/grok-3' AND c.label = 'xai/grok-4'
           GROUP BY ALL ORDER BY ALL"""
    ).fetchall()
    assert pairs == [("tau2-bench/airline", 16), ("tau2-bench/airline_tighter_policy", 16)]


@needs_data
def test_tau_bench_gpt4o_airline(tmp_path: Path) -> None:
    con = load(tmp_path, DATA / "tau-bench" / "gpt-4o-airline.json")
    assert totals(con) == (200, 2454)  # 50 tasks x 4 trials; 1290 replies + 1164 tool calls
    rows = {(r[0], r[1]): r for r in per_run(con)}
    assert rows[("0", 0)] == ("0", 0, 15, 1, 0)
    assert rows[("1", 2)] == ("1", 2, 9, 0, 0)
    assert rows[("13", 0)][3] == 6  # the most "Error:" results of any run
    errors = con.execute("SELECT count(*) FROM steps WHERE status = 'error'").fetchone()
    assert errors == (73,)
    assert con.execute("SELECT count(*) FROM runs WHERE success").fetchone() == (84,)
    assert con.execute("SELECT DISTINCT label, suite FROM runs").fetchall() == [
        ("gpt-4o", "tau-bench/airline")
    ]


MINI = DATA / "mini-swe-agent" / "trajs"


@needs_data
@pytest.mark.parametrize(
    ("instance", "expected", "resolved"),
    [
        ("astropy__astropy-12907", (20, 0, 0), True),
        # one <returncode>1</returncode>, one "Please always provide EXACTLY ONE action"
        ("psf__requests-2317", (33, 1, 1), False),
    ],
)
def test_mini_swe_agent(
    tmp_path: Path, instance: str, expected: tuple[int, int, int], resolved: bool
) -> None:
    con = load(tmp_path, MINI / instance / f"{instance}.traj.json")
    (row,) = per_run(con)
    assert row == (instance, 0, *expected)
    run = con.execute("SELECT success, label, suite FROM runs").fetchone()
    assert run == (resolved, "mini-swe-agent", "swe-bench")  # success from logs/<id>/report.json


@needs_data
def test_mini_swe_agent_totals(tmp_path: Path) -> None:
    con = load(tmp_path, MINI / "astropy__astropy-12907")
    cost = con.execute("SELECT round(cost_usd, 7), meta->>'api_calls' FROM runs").fetchone()
    assert cost == (0.2305142, "20")  # info.model_stats
    step = con.execute("SELECT tokens_in, tokens_out, action FROM steps WHERE idx = 0").fetchone()
    assert step == (1662, 106, "ls")  # extra.response.usage of the first reply


SWE = DATA / "swe-agent"


@needs_data
def test_swe_agent_pydicom(tmp_path: Path) -> None:
    (path,) = SWE.rglob("pydicom__pydicom-1458.traj")
    con = load(tmp_path, path)
    # Step 2 "python reproduce_bug.py" -> Traceback; steps 5-7 rejected edits -> retries.
    assert per_run(con) == [("pydicom__pydicom-1458", 0, 12, 1, 3)]
    statuses = con.execute("SELECT list(status ORDER BY idx) FROM steps").fetchone()
    assert statuses is not None and statuses[0][2] == "error" and statuses[0][5:8] == ["retry"] * 3
    # model_stats is the Python-literal string form
    totals_ = con.execute("SELECT tokens_in, tokens_out, round(cost_usd, 5) FROM runs").fetchone()
    assert totals_ == (122612, 1369, 1.26719)
    actions = con.execute("SELECT list(action ORDER BY idx) FROM steps").fetchone()
    assert actions is not None and actions[0][:3] == ["create", "edit", "python"]


@needs_data
def test_swe_agent_marshmallow_demo(tmp_path: Path) -> None:
    (path,) = SWE.glob("demonstrations/*default*/marshmallow-code__marshmallow-1867.traj")
    con = load(tmp_path, path)
    assert per_run(con) == [("marshmallow-code__marshmallow-1867", 0, 14, 0, 1)]
    # a replay: all-zero model_stats are "not measured"
    assert con.execute("SELECT tokens_in, cost_usd FROM runs").fetchone() == (None, None)


INSPECT = DATA / "inspect" / "tests"


@needs_data
def test_inspect_browser_json(tmp_path: Path) -> None:
    con = load(tmp_path, INSPECT / "analysis/test_logs/2025-05-12T20-27-36-04-00_browser.json")
    assert per_run(con) == [("1", 1, 9, 0, 0)]  # 5 model + 4 tool events
    run = con.execute(
        "SELECT label, suite, tokens_in, tokens_out, latency_ms, reward FROM runs"
    ).fetchone()
    assert run == ("openai/gpt-4o-mini", "browser", 15235, 281, 18360.0, 1.0)
    types = con.execute("SELECT list(type ORDER BY idx) FROM steps").fetchone()
    assert types == (["llm", "tool"] * 4 + ["llm"],)


@needs_data
def test_inspect_tool_call_errors_from_messages(tmp_path: Path) -> None:
    con = load(tmp_path, INSPECT / "log/test_eval_log/log_tool_call_error.json")
    assert per_run(con) == [("1", 4, 11, 11, 0)]  # epoch 4; 11 tool messages, each with an error


@needs_data
def test_inspect_eval_zip_epochs(tmp_path: Path) -> None:
    con = load(tmp_path, INSPECT / "log/test_eval_log/log_streaming.eval")
    # samples/{1,2}_epoch_{1,2}.json, one model event each
    assert per_run(con) == [
        ("1", 1, 1, 0, 0),
        ("1", 2, 1, 0, 0),
        ("2", 1, 1, 0, 0),
        ("2", 2, 1, 0, 0),
    ]


ANY_AGENT = DATA / "otel-genai" / "any-agent"


@needs_data
@pytest.mark.parametrize(
    ("name", "steps", "kinds", "tokens_in"),
    [
        ("OPENAI_trace.json", 6, {"agent": 1, "llm": 3, "tool": 2}, 269 + 359 + 392),
        ("SMOLAGENTS_trace.json", 7, {"agent": 1, "llm": 3, "tool": 3}, 2294),
    ],
)
def test_otel_any_agent(
    tmp_path: Path, name: str, steps: int, kinds: dict[str, int], tokens_in: int
) -> None:
    con = load(tmp_path, ANY_AGENT / name)
    assert totals(con) == (1, steps)
    found = dict(con.execute("SELECT type, count(*) FROM steps GROUP BY ALL").fetchall())
    assert found == kinds
    assert con.execute("SELECT sum(tokens_in) FROM steps").fetchone() == (tokens_in,)
    # invoke_agent is the root (idx 0); every other span is its child
    parents = con.execute("SELECT list(parent ORDER BY idx) FROM steps").fetchone()
    assert parents == ([None] + [0] * (steps - 1),)


def test_otlp_fixture(tmp_path: Path) -> None:
    con = load(tmp_path, FIXTURES / "otel" / "otlp_genai.json")
    # trace 5b8e...: agent, chat, tool (status code 2), tool, chat; trace 8a3c...: one chat
    assert per_run(con) == [("chat gpt-3.5-turbo", 0, 1, 0, 0), ("weather-agent", 0, 5, 1, 0)]
    old = con.execute(
        "SELECT s.action, s.tokens_in, s.tokens_out FROM steps s JOIN runs r USING (run_id)"
        " WHERE r.n_steps = 1"
    ).fetchone()
    assert old == ("gpt-3.5-turbo", 40, 12)  # deprecated gen_ai.usage.prompt/completion_tokens


def test_openinference_otlp_lines(tmp_path: Path) -> None:
    con = load(tmp_path, FIXTURES / "otel" / "otlp_openinference.jsonl")
    rows = con.execute(
        "SELECT type, action, parent, tokens_in, input_keys FROM steps ORDER BY idx"
    ).fetchall()
    assert rows == [
        ("agent", "AgentExecutor", None, None, ["input"]),
        ("llm", "gpt-4o-mini", 0, 210, []),
        ("tool", "count_orders", 0, None, ["customer_id"]),
        ("llm", "gpt-4o-mini", 0, 260, []),
    ]


LANGFUSE = DATA / "langfuse"


@needs_data
@pytest.mark.parametrize(
    ("name", "kinds"),
    [
        # 5 SPAN, 4 GENERATION, 3 TOOL observations
        ("pydantic-ai-tools-2025-12-04.trace.json", {"span": 5, "llm": 4, "tool": 3}),
        # AGENT, 2 GENERATION, TOOL
        ("microsoft-agent-2025-12-17.trace.json", {"agent": 1, "llm": 2, "tool": 1}),
    ],
)
def test_langfuse(tmp_path: Path, name: str, kinds: dict[str, int]) -> None:
    con = load(tmp_path, LANGFUSE / name)
    assert totals(con) == (1, sum(kinds.values()))
    found = dict(con.execute("SELECT type, count(*) FROM steps GROUP BY ALL").fetchall())
    assert found == kinds
    assert con.execute("SELECT count(*) FROM steps WHERE status <> 'ok'").fetchone() == (0,)


def test_langfuse_tool_names_from_attributes(tmp_path: Path) -> None:
    if not DATA.is_dir():
        pytest.skip(f"shared real-world traces not found at {DATA}")
    con = load(tmp_path, LANGFUSE / "pydantic-ai-tools-2025-12-04.trace.json")
    tools = con.execute("SELECT list(action ORDER BY action) FROM steps WHERE type = 'tool'")
    assert tools.fetchone() == (
        ["get_dad_joke_suggestion", "get_one_liner_suggestion", "get_pun_suggestion"],
    )


AGENTDIFF = FIXTURES / "agentdiff"


def test_agentdiff_traces(tmp_path: Path) -> None:
    # Written by agent-trajectory-diff 0.3.0 itself (AgentTrace.model_dump_json).
    con = load(tmp_path, AGENTDIFF)
    rows = con.execute("SELECT label, n_steps FROM runs ORDER BY label").fetchall()
    assert rows == [("baseline", 3), ("candidate", 6)]
    assert con.execute("SELECT count(DISTINCT task_id) FROM runs").fetchone() == (1,)
    statuses = con.execute(
        "SELECT list(status ORDER BY idx), list(parent ORDER BY idx) FROM steps s"
        " JOIN runs r USING (run_id) WHERE r.label = 'candidate'"
    ).fetchone()
    assert statuses == (
        ["ok", "error", "retry", "ok", "ok", "ok"],
        [None, 0, 0, 0, None, None],
    )
    tokens = con.execute(
        "SELECT tokens_in, tokens_out, round(cost_usd, 4) FROM runs WHERE label = 'baseline'"
    ).fetchone()
    assert tokens == (930, 72, 0.0032)
