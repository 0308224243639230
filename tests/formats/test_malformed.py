"""Malformed files of each adapter's format: truncated, wrong version, missing key fields.
Each gives exit 1 through the CLI with one line naming the file and what was expected, and
leaves no archive behind."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reportgen.cli import app

from .helpers import FIXTURES

runner = CliRunner()


def _agentdiff() -> dict[str, Any]:
    return json.loads((FIXTURES / "agentdiff" / "candidate.json").read_text())


def _otlp() -> dict[str, Any]:
    return json.loads((FIXTURES / "otel" / "otlp_genai.json").read_text())


def _inspect_log() -> dict[str, Any]:
    sample = {"id": 1, "epoch": 1, "events": [], "messages": [], "scores": {}}
    return {
        "version": 2,
        "status": "success",
        "eval": {"task": "t", "model": "m"},
        "samples": [sample],
    }


def _swe() -> dict[str, Any]:
    step = {
        "action": "ls -F\n",
        "observation": "a.py\n",
        "thought": "",
        "response": "",
        "state": "",
    }
    return {"environment": "swe_main", "trajectory": [step], "history": [], "info": {}}


def _mini() -> dict[str, Any]:
    return {
        "info": {"mini_version": "1.15.0", "exit_status": "Submitted"},
        "messages": [
            {"role": "system", "content": "s"},
            {"role": "user", "content": "task"},
            {"role": "assistant", "content": "```bash\nls\n```"},
            {"role": "user", "content": "<returncode>0</returncode>\na.py"},
        ],
        "trajectory_format": "mini-swe-agent-1",
        "instance_id": "x__y-1",
    }


def _tau() -> list[dict[str, Any]]:
    traj = [
        {"role": "system", "content": "# Airline Agent Policy"},
        {"role": "user", "content": "hi"},
    ]
    return [{"task_id": 0, "trial": 0, "reward": 1.0, "info": {}, "traj": traj}]


def _tau2() -> dict[str, Any]:
    return {
        "timestamp": "2025-10-13T11:33:37",
        "info": {"agent_info": {"llm": "m"}, "environment_info": {"domain_name": "airline"}},
        "tasks": [],
        "simulations": [
            {
                "id": "s1",
                "task_id": "1",
                "trial": 0,
                "termination_reason": "user_stop",
                "messages": [{"role": "assistant", "content": "hello"}],
            }
        ],
    }


def _without(document: Any, *path: Any) -> Any:
    target = document
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    return document


def _set(document: Any, value: Any, *path: Any) -> Any:
    target = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return document


# (name, file name, document builder, expected text in the error)
CASES: list[tuple[str, str, Callable[[], Any], str]] = [
    (
        "agentdiff-version",
        "t.json",
        lambda: _set(_agentdiff(), "2.0.0", "schema_version"),
        "schema_version: unsupported AgentDiff schema_version '2.0.0'",
    ),
    (
        "agentdiff-no-name",
        "t.json",
        lambda: _without(_agentdiff(), "steps", 1, "name"),
        "steps[1].name: required field is missing",
    ),
    (
        "agentdiff-bad-status",
        "t.json",
        lambda: _set(_agentdiff(), "weird", "steps", 0, "status"),
        "unknown status 'weird'",
    ),
    (
        "otel-no-span-id",
        "t.json",
        lambda: _set(_otlp(), "", "resourceSpans", 0, "scopeSpans", 0, "spans", 0, "spanId"),
        "span without traceId/spanId",
    ),
    (
        "otel-not-a-list",
        "t.json",
        lambda: {"resourceSpans": {"scopeSpans": []}},
        "resourceSpans: expected a list",
    ),
    (
        "inspect-version",
        "log.json",
        lambda: _set(_inspect_log(), 9, "version"),
        "unsupported Inspect log version 9",
    ),
    (
        "inspect-no-id",
        "log.json",
        lambda: _without(_inspect_log(), "samples", 0, "id"),
        "samples[0].id: required field is missing",
    ),
    (
        "swe-no-action",
        "x.traj",
        lambda: _without(_swe(), "trajectory", 0, "action"),
        "trajectory[0].action: required field is missing",
    ),
    (
        "swe-not-a-list",
        "x.traj",
        lambda: _set(_swe(), {"a": 1}, "trajectory"),
        "trajectory: expected a list",
    ),
    (
        "mini-version",
        "x.traj.json",
        lambda: _set(_mini(), "mini-swe-agent-9", "trajectory_format"),
        "unsupported trajectory_format 'mini-swe-agent-9'",
    ),
    (
        "mini-no-messages",
        "x.traj.json",
        lambda: _set(_mini(), "oops", "messages"),
        "messages: expected a list",
    ),
    (
        "tau-no-traj",
        "r.json",
        lambda: _without(_tau(), 0, "traj"),
        "[0].traj: required field is missing",
    ),
    (
        "tau2-no-messages",
        "r.json",
        lambda: _without(_tau2(), "simulations", 0, "messages"),
        "simulations[0].messages: required field is missing",
    ),
    (
        "tau2-no-simulations",
        "r.json",
        lambda: _without(_tau2(), "simulations"),
        "simulations: required field is missing",
    ),
]


FORMAT_OF = {
    "agentdiff": "agentdiff",
    "otel": "otel",
    "inspect": "inspect",
    "swe": "swe-agent",
    "mini": "mini-swe-agent",
    "tau": "tau-bench",
    "tau2": "tau2-bench",
}


def _invoke(tmp_path: Path, path: Path, *extra: str) -> Any:
    db = tmp_path / "a.duckdb"
    result = runner.invoke(app, ["ingest", str(path), "--db", str(db), "-q", *extra])
    assert not db.exists()
    return result


@pytest.mark.parametrize(("name", "file", "build", "expected"), CASES, ids=[c[0] for c in CASES])
def test_missing_or_wrong_fields(
    tmp_path: Path, name: str, file: str, build: Callable[[], Any], expected: str
) -> None:
    path = tmp_path / file
    path.write_text(json.dumps(build(), indent=1))
    # forced, as when the missing key is the one detection looks for
    result = _invoke(tmp_path, path, "--format", FORMAT_OF[name.split("-")[0]])
    assert result.exit_code == 1, result.output
    assert str(path) in result.stderr and expected in result.stderr


TRUNCATED: list[tuple[str, str, Callable[[], Any]]] = [
    ("agentdiff", "t.json", _agentdiff),
    ("otel", "t.json", _otlp),
    ("inspect", "log.json", _inspect_log),
    ("swe-agent", "x.traj", _swe),
    ("mini-swe-agent", "x.traj.json", _mini),
    ("tau-bench", "r.json", _tau),
    ("tau2-bench", "r.json", _tau2),
]


@pytest.mark.parametrize(("fmt", "file", "build"), TRUNCATED, ids=[c[0] for c in TRUNCATED])
def test_truncated(tmp_path: Path, fmt: str, file: str, build: Callable[[], Any]) -> None:
    text = json.dumps(build(), indent=1)
    path = tmp_path / file
    path.write_text(text[: len(text) * 2 // 3])
    result = _invoke(tmp_path, path, "--format", fmt)
    assert result.exit_code == 1, result.output
    assert f"{path}:" in result.stderr and "invalid JSON (file truncated?)" in result.stderr


def test_truncated_inspect_eval_zip(tmp_path: Path) -> None:
    whole = tmp_path / "whole.eval"
    with zipfile.ZipFile(whole, "w", zipfile.ZIP_DEFLATED) as archive:
        log = _inspect_log()
        archive.writestr(
            "header.json", json.dumps({k: v for k, v in log.items() if k != "samples"})
        )
        archive.writestr("samples/1_epoch_1.json", json.dumps(log["samples"][0]))
    cut = tmp_path / "cut.eval"
    cut.write_bytes(whole.read_bytes()[:-60])
    result = _invoke(tmp_path, cut)
    assert result.exit_code == 1
    assert str(cut) in result.stderr and "expected an Inspect .eval log" in result.stderr


def test_unrecognised_names_formats_tried(tmp_path: Path) -> None:
    path = tmp_path / "mystery.json"
    path.write_text(json.dumps({"hello": "world"}))
    result = _invoke(tmp_path, path)
    assert result.exit_code == 1
    assert "not a recognised format (tried trace-v1," in result.stderr
    for name in ("agentdiff", "otel", "langfuse", "inspect", "swe-agent", "tau2-bench"):
        assert name in result.stderr
