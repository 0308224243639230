"""``reportgen build`` through the CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reportgen.cli import app
from reportgen.site import BuildReport
from tests.site.conftest import BUILD_TIME

runner = CliRunner()


def test_help_names_every_option() -> None:
    result = runner.invoke(app, ["build", "--help"])
    assert result.exit_code == 0
    for option in (
        "--db",
        "--out",
        "--build-time",
        "--baseline-label",
        "--candidate-label",
        "--json",
    ):
        assert option in result.output


@pytest.fixture
def site_copy(demo_site: tuple[Path, BuildReport], tmp_path: Path) -> Path:
    """A copy of the demo site, so the command rebuilds incrementally (fast)."""
    out = tmp_path / "site"
    shutil.copytree(demo_site[0], out)
    return out


def test_build_prints_pages_written_and_skipped(demo_db: Path, site_copy: Path) -> None:
    args = ["build", "--db", str(demo_db), "--out", str(site_copy), "--build-time", BUILD_TIME]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "487 pages, 0 written, 487 unchanged" in first.output
    assert str(site_copy / "index.html") in first.output
    report = json.loads(runner.invoke(app, [*args, "--json"]).output)
    assert (report["written"], report["skipped"]) == (0, 487)
    assert report["build_time"] == BUILD_TIME


def test_source_date_epoch_pins_the_build_time(demo_db: Path, site_copy: Path) -> None:
    args = ["build", "--db", str(demo_db), "--out", str(site_copy), "--json"]
    result = runner.invoke(app, args, env={"SOURCE_DATE_EPOCH": "0"})
    report = json.loads(result.output)
    assert report["build_time"] == "1970-01-01T00:00:00Z"
    assert report["written"] == 1, "the index shows the new build time"


def test_bad_input_exits_1_and_usage_errors_exit_2(tmp_path: Path, demo_db: Path) -> None:
    missing = runner.invoke(
        app, ["build", "--db", str(tmp_path / "none.duckdb"), "--out", str(tmp_path / "s")]
    )
    assert missing.exit_code == 1 and "no archive here" in missing.output
    bad_time = runner.invoke(
        app, ["build", "--db", str(demo_db), "--out", str(tmp_path / "s"), "--build-time", "soon"]
    )
    assert bad_time.exit_code == 2
