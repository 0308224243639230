"""``reportgen ingest ~/.claude/projects`` and ``~/.codex/sessions`` on a fake home laid out
as those tools write it: a suite per project, a label per model (or branch, or fixed), a
batch per day of the session's start in the chosen time zone, and daily re-runs that load
only new or grown sessions."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from reportgen.cli import make_app
from reportgen.errors import UsageError
from reportgen.ingest.options import session_options

from .helpers import DATA, needs_data

CC = DATA / "claude-code"
POMODORO = CC / "ai-sessions" / "claude-code-pomodoro-timer.jsonl"  # one project, 2025-10-21
VIEWER = CC / "claude-code-viewer" / "sample-project"  # a project with sub-agent files
CODEX = DATA / "codex-cli" / "codemie-code" / "sessions"

runner = CliRunner()


def _home(tmp_path: Path, lines: int | None = None) -> Path:
    """A fake ~ with two Claude Code projects and the Codex date folders."""
    projects = tmp_path / "home" / ".claude" / "projects"
    pomodoro = projects / "-Users-me-pomodoro"
    pomodoro.mkdir(parents=True)
    text = POMODORO.read_text(encoding="utf-8").splitlines(keepends=True)
    (pomodoro / "36d9e1bc-63bf-4e97-8a3e-2b20ba8583f2.jsonl").write_text(
        "".join(text[:lines] if lines else text), encoding="utf-8"
    )
    shutil.copytree(VIEWER, projects / "-Users-me-demo")
    shutil.copytree(CODEX, tmp_path / "home" / ".codex" / "sessions")
    return tmp_path / "home"


def _ingest(db: Path, *args: str) -> dict:  # type: ignore[type-arg]
    result = runner.invoke(make_app(), ["ingest", *args, "--db", str(db), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def _runs(db: Path) -> list[tuple[str, str, str, str]]:
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT run_id, suite, label, batch FROM runs ORDER BY run_id"
        ).fetchall()
    return [tuple(r) for r in rows]


@needs_data
def test_a_suite_per_project_label_per_model(tmp_path: Path) -> None:
    home = _home(tmp_path)
    db = tmp_path / "a.duckdb"
    _ingest(db, str(home / ".claude" / "projects"), str(home / ".codex" / "sessions"))
    runs = _runs(db)
    suites = {suite for _, suite, _, _ in runs}
    assert suites == {
        "claude-code/-Users-me-pomodoro",
        "claude-code/-Users-me-demo",
        "codex-cli/codemie-code",
    }
    pomodoro = [r for r in runs if r[1] == "claude-code/-Users-me-pomodoro"]
    assert [(r[2], r[3]) for r in pomodoro] == [("claude-sonnet-4-5-20250929", "2025-10-21")]


@needs_data
def test_label_by_branch_fixed_label_and_time_zone(tmp_path: Path) -> None:
    home = _home(tmp_path)
    projects = str(home / ".claude" / "projects")
    by_branch = _runs(_ingest_to(tmp_path / "b.duckdb", projects, "--label-by", "branch"))
    demo = {r[0]: r[2] for r in by_branch if r[1] == "claude-code/-Users-me-demo"}
    assert demo["5c0375b4-57a5-4f26-b12d-d022ee4e51b7"] == "main"  # its gitBranch
    codex = _ingest_to(
        tmp_path / "x.duckdb", str(home / ".codex" / "sessions"), "--label-by", "branch"
    )
    with duckdb.connect(str(codex), read_only=True) as con:
        rows = con.execute("SELECT label, meta->>'git_branch' FROM runs").fetchall()
    assert rows and all(label == branch for label, branch in rows if branch)
    fixed = _runs(_ingest_to(tmp_path / "c.duckdb", projects, "--label", "nightly-a"))
    assert {r[2] for r in fixed} == {"nightly-a"}
    # 1af7fc5e starts 2025-09-03 00:47 UTC: the evening before in Los Angeles
    west = _runs(_ingest_to(tmp_path / "d.duckdb", projects, "--tz", "America/Los_Angeles"))
    utc = _runs(_ingest_to(tmp_path / "e.duckdb", projects))
    day = {r[0]: r[3] for r in west}
    assert day["1af7fc5e-8455-4414-9ccd-011d40f70b2a"] == "2025-09-02"
    assert {r[0]: r[3] for r in utc}["1af7fc5e-8455-4414-9ccd-011d40f70b2a"] == "2025-09-03"


def _ingest_to(db: Path, *args: str) -> Path:
    _ingest(db, *args)
    return db


def test_bad_session_options_are_usage_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UsageError, match="--label-by"):
        session_options("day")
    with pytest.raises(UsageError, match="--tz"):
        session_options(tz="Mars/Olympus")
    with pytest.raises(UsageError, match="--label"):
        session_options(label=" ")
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    assert session_options().tz == "Asia/Tokyo"
    monkeypatch.setenv("TZ", "not-a-zone")
    assert session_options().tz == "UTC"
    result = runner.invoke(make_app(), ["ingest", ".", "--tz", "Mars/Olympus"])
    assert result.exit_code == 2


@needs_data
def test_daily_rerun_loads_only_new_or_grown_sessions(tmp_path: Path) -> None:
    home = _home(tmp_path, lines=40)  # the pomodoro session cut short: it grows later
    db = tmp_path / "a.duckdb"
    projects = str(home / ".claude" / "projects")
    first = _ingest(db, projects)
    assert first["replaced_runs"] == 0
    before = {r[0]: r for r in _runs(db)}
    again = _ingest(db, projects)  # nothing changed: everything skipped as already loaded
    assert again["counts"]["runs"] == 0 and again["loaded"] == []
    session = home / ".claude" / "projects" / "-Users-me-pomodoro"
    shutil.copy(POMODORO, next(session.glob("*.jsonl")))  # the session grew
    grown = _ingest(db, projects)
    assert [
        row["file"].endswith("36d9e1bc-63bf-4e97-8a3e-2b20ba8583f2.jsonl")
        for row in grown["loaded"]
    ] == [True]
    assert grown["replaced_runs"] == 1
    after = {r[0]: r for r in _runs(db)}
    assert after.keys() == before.keys()  # replaced, not duplicated
    with duckdb.connect(str(db), read_only=True) as con:
        steps = con.execute("SELECT n_steps FROM runs WHERE run_id LIKE '36d9e1bc%'").fetchone()
    assert steps is not None and steps[0] > 0
