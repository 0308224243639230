"""Helpers of the hostile-input tests: a small archive, the CLI, and the one-line rule."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from reportgen.cli import app
from tests.conftest import make_run

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str | Path) -> Result:
    """Run the CLI in this process."""
    return runner.invoke(app, [str(a) for a in args])


def cli_process(
    *args: str | Path, cwd: Path | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m reportgen`` in a subprocess (for locks, signals and real stdio)."""
    return subprocess.run(
        [sys.executable, "-m", "reportgen", *(str(a) for a in args)],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        timeout=timeout,
    )


def one_line(stderr: str, *needles: str) -> str:
    """The single error line on stderr, checked to be one line, no traceback, with needles."""
    text = stderr.strip()
    assert "Traceback" not in text, text
    assert text.count("\n") == 0, text
    assert text.startswith("error: "), text
    for needle in needles:
        assert needle in text, (needle, text)
    return text


def write_runs(path: Path, runs: Sequence[dict[str, Any]]) -> Path:
    """Write runs as JSON Lines."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in runs), encoding="utf-8")
    return path


@pytest.fixture
def good_file(tmp_path: Path) -> Path:
    """A valid trace file with two runs."""
    return write_runs(
        tmp_path / "in" / "good.jsonl",
        [make_run("t1", run_id="good-1"), make_run("t2", run_id="good-2")],
    )


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    """An archive holding one baseline and one candidate run of one task."""
    db = tmp_path / "archive.duckdb"
    base = write_runs(tmp_path / "seed" / "baseline" / "b.jsonl", [make_run("t", run_id="b1")])
    cand = write_runs(
        tmp_path / "seed" / "candidate" / "c.jsonl", [make_run("t", run_id="c1", n_steps=4)]
    )
    result = cli("ingest", base, cand, "--db", db, "-q")
    assert result.exit_code == 0, result.output
    return db


@pytest.fixture
def make_file(tmp_path: Path) -> Callable[[str, bytes], Path]:
    """Write raw bytes to a file under tmp_path."""

    def make(name: str, content: bytes) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        return path

    return make
