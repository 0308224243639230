"""--engine spark gives the DuckDB engine's output bit for bit: on the sample runs and on 500
seeded random pairs, compare --json and gate --json from a .duckdb file, from the Parquet
archive with DuckDB, and from the Parquet archive with Spark (local[2]) are identical."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reportgen.archive.parquet_convert import convert
from reportgen.cli import app
from reportgen.errors import InputError
from reportgen.ingest import ingest
from reportgen.spark.tables import archive_files
from tests.archive.test_parquet import random_runs, write_runs

runner = CliRunner()


def _json(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code in (0, 3), result.output
    return result.output


def _three_ways(file: str, folder: str) -> None:
    for command in (("compare", "--json"), ("gate", "--batch", "all", "--json")):
        want = _json(command[0], "--db", file, *command[1:])
        assert _json(command[0], "--db", folder, *command[1:]) == want
        assert _json(command[0], "--db", folder, *command[1:], "--engine", "spark") == want


def test_sample_runs_identical_on_spark(spark: Any, tmp_path: Path, sample_runs: Path) -> None:
    file = str(tmp_path / "a.duckdb")
    ingest([sample_runs], file)
    convert(file, str(tmp_path / "pq"))
    _three_ways(file, str(tmp_path / "pq"))


def test_500_random_pairs_identical_on_spark(spark: Any, tmp_path: Path) -> None:
    runs = random_runs(2026)
    file = str(tmp_path / "a.duckdb")
    ingest(write_runs(tmp_path / "in", runs), file)
    convert(file, str(tmp_path / "pq"))
    _three_ways(file, str(tmp_path / "pq"))


def test_user_job_pair_metrics_and_errors(spark: Any, tmp_path: Path, sample_runs: Path) -> None:
    from reportgen.spark import pair_metrics, read_archive
    from reportgen.spark.metrics import collect_records

    folder = tmp_path / "pq"
    folder.mkdir()
    ingest([sample_runs], folder)
    runs, steps = read_archive(spark, folder)
    pairs = spark.createDataFrame(
        [("p1", "fix-login", "2026-11-28/fix-login/baseline", "2026-11-28/fix-login/candidate")],
        "pair_id string, task_id string, baseline_run_id string, candidate_run_id string",
    )
    assert runs.filter("run_id = '2026-11-28/fix-login/baseline'").count() == 1
    (record,) = collect_records(pair_metrics(pairs, runs, steps), ["p1"])
    assert record["pair_id"] == "p1" and 0 <= record["trajectory_divergence_index"] <= 1
    with pytest.raises(InputError, match="Parquet archive"):
        archive_files(tmp_path / "x.duckdb", "runs")
