"""--build-time and SOURCE_DATE_EPOCH out of range or garbage: a usage error (exit 2) naming
the option or variable, no traceback, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from reportgen.cli import app

runner = CliRunner()


@pytest.mark.parametrize(
    "value",
    ["99999-01-01", "garbage", "0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00", ""],
)
def test_bad_build_time_is_a_usage_error(
    value: str, two_archives: tuple[Path, Path], tmp_path: Path
) -> None:
    out = tmp_path / "site"
    result = runner.invoke(
        app, ["build", "--db", str(two_archives[0]), "--out", str(out), "--build-time", value]
    )
    assert result.exit_code == 2, result.output
    assert "--build-time" in result.stderr and "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1
    assert not out.exists()


@pytest.mark.parametrize("value", ["1e20", "abc", "100000000000000000000", "-99999999999999"])
def test_bad_source_date_epoch_is_a_usage_error(
    value: str, two_archives: tuple[Path, Path], tmp_path: Path
) -> None:
    out = tmp_path / "site"
    result = runner.invoke(
        app,
        ["build", "--db", str(two_archives[0]), "--out", str(out)],
        env={"SOURCE_DATE_EPOCH": value},
    )
    assert result.exit_code == 2, result.output
    assert "SOURCE_DATE_EPOCH" in result.stderr and "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1
    assert not out.exists()
