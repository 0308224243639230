"""Case 13: a quoted ``~`` in --db or in an input path is a literal folder name, as in the
shell; DuckDB is only ever given absolute paths, so it never expands it to $HOME."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import make_run
from tests.hostile.conftest import ROOT, one_line


def run(cwd: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "reportgen", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )


def setup(tmp_path: Path) -> tuple[Path, Path]:
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    (work / "runs.jsonl").write_text(json.dumps(make_run("t", run_id="r")) + "\n")
    return work, home


def test_tilde_db_without_such_folder_is_a_clear_error(tmp_path: Path) -> None:
    work, home = setup(tmp_path)
    result = run(work, home, "ingest", "runs.jsonl", "--db", "~/x.duckdb")
    assert result.returncode == 1, result.stderr
    one_line(result.stderr, "~/x.duckdb", "does not exist")
    assert list(home.iterdir()) == []


def test_tilde_db_is_a_folder_named_tilde(tmp_path: Path) -> None:
    work, home = setup(tmp_path)
    (work / "~").mkdir()
    result = run(work, home, "ingest", "runs.jsonl", "--db", "~/x.duckdb", "-q")
    assert result.returncode == 0, result.stderr
    assert (work / "~" / "x.duckdb").is_file()
    assert list(home.iterdir()) == []
    result = run(work, home, "build", "--out", "site", "--db", "~/x.duckdb")
    assert result.returncode == 0, result.stderr


def test_read_commands_with_a_missing_tilde_db(tmp_path: Path) -> None:
    work, home = setup(tmp_path)
    (home / "x.duckdb").write_text("not even an archive")
    for args in (["gate"], ["compare"], ["build", "--out", "site"]):
        result = run(work, home, *args, "--db", "~/x.duckdb")
        assert result.returncode == 1, result.stderr
        one_line(result.stderr, "~/x.duckdb", "no archive here")


def test_tilde_input_path_is_read_from_the_folder_named_tilde(tmp_path: Path) -> None:
    work, home = setup(tmp_path)
    (work / "~").mkdir()
    (work / "~" / "runs.jsonl").write_text(json.dumps(make_run("t", run_id="literal")) + "\n")
    (home / "runs.jsonl").write_text(json.dumps(make_run("t", run_id="from-home")) + "\n")
    result = run(work, home, "ingest", "~/runs.jsonl", "--db", "a.duckdb", "--json")
    assert result.returncode == 0, result.stderr
    import duckdb

    con = duckdb.connect(str(work / "a.duckdb"), read_only=True)
    try:
        assert con.execute("SELECT run_id FROM runs").fetchall() == [("literal",)]
    finally:
        con.close()


def test_tilde_out_of_demo_and_build_is_a_folder_named_tilde(tmp_path: Path) -> None:
    """The site's Parquet files are written by DuckDB too: they land under ./~, not $HOME."""
    work, home = setup(tmp_path)
    demo = run(work, home, "demo", "--out", "~/d")
    assert demo.returncode == 0, demo.stderr
    built = run(work, home, "build", "--db", "~/d/reportgen.duckdb", "--out", "~/site")
    assert built.returncode == 0, built.stderr
    for site in (work / "~" / "d" / "site", work / "~" / "site"):
        assert (site / "index.html").is_file() and (site / "data" / "files.parquet").is_file()
        assert any((site / "data" / "runs").glob("*.parquet"))
    assert list(home.iterdir()) == []
