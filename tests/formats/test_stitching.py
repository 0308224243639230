"""Runs split across files, stitched in one load: an ATIF trajectory and its continuation files
(same session id: one run), and a LangSmith trace whose post, patch and child runs are in
different files (one run)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from reportgen.errors import InputError
from reportgen.ingest import ingest

# ---------------------------------------------------------------- ATIF continuations


def trajectory(steps: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "schema_version": "ATIF-v1.6",
        "session_id": "sess-1",
        "agent": {"name": "terminus-2", "version": "2.0.0", "model_name": "openai/gpt-4o"},
        "steps": steps,
        **extra,
    }


def agent(step_id: int, message: str, call: str | None = None, result: str = "") -> dict:
    step: dict[str, Any] = {"step_id": step_id, "source": "agent", "message": message}
    if call:
        step["tool_calls"] = [
            {"tool_call_id": f"c{step_id}", "function_name": call, "arguments": {}}
        ]
        step["observation"] = {"results": [{"source_call_id": f"c{step_id}", "content": result}]}
    return step


def write(path: Path, document: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def harbor(tmp_path: Path) -> tuple[Path, Path]:
    """A Harbor trial folder: trajectory.json continued in trajectory.cont-1.json."""
    folder = tmp_path / "fix-bug__a1b2" / "agent"
    first = write(
        folder / "trajectory.json",
        trajectory(
            [
                {"step_id": 1, "source": "user", "message": "Fix the failing test"},
                agent(2, "Looking at the test", "bash", "1 failed"),
            ],
            final_metrics={"total_prompt_tokens": 100, "total_completion_tokens": 10},
            continued_trajectory_ref="trajectory.cont-1.json",
        ),
    )
    cont = write(
        folder / "trajectory.cont-1.json",
        trajectory(
            [
                {"step_id": 1, "source": "user", "message": "Summary of the work so far"},
                agent(2, "Now editing the code", "bash", "1 passed"),
                agent(3, "Done", "mark_task_complete", "ok"),
            ],
            final_metrics={"total_prompt_tokens": 50, "total_completion_tokens": 5},
        ),
    )
    return first, cont


def runs(db: Path) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(
            "SELECT r.run_id, r.task_id, r.n_steps, r.tokens_in, r.tokens_out,"
            " list(s.action ORDER BY s.idx), r.meta->>'continuation_files'"
            " FROM runs r JOIN steps s USING (run_id) GROUP BY ALL ORDER BY 1"
        ).fetchall()


def test_a_continuation_in_the_same_load_is_the_same_run(tmp_path: Path) -> None:
    first, cont = harbor(tmp_path)
    db = tmp_path / "a.duckdb"
    ingest([cont, first], db)  # order of the files does not matter
    ((run_id, task, n, tokens_in, tokens_out, actions, files),) = runs(db)
    assert (run_id, task, n) == ("atif:sess-1", "fix-bug", 6)
    model = "openai/gpt-4o"
    assert actions == [model, "bash", model, "bash", model, "mark_task_complete"]
    assert (tokens_in, tokens_out) == (150, 15)  # each file's totals cover its own steps
    assert files is not None and cont.name in files
    with duckdb.connect(str(db), read_only=True) as con:
        # the continuation's first model step answers its summary prompt
        given = con.execute("SELECT input FROM steps WHERE idx = 2").fetchone()
        abandoned = con.execute("SELECT count(*) FROM steps WHERE status = 'abandoned'").fetchone()
    assert given == ('"Summary of the work so far"',)
    assert abandoned == (0,)  # the chain ends with a completion call


def test_a_continuation_loaded_on_its_own_gets_its_own_id(tmp_path: Path) -> None:
    first, cont = harbor(tmp_path)
    db = tmp_path / "a.duckdb"
    ingest([first], db)
    report = ingest([cont], db)  # a later load: no clash with the archived start
    assert any("continues session 'sess-1'" in n for n in report.notices)
    got = [(r[0], r[2]) for r in runs(db)]
    assert got == [("atif:sess-1", 2), ("atif:sess-1/cont-1", 4)]


def test_two_unrelated_files_with_one_session_id_still_clash(tmp_path: Path) -> None:
    one = write(tmp_path / "a" / "t.json", trajectory([agent(1, "hi")]))
    two = write(tmp_path / "b" / "t.json", trajectory([agent(1, "hello")]))
    with pytest.raises(InputError, match="appears twice in this load"):
        ingest([one, two], tmp_path / "a.duckdb")


# ---------------------------------------------------------------- LangSmith split traces

LANGSMITH = Path(__file__).resolve().parents[3] / "shared" / "data" / "langsmith"


def langsmith_runs(db: Path) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(
            "SELECT r.run_id, r.n_steps, r.tokens_in, r.output IS NOT NULL, r.source_file,"
            " list(s.type ORDER BY s.idx), list(s.parent ORDER BY s.idx),"
            " sum(s.tokens_in)"
            " FROM runs r JOIN steps s USING (run_id) GROUP BY ALL ORDER BY 1"
        ).fetchall()


def test_a_real_langsmith_post_and_patch_in_two_files_are_one_run(tmp_path: Path) -> None:
    source = LANGSMITH / "langsmith_py_wrap_openai_.json"
    if not source.exists():
        pytest.skip(f"{source} is missing (the shared real data)")
    document = json.loads(source.read_text(encoding="utf-8"))
    whole = tmp_path / "whole" / "run.json"
    write(whole, document)
    post = write(tmp_path / "split" / "post.json", {"post": document["post"]})
    patch = write(tmp_path / "split" / "patch.json", {"patch": document["patch"]})
    one, two = tmp_path / "one.duckdb", tmp_path / "two.duckdb"
    ingest([whole], one)
    ingest([patch, post], two)
    ((run_id, n, _, has_output, _, types, _, tokens),) = langsmith_runs(two)
    expected = langsmith_runs(one)[0]
    assert (run_id, n, has_output, types, tokens) == (
        expected[0],
        expected[1],
        expected[3],
        expected[5],
        expected[7],
    )
    assert has_output and tokens  # the patch's outputs and usage reached the post's run


def ls_run(run_id: str, run_type: str, start: str, parent: str | None = None, **extra: Any) -> dict:
    return {
        "id": run_id,
        "trace_id": "t1",
        "parent_run_id": parent,
        "name": run_id,
        "run_type": run_type,
        "start_time": start,
        "inputs": {"q": run_id},
        "session_name": "nightly",
        **extra,
    }


def test_child_runs_in_other_files_join_their_trace(tmp_path: Path) -> None:
    root = ls_run("root", "chain", "2026-11-28T02:00:00Z")
    llm = ls_run("llm", "llm", "2026-11-28T02:00:01Z", "root")
    tool = ls_run("tool", "tool", "2026-11-28T02:00:02Z", "root")
    a = write(tmp_path / "p" / "a.json", {"post": [root]})
    b = write(
        tmp_path / "p" / "b.json",
        {"post": [tool], "patch": [{"id": "root", "outputs": {"answer": "42"}}]},
    )
    c = write(tmp_path / "p" / "c.json", {"post": [llm]})
    db = tmp_path / "a.duckdb"
    report = ingest([c, b, a], db)
    ((run_id, n, _, has_output, source_file, types, parents, _),) = langsmith_runs(db)
    assert (run_id, n, has_output, types, parents) == (
        "t1",
        3,
        True,
        ["chain", "llm", "tool"],
        [None, 0, 0],
    )
    assert source_file == str(a)  # the file of the root run's post
    assert {f["file"]: f["runs"] for f in report.loaded} == {str(c): 0, str(b): 0, str(a): 1}


def test_a_patch_whose_post_is_in_no_file_is_one_error(tmp_path: Path) -> None:
    a = write(tmp_path / "a.json", {"post": [ls_run("root", "chain", "2026-11-28T02:00:00Z")]})
    b = write(
        tmp_path / "b.json", {"patch": [{"id": "other", "trace_id": "t1", "outputs": {"x": 1}}]}
    )
    with pytest.raises(InputError) as caught:
        ingest([a, b], tmp_path / "a.duckdb")
    assert caught.value.path == str(b) and caught.value.field == "run other.run_type"
    assert "no file of this load" in str(caught.value)
