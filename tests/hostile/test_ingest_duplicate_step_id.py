"""A trace whose step ids repeat is bad input (AgentDiff rejects it too: duplicate ids corrupt
the parent graph and the alignment): one line naming the file and the step, exit 1, and the
archive unchanged."""

from __future__ import annotations

import json
from pathlib import Path

from tests.hostile.conftest import cli, one_line
from tests.hostile.fingerprint import archive_fingerprint


def _trace(step_ids: list[str]) -> dict[str, object]:
    return {
        "trace_id": "t-dup",
        "agent_name": "agent",
        "task_input": {"task_id": "dup"},
        "steps": [
            {"step_id": sid, "step_index": i, "step_type": "tool_call", "name": "a"}
            for i, sid in enumerate(step_ids)
        ],
    }


def test_duplicate_step_id_is_refused(tmp_path: Path, archive: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps({**_trace(["s0", "s1"]), "trace_id": "t-good"}))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_trace(["s0", "s1", "s0"])))
    before = archive_fingerprint(archive)
    result = cli("ingest", good, bad, "--db", archive)
    assert result.exit_code == 1, result.output
    one_line(result.stderr, str(bad), "steps[2].step_id", "duplicate step_id 's0'")
    assert archive_fingerprint(archive) == before  # nothing written, not even the good file
