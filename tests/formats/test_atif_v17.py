"""ATIF-v1.7/v1.8 trajectories (../shared/data/atif-v1.7): runs, steps, tool calls, tool
errors and tokens against counts the test takes from the raw files itself; embedded
sub-agents as child runs linked to their parent."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from reportgen.formats.registry import adapters, detect_format
from reportgen.formats.source import measure

from .helpers import DATA, load, needs_data

FOLDER = DATA / "atif-v1.7"
# Independent of the adapter's text rules: the error signs these files hold.
_FAILED = re.compile(r"Process exited with code [1-9]|^<tool_use_error>")


def _trajectories(document: dict[str, Any]) -> list[dict[str, Any]]:
    """A trajectory and its embedded sub-agents, depth first."""
    found = [document]
    for child in document.get("subagent_trajectories") or []:
        found += _trajectories(child)
    return found


def _raw_counts() -> dict[str, int]:
    counts = {"runs": 0, "steps": 0, "tool_calls": 0, "tool_errors": 0, "tokens_in": 0}
    for path in sorted(FOLDER.rglob("*.json")):
        for trajectory in _trajectories(json.loads(path.read_text())):
            counts["runs"] += 1
            counts["tokens_in"] += trajectory["final_metrics"]["total_prompt_tokens"]
            for step in trajectory["steps"]:
                results = (step.get("observation") or {}).get("results") or []
                if step["source"] == "agent":
                    calls = step.get("tool_calls") or []
                    counts["steps"] += 1 + len(calls)
                    counts["tool_calls"] += len(calls)
                    answered = {r.get("source_call_id"): r for r in results}
                    for call in calls:
                        result = answered.get(call["tool_call_id"]) or {}
                        text = result.get("content")
                        text = text if isinstance(text, str) else json.dumps(text)
                        if result.get("is_error") or _FAILED.search(text or ""):
                            counts["tool_errors"] += 1
                elif step["source"] == "system" and step.get("observation"):
                    counts["steps"] += 1
    return counts


@needs_data
def test_counts_match_the_raw_files(tmp_path: Path) -> None:
    con = load(tmp_path, FOLDER)
    got = con.execute(
        """
        SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM steps),
               (SELECT count(*) FROM steps WHERE type = 'tool'),
               (SELECT count(*) FROM steps WHERE type = 'tool' AND status = 'error'),
               (SELECT sum(tokens_in) FROM runs)
        """
    ).fetchone()
    raw = _raw_counts()
    assert got == (
        raw["runs"],
        raw["steps"],
        raw["tool_calls"],
        raw["tool_errors"],
        raw["tokens_in"],
    )
    # ATIF has no verdict: nothing is scored, no run is an infrastructure error
    assert con.execute("SELECT count(*) FROM runs WHERE success IS NOT NULL").fetchone() == (0,)


@needs_data
def test_embedded_subagent_is_a_linked_child_run(tmp_path: Path) -> None:
    con = load(tmp_path, FOLDER / "phoenix")
    parent, child = con.execute("SELECT run_id, meta FROM runs ORDER BY run_id").fetchall()
    assert parent[0] == "atif:run-v17-001" and child[0] == "atif:run-v17-001/child-doc"
    parent_meta, child_meta = json.loads(parent[1]), json.loads(child[1])
    # the tool step answering delegate_research names the child in subagent_trajectory_ref
    step = con.execute(
        "SELECT idx FROM steps WHERE run_id = 'atif:run-v17-001' AND action = 'delegate_research'"
    ).fetchone()
    assert step is not None
    assert parent_meta["children"] == [
        {"run_id": "atif:run-v17-001/child-doc", "step": step[0], "trajectory_id": "child-doc"}
    ]
    assert child_meta["parent_run_id"] == "atif:run-v17-001"
    assert child_meta["parent_step"] == step[0]
    # llm_call_count 0: a deterministic dispatch, not a model call
    assert con.execute(
        "SELECT type, action FROM steps WHERE run_id = 'atif:run-v17-001' AND idx = 0"
    ).fetchone() == ("system", "dispatch")
    assert (parent_meta["llm_calls"], child_meta["llm_calls"]) == (1, 1)
    assert parent_meta["goal"] == "Research current ATIF v1.7 support."


def test_session_id_is_optional(tmp_path: Path) -> None:
    document = {
        "schema_version": "ATIF-v1.7",
        "trajectory_id": "t-1",
        "agent": {"name": "a"},
        "steps": [{"step_id": 1, "source": "agent", "message": "done"}],
    }
    path = tmp_path / "t.json"
    path.write_text(json.dumps(document))
    con = load(tmp_path, path)
    assert con.execute("SELECT run_id, format FROM runs").fetchall() == [("atif:t-1", "atif")]
    del document["trajectory_id"]
    other = tmp_path / "u.json"
    other.write_text(json.dumps(document))
    con.close()
    (tmp_path / "2").mkdir()
    con = load(tmp_path / "2", other)
    (run_id,) = con.execute("SELECT run_id FROM runs").fetchone() or ("",)
    assert re.fullmatch(r"atif:u-[0-9a-f]{12}", run_id)


@needs_data
def test_detected_as_atif_only() -> None:
    for path in sorted(FOLDER.rglob("*.json")):
        source = measure(path, str(path), 1 << 26)
        assert [a.name for a in adapters() if a.detect(source)] == ["atif"], path
        assert detect_format(source).name == "atif"
