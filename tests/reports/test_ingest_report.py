"""``reportgen ingest`` on the terminal: files skipped as already loaded take one line (their
count and the first), ``--verbose`` lists them all, ``--json`` keeps the full list."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from reportgen.cli import app
from reportgen.ingest import IngestReport
from reportgen.reports.ingest import print_ingest_report
from tests.conftest import make_run

runner = CliRunner()


def _folder(tmp_path: Path, n: int) -> Path:
    folder = tmp_path / "runs"
    folder.mkdir()
    for i in range(n):
        run = make_run(f"t{i}", run_id=f"r{i}", n_steps=1)
        (folder / f"r{i:02d}.jsonl").write_text(json.dumps(run) + "\n", encoding="utf-8")
    return folder


def test_eighty_duplicates_take_one_line(tmp_path: Path) -> None:
    folder = _folder(tmp_path, 80)
    db = str(tmp_path / "a.duckdb")
    assert runner.invoke(app, ["ingest", str(folder), "--db", db]).exit_code == 0
    result = runner.invoke(app, ["ingest", str(folder), "--db", db])
    assert result.exit_code == 0, result.output
    about = [line for line in result.stdout.splitlines() if "skipped" in line or "r0" in line]
    assert 1 <= len(about) <= 3, result.stdout
    assert about[0].startswith("skipped 80 file(s) already loaded (e.g. ")
    assert "--verbose lists them" in about[0]
    verbose = runner.invoke(app, ["ingest", str(folder), "--db", db, "--verbose"])
    listed = [line for line in verbose.stdout.splitlines() if line.startswith(f"  {folder}")]
    assert len(listed) == 80
    as_json = runner.invoke(app, ["ingest", str(folder), "--db", db, "--json"])
    assert len(json.loads(as_json.stdout)["skipped"]) == 80


def test_one_skipped_file_needs_no_hint() -> None:
    report = IngestReport(db="a.duckdb")
    report.skipped = [{"file": "x.json", "content_hash": "h", "reason": "already loaded"}]
    console = Console(record=True, width=200)
    print_ingest_report(console, report)
    lines = console.export_text().splitlines()
    assert lines[1] == "skipped 1 file(s) already loaded (e.g. x.json: already loaded)"
