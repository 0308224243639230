"""The CLI shell: help on every command, version, module entry point, JSON output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from reportgen import __version__, cli
from reportgen.cli import app, make_app

runner = CliRunner()
COMMANDS = sorted(get_command(app).commands)  # type: ignore[attr-defined]


def test_commands_present() -> None:
    assert {"ingest", "demo", "formats"} <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command: str) -> None:
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0
    assert "Usage:" in result.output and len(result.output.splitlines()) > 3
    # main() makes only the command its arguments name: the same command, nothing else
    alone = make_app(command)
    assert sorted(get_command(alone).commands) == [command]  # type: ignore[attr-defined]
    assert runner.invoke(alone, [command, "--help"]).output == result.output


def test_main_makes_only_the_command_it_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str | None] = []
    monkeypatch.setattr(cli, "make_app", lambda only=None: made.append(only) or app)
    for argv, only in ((["ingest", "x"], "ingest"), (["archive"], "archive"), (["--help"], None),
                       (["--version"], "--version"), (["no-such-command"], None),
                       ([], None)):  # fmt: skip
        monkeypatch.setattr(sys, "argv", ["reportgen", *argv])
        with pytest.raises(SystemExit):
            cli.main()
        assert made.pop() == only
    assert set(cli.COMMANDS) | set(cli.GROUPS) == set(COMMANDS)


@pytest.mark.parametrize(("given", "kept"), [(None, "1"), ("4", "4")])
def test_main_keeps_openblas_to_one_thread_unless_told(
    monkeypatch: pytest.MonkeyPatch, given: str | None, kept: str
) -> None:
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", given or "")  # undone after the test
    if given is None:
        monkeypatch.delenv("OPENBLAS_NUM_THREADS")
    monkeypatch.setattr(sys, "argv", ["reportgen", "--version"])
    with pytest.raises(SystemExit):
        cli.main()
    assert os.environ["OPENBLAS_NUM_THREADS"] == kept


def test_version_and_module_entry_point() -> None:
    assert runner.invoke(app, ["--version"]).output.strip() == f"reportgen {__version__}"
    result = subprocess.run(
        [sys.executable, "-m", "reportgen", "--version"], capture_output=True, text=True
    )
    assert result.returncode == 0 and result.stdout.strip() == f"reportgen {__version__}"


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert runner.invoke(app, ["ingest"]).exit_code == 2
    assert runner.invoke(app, ["no-such-command"]).exit_code == 2
    assert runner.invoke(app, ["ingest", str(tmp_path), "--format", "nope"]).exit_code in (1, 2)


def test_unknown_format_is_usage_error(tmp_path: Path, write_jsonl) -> None:
    path = write_jsonl("a.jsonl", [{"task_id": "t", "steps": []}])
    result = runner.invoke(
        app, ["ingest", str(path), "--db", str(tmp_path / "a.duckdb"), "--format", "nope"]
    )
    assert result.exit_code == 2 and "unknown format 'nope'" in result.stderr


def test_demo_json(tmp_path: Path) -> None:
    result = runner.invoke(app, ["demo", "--out", str(tmp_path), "--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["summary"]["tables"]["runs"] == 288
    assert {row["label"] for row in data["summary"]["labels"]} == {"baseline", "candidate"}
    assert Path(data["db"]).exists()
    assert data["summary"]["verdict"]["night"] == "2026-11-28"


def test_demo_ends_with_the_verdict_a_link_and_the_next_command(tmp_path: Path) -> None:
    """The demo's last lines: the latest night's headline (the words `gate` says), the site as
    a file:// link, and the command to run on one's own traces."""
    result = runner.invoke(app, ["demo", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    site, verdict, next_step = lines[-3:]
    assert site.startswith("site: file://") and site.split()[1].endswith("/site/index.html")
    gate = runner.invoke(
        app, ["gate", "--db", str(tmp_path / "reportgen.duckdb"), "--batch", "2026-11-28"]
    )
    said = gate.stdout.splitlines()[0]
    assert verdict == f"baseline vs candidate, night 2026-11-28: {said}"
    assert said.startswith("Worse: 2 tasks newly broken (migrate-db, review-pull-request)")
    assert next_step.startswith("next, your own traces: reportgen ingest PATH")


def test_ingest_json_and_quiet(tmp_path: Path, write_jsonl) -> None:
    path = write_jsonl("a.jsonl", [{"task_id": "t", "steps": []}])
    db = str(tmp_path / "a.duckdb")
    result = runner.invoke(app, ["ingest", str(path), "--db", db, "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["counts"]["runs"] == 1
    result = runner.invoke(app, ["ingest", str(path), "--db", db, "--quiet"])
    assert result.exit_code == 0 and result.stdout == ""


def test_formats_lists_native_formats() -> None:
    result = runner.invoke(app, ["formats", "--json"])
    names = [f["name"] for f in json.loads(result.stdout)]
    assert names[:3] == ["trace-v1", "iteration-v1", "outputs-v1"]


def test_cli_reference_is_current() -> None:
    """docs/cli.md is generated from the CLI; regenerate with `python -m reportgen.cli.docs > docs/cli.md`."""
    from reportgen.cli.docs import render

    committed = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text(
        encoding="utf-8"
    )
    assert render() == committed, "docs/cli.md is stale: python -m reportgen.cli.docs > docs/cli.md"
