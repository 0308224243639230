"""ATIF trajectories and LangSmith run payloads: counts checked by hand against the raw files,
synthetic edge cases, malformed files, detection.

How the counts were made: each raw file was opened with ``json`` in a Python shell,
independently of the adapters, and each step printed (source, tool_calls' function_name,
observation results, metrics). ATIF: steps = agent steps (one llm step each) + their
tool_calls (one tool step each) + system steps carrying an observation (a handoff), plus one
abandoned step when the last step is an agent step whose tool calls include no completion
call (finish / mark_task_complete) and the file is not continued; user and other system steps
are prompts. Retries = observations saying "Previous response had parsing errors". Tokens and
cost = ``final_metrics`` totals. LangSmith: runs = distinct trace ids, steps = distinct run ids
(post and patch of one id are one run); tokens = ``outputs.usage_metadata``; latency =
patch ``end_time`` - post ``start_time``, subtracted by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reportgen.cli import app
from reportgen.formats.registry import adapters, detect_format
from reportgen.formats.source import measure

from .helpers import DATA, load, needs_data, per_run, totals

runner = CliRunner()
ATIF = DATA / "atif"
LANGSMITH = DATA / "langsmith"


def _steps(con: Any) -> list[tuple[Any, ...]]:
    """(type, action, status, tokens_in, tokens_out, parent) per step, in order."""
    return con.execute(
        "SELECT type, action, status, tokens_in, tokens_out, parent FROM steps ORDER BY idx"
    ).fetchall()


# ---------------------------------------------------------------- ATIF, real files


@needs_data
def test_atif_invalid_json(tmp_path: Path) -> None:
    con = load(tmp_path, ATIF / "harbor_terminus2_invalid_json.json")
    # Steps 2-5 are agent steps (4 llm); steps 3, 4, 5 carry one tool call each (3 tool).
    # Step 2 has no tool call; its observation is the parse-error notice: a retry.
    assert totals(con) == (1, 7)
    assert per_run(con) == [("harbor_terminus2_invalid_json", 0, 7, 0, 1)]
    assert _steps(con) == [
        ("llm", "gpt-4o", "retry", 682, 100, None),
        ("llm", "gpt-4o", "ok", 785, 50, None),
        ("tool", "bash_command", "ok", None, None, 1),
        ("llm", "gpt-4o", "ok", 850, 30, None),
        ("tool", "mark_task_complete", "ok", None, None, 3),
        ("llm", "gpt-4o", "ok", 100, 20, None),
        ("tool", "mark_task_complete", "ok", None, None, 5),
    ]
    run = con.execute(
        "SELECT run_id, label, suite, tokens_in, tokens_out, round(cost_usd, 7), success FROM runs"
    ).fetchone()
    # final_metrics: 2417 prompt, 200 completion tokens, $0.0080425
    assert run == (
        "atif:harbor-terminus2-invalid-json",
        "terminus-2/openai/gpt-4o",
        "atif",
        2417,
        200,
        0.0080425,
        None,
    )
    tool_input = con.execute("SELECT input FROM steps WHERE idx = 2").fetchone()
    assert tool_input is not None
    assert json.loads(tool_input[0]) == {
        "keystrokes": "printf 'Hello, world!\\n' > hello.txt\n",
        "duration": 0.1,
    }


@needs_data
def test_atif_timeout_is_abandoned(tmp_path: Path) -> None:
    con = load(tmp_path, ATIF / "harbor_terminus2_timeout.json")
    # 3 agent steps, one bash_command each; the last ("sleep 5") gets no completion call:
    # 3 llm + 3 tool + 1 abandoned.
    assert totals(con) == (1, 7)
    last = con.execute("SELECT type, action, status FROM steps WHERE idx = 6").fetchone()
    assert last == ("stop", "unfinished", "abandoned")
    run = con.execute("SELECT tokens_in, tokens_out, success FROM runs").fetchone()
    assert run == (982, 145, False)  # final_metrics totals


@needs_data
def test_atif_summarization_handoff(tmp_path: Path) -> None:
    con = load(tmp_path, ATIF / "harbor_terminus2_summarization.json")
    # Agent steps 2-4 and 7-10 (7 llm, 7 tool calls) + system step 5 with sub-agent refs.
    assert totals(con) == (1, 15)
    kinds = dict(con.execute("SELECT type, count(*) FROM steps GROUP BY ALL").fetchall())
    assert kinds == {"llm": 7, "tool": 7, "system": 1}
    handoff = con.execute("SELECT idx, action, output FROM steps WHERE type = 'system'")
    idx, action, output = handoff.fetchone() or (None, None, None)
    assert (idx, action) == (6, "handoff")
    assert [ref["trajectory_path"] for ref in json.loads(output)] == [
        "trajectory.summarization-1-summary.json",
        "trajectory.summarization-1-questions.json",
        "trajectory.summarization-1-answers.json",
    ]
    # final_metrics totals (7802) exceed the steps' own (6502): sub-agent calls count too.
    assert con.execute("SELECT tokens_in, tokens_out FROM runs").fetchone() == (7802, 1030)
    assert con.execute("SELECT sum(tokens_in) FROM steps").fetchone() == (6502,)


@needs_data
def test_atif_openhands_and_continuation(tmp_path: Path) -> None:
    con = load(
        tmp_path, ATIF / "harbor_openhands.json", ATIF / "harbor_terminus2_continuation.json"
    )
    rows = con.execute(
        "SELECT task_id, label, n_steps, list(s.action ORDER BY idx), list(s.status ORDER BY idx)"
        " FROM runs r JOIN steps s USING (run_id) GROUP BY ALL ORDER BY 1"
    ).fetchall()
    assert rows == [
        # system, user, system, system steps are prompts; agent steps 5 and 6, one call each;
        # it ends with `finish`, so it is not abandoned.
        (
            "harbor_openhands",
            "openhands",
            4,
            ["openhands", "str_replace_editor", "openhands", "finish"],
            ["ok"] * 4,
        ),
        # 3 agent steps without tool_calls + the system handoff; continued elsewhere.
        (
            "harbor_terminus2_continuation",
            "terminus-2/openai/gpt-4o",
            4,
            ["gpt-4o", "gpt-4o", "gpt-4o", "handoff"],
            ["ok"] * 4,
        ),
    ]
    # The tool result is matched by source_call_id.
    out = con.execute("SELECT output FROM steps WHERE action = 'str_replace_editor'").fetchone()
    assert out == ('"File created successfully at: /app/hello.txt"',)


# ---------------------------------------------------------------- ATIF, synthetic


def _atif(steps: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "schema_version": "ATIF-v1.6",
        "session_id": "s-1",
        "agent": {"name": "a", "version": "1", "model_name": "m"},
        "steps": [{"step_id": 0, "source": "user", "message": "do it"}, *steps],
        **extra,
    }


def _call(call_id: str, name: str, content: str, **result: Any) -> dict[str, Any]:
    return {
        "step_id": 1,
        "source": "agent",
        "message": "",
        "tool_calls": [{"tool_call_id": call_id, "function_name": name, "arguments": {}}],
        "observation": {"results": [{"source_call_id": call_id, "content": content, **result}]},
    }


def test_atif_error_text(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    steps = [
        _call("1", "bash", "Traceback (most recent call last):\n  File x\nValueError: bad"),
        _call("2", "bash", "ls: cannot access 'x': No such file or directory"),
        _call("3", "execute_bash", "done\n[The command completed with exit code 2.]"),
        _call("4", "execute_bash", "done\n[The command completed with exit code 0.]"),
        _call("5", "bash", "Error: file not found"),
        _call("6", "bash", "fine", is_error=True),
        _call("7", "bash", "Command timed out after 30 seconds"),
        _call("8", "finish", "ok"),
    ]
    path.write_text(json.dumps(_atif(steps)))
    con = load(tmp_path, path)
    statuses = con.execute("SELECT list(status ORDER BY idx) FROM steps WHERE type = 'tool'")
    assert statuses.fetchone() == (
        ["error", "error", "error", "ok", "error", "error", "error", "ok"],
    )
    assert con.execute("SELECT count(*) FROM steps WHERE status = 'abandoned'").fetchone() == (0,)


def test_atif_timeout_named_when_said(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    document = _atif([_call("1", "bash", "still running")], notes="AgentTimeoutError after 900s")
    path.write_text(json.dumps(document))
    con = load(tmp_path, path)
    last = con.execute("SELECT action, status FROM steps ORDER BY idx DESC LIMIT 1").fetchone()
    assert last == ("timeout", "abandoned")


def test_atif_harbor_layout_task(tmp_path: Path) -> None:
    folder = tmp_path / "hello-world__AbC123" / "agent"
    folder.mkdir(parents=True)
    path = folder / "trajectory.json"
    path.write_text(json.dumps(_atif([_call("1", "finish", "ok")])))
    con = load(tmp_path, path)
    assert con.execute("SELECT task_id, run_id FROM runs").fetchone() == ("hello-world", "atif:s-1")


# ---------------------------------------------------------------- LangSmith, real files


@needs_data
@pytest.mark.parametrize(
    ("name", "model", "tokens", "latency_ms"),
    [
        # end 20:58:24.417106 - start 20:58:23.298773; usage_metadata 9 in, 9 out
        ("langsmith_py_wrap_openai_.json", "gpt-4o-mini", (9, 9), 1118.333),
        # end 20:58:39.682524 - start 20:58:24.544431; usage_metadata 43 in, 2497 out
        ("langsmith_py_wrap_openai_reasoning.json", "o1-mini", (43, 2497), 15138.093),
        # end 20:58:22.023816 - start 20:58:20.695375
        ("langsmith_py_wrap_openai_stream.json", "gpt-4o-mini", (9, 9), 1328.441),
        # usage_metadata: null -> tokens unknown, not zero; end 23.181899 - start 22.254895
        ("langsmith_py_wrap_openai_stream_no_usage.json", "gpt-4o-mini", (None, None), 927.004),
    ],
)
def test_langsmith_files(
    tmp_path: Path, name: str, model: str, tokens: tuple[int | None, int | None], latency_ms: float
) -> None:
    con = load(tmp_path, LANGSMITH / name)
    # One post and one patch of the same run id: 1 run of 1 llm step.
    assert totals(con) == (1, 1)
    step = con.execute(
        "SELECT type, action, status, tokens_in, tokens_out, round(latency_ms, 3) FROM steps"
    ).fetchone()
    assert step == ("llm", model, "ok", *tokens, latency_ms)
    run = con.execute(
        "SELECT task_id, suite, batch, round(latency_ms, 3), tokens_in FROM runs"
    ).fetchone()
    assert run == ("ChatOpenAI", "langsmith", "2024-10-11", latency_ms, None)
    # The run states no totals; its steps' sums are the metrics (NULL = unknown, not 0).
    sums = con.execute("SELECT sum(tokens_in), sum(tokens_out) FROM steps").fetchone()
    assert sums == tokens


@needs_data
def test_langsmith_patch_outputs_win(tmp_path: Path) -> None:
    con = load(tmp_path, LANGSMITH / "langsmith_py_wrap_openai_.json")
    # The post has outputs {}; the patch's outputs (the completion) replace them.
    assert con.execute("SELECT output FROM runs").fetchone() == (
        "Howdy! How can I assist you today?",
    )
    raw = con.execute("SELECT output->>'$.model' FROM steps").fetchone()
    assert raw == ("gpt-4o-mini-2024-07-18",)


# ---------------------------------------------------------------- LangSmith, synthetic


def _run(run_id: str, run_type: str, start: str, parent: str | None = None, **extra: Any) -> Any:
    run = {
        "id": run_id,
        "trace_id": "t1",
        "name": f"{run_type}-{run_id}",
        "run_type": run_type,
        "start_time": f"2025-01-01T00:00:{start}+00:00",
        "inputs": {"q": run_id},
        **extra,
    }
    if parent:
        run["parent_run_id"] = parent
    return run


def test_langsmith_trace_tree(tmp_path: Path) -> None:
    post = [
        _run("root", "chain", "00"),
        _run("tool1", "tool", "03", "root"),
        _run("llm1", "llm", "01", "root"),
        {**_run("other", "llm", "05"), "trace_id": "t2"},
    ]
    patch = [
        {
            "id": "llm1",
            "end_time": "2025-01-01T00:00:02+00:00",
            "outputs": {"usage": {"prompt_tokens": 5, "completion_tokens": 3}},
        },
        {"id": "tool1", "end_time": "2025-01-01T00:00:04+00:00", "error": "KeyError: 'x'"},
        {"id": "root", "end_time": "2025-01-01T00:00:06+00:00", "outputs": {"output": "done"}},
    ]
    path = tmp_path / "batch.json"
    path.write_text(json.dumps({"post": post, "patch": patch}))
    con = load(tmp_path, path)
    rows = con.execute(
        "SELECT r.run_id, r.task_id, r.output, r.latency_ms, list(s.type ORDER BY idx),"
        " list(s.status ORDER BY idx), list(s.parent ORDER BY idx)"
        " FROM runs r JOIN steps s USING (run_id) GROUP BY ALL ORDER BY 1"
    ).fetchall()
    assert rows == [
        (
            "t1",
            "chain-root",
            "done",
            6000.0,
            ["chain", "llm", "tool"],
            ["ok", "ok", "error"],
            [None, 0, 0],
        ),
        ("t2", "llm-other", None, None, ["llm"], ["ok"], [None]),
    ]
    tool = con.execute("SELECT action, output, error FROM steps WHERE type = 'tool'").fetchone()
    assert tool == ("tool-tool1", None, "KeyError: 'x'")  # the error apart from the output
    assert con.execute("SELECT tokens_in FROM steps WHERE type = 'llm' AND idx = 1").fetchone() == (
        5,
    )


def test_langsmith_without_trace_id(tmp_path: Path) -> None:
    """Older SDKs send no trace_id: runs are grouped by the root their parents lead to."""
    post = [_run("a", "chain", "00"), _run("b", "llm", "01", "a")]
    for run in post:
        del run["trace_id"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"post": post}))
    con = load(tmp_path, path)
    assert con.execute("SELECT run_id, n_steps FROM runs").fetchall() == [("a", 2)]


# ---------------------------------------------------------------- malformed


def _ls() -> dict[str, Any]:
    return {"post": [_run("r", "llm", "00")], "patch": [{"id": "r", "outputs": {}}]}


MALFORMED: list[tuple[str, str, Any, str]] = [
    (
        "atif-version",
        "atif",
        _atif([], schema_version="ATIF-v2.0"),
        "unsupported ATIF schema_version",
    ),
    (
        "atif-session-number",
        "atif",
        _atif([]) | {"session_id": 7},
        "session_id: expected a string",
    ),
    (
        "atif-subagent-no-steps",
        "atif",
        _atif([]) | {"subagent_trajectories": [{"agent": {"name": "x"}}]},
        "subagent_trajectories[0].steps: expected a list",
    ),
    ("atif-steps-object", "atif", _atif([]) | {"steps": {"a": 1}}, "steps: expected a list"),
    (
        "atif-call-no-name",
        "atif",
        _atif([{"step_id": 1, "source": "agent", "tool_calls": [{"tool_call_id": "1"}]}]),
        "steps[1].tool_calls[0]: expected a tool call with a function_name",
    ),
    (
        "atif-bad-source",
        "atif",
        _atif([{"step_id": 1, "source": "robot"}]),
        "unknown step source 'robot'",
    ),
    (
        "langsmith-no-id",
        "langsmith",
        {"post": [{"run_type": "llm"}]},
        "post[0]: expected a run object with an id",
    ),
    (
        "langsmith-patch-only",
        "langsmith",
        {"patch": [{"id": "x", "outputs": {}}]},
        "run x.run_type: required field is missing",
    ),
    ("langsmith-post-object", "langsmith", {"post": {"id": "x"}}, "post: expected a list"),
    ("langsmith-neither", "langsmith", {"put": []}, "required field is missing (post or patch)"),
]


def _ingest(tmp_path: Path, path: Path, *extra: str) -> Any:
    db = tmp_path / "a.duckdb"
    result = runner.invoke(app, ["ingest", str(path), "--db", str(db), "-q", *extra])
    assert not db.exists()
    return result


@pytest.mark.parametrize(
    ("name", "fmt", "document", "expected"), MALFORMED, ids=[m[0] for m in MALFORMED]
)
def test_malformed(tmp_path: Path, name: str, fmt: str, document: Any, expected: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document, indent=1))
    result = _ingest(tmp_path, path, "--format", fmt)
    assert result.exit_code == 1, result.output
    assert str(path) in result.stderr and expected in result.stderr


def test_wrong_atif_version_is_still_detected(tmp_path: Path) -> None:
    """Unforced: the file is recognised as ATIF and told its version is unsupported."""
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_atif([], schema_version="ATIF-v2.0")))
    result = _ingest(tmp_path, path)
    assert result.exit_code == 1
    assert f"{path}: schema_version: unsupported ATIF schema_version 'ATIF-v2.0'" in result.stderr


@pytest.mark.parametrize(
    ("fmt", "build"), [("atif", lambda: _atif([_call("1", "x", "y")])), ("langsmith", _ls)]
)
def test_truncated(tmp_path: Path, fmt: str, build: Any) -> None:
    text = json.dumps(build(), indent=1)
    path = tmp_path / "cut.json"
    path.write_text(text[: len(text) * 2 // 3])
    result = _ingest(tmp_path, path)  # detection works on the head: no --format needed
    assert result.exit_code == 1, result.output
    assert f"{path}:" in result.stderr and "invalid JSON (file truncated?)" in result.stderr
    assert f"expected {'ATIF' if fmt == 'atif' else 'LangSmith'}" in result.stderr


# ---------------------------------------------------------------- detection


@needs_data
@pytest.mark.parametrize(
    "path",
    sorted([*ATIF.glob("*.json"), *LANGSMITH.glob("*.json")]) if DATA.is_dir() else [],
    ids=lambda p: p.name,
)
def test_detected_by_its_adapter_only(path: Path) -> None:
    source = measure(path, str(path), 1 << 26)
    expected = path.parent.name
    assert [a.name for a in adapters() if a.detect(source)] == [expected]
    # ATIF files also match the broad native detector (they have steps); the adapter wins.
    assert detect_format(source).name == expected


def test_synthetic_files_detected(tmp_path: Path) -> None:
    for name, document, expected in [
        ("a.json", _atif([]), "atif"),
        # no ATIF- prefix: recognised by its keys (session_id, steps with step_id and source)
        ("b.json", _atif([_call("1", "x", "y")]) | {"schema_version": "1.4"}, "atif"),
        ("c.json", _ls(), "langsmith"),
        ("d.json", [_ls(), _ls()], "langsmith"),
        ("e.json", {"patch": [{"id": "r", "trace_id": "t"}], "post": []}, "langsmith"),
    ]:
        path = tmp_path / name
        path.write_text(json.dumps(document))
        assert detect_format(measure(path, str(path), 1 << 26)).name == expected, name
