"""Folder walks are iterative: 1,500 nested folders (deeper than Python's recursion limit)
load like any folder, README notes looked for at every depth, no RecursionError."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.hostile.conftest import cli

DEPTH = 1500


def _nested(top: Path, depth: int, name: str, text: str) -> None:
    """``depth`` folders ``a/a/...`` under ``top``, ``name`` in the deepest, made through
    folder descriptors (no path of the whole depth is ever built)."""
    fd = os.open(top, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir("a", dir_fd=fd)
            inner = os.open("a", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        out = os.open(name, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        with os.fdopen(out, "w") as file:
            file.write(text)
    finally:
        os.close(fd)


def _remove_nested(top: Path, depth: int, name: str) -> None:
    """Undo :func:`_nested` from the bottom up (``shutil.rmtree`` recurses too deep)."""
    fds = [os.open(top, os.O_RDONLY)]
    try:
        for _ in range(depth):
            fds.append(os.open("a", os.O_RDONLY, dir_fd=fds[-1]))
        os.unlink(name, dir_fd=fds[-1])
        while len(fds) > 1:
            os.close(fds.pop())
            os.rmdir("a", dir_fd=fds[-1])
    finally:
        for fd in fds:
            os.close(fd)


def test_folders_nested_past_the_recursion_limit_load(tmp_path: Path) -> None:
    top = tmp_path / "deep"
    top.mkdir()
    step = {"type": "tool", "action": "a", "status": "ok"}
    _nested(top, DEPTH, "runs.jsonl", json.dumps({"task_id": "t", "steps": [step]}) + "\n")
    try:
        result = cli("ingest", top, "--db", tmp_path / "a.duckdb")
    finally:
        _remove_nested(top, DEPTH, "runs.jsonl")
    assert result.exit_code == 0, result.output
    assert "1 runs, 1 steps" in result.output
