"""Case 8: a bad --max-record-mb is a usage error (exit 2) naming the option; so is a config
file that is not UTF-8."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.errors import UsageError
from reportgen.ingest.options import check_max_record_mb
from tests.hostile.conftest import cli, one_line
from tests.hostile.fingerprint import archive_fingerprint

BAD = ["nan", "inf", "-inf", "1e400", "-1", "0", "1e-30"]


@pytest.mark.parametrize("value", BAD)
def test_bad_max_record_mb_is_a_usage_error(value: str, archive: Path, good_file: Path) -> None:
    before = archive_fingerprint(archive)
    result = cli("ingest", good_file, "--db", archive, f"--max-record-mb={value}")
    assert result.exit_code == 2, result.output
    one_line(result.stderr, "--max-record-mb")
    assert archive_fingerprint(archive) == before


@pytest.mark.parametrize("value", [float(v) for v in BAD])
def test_check_max_record_mb_refuses(value: float) -> None:
    with pytest.raises(UsageError, match="--max-record-mb"):
        check_max_record_mb(value)


@pytest.mark.parametrize("value", [0.001, 1, 16, 4096])
def test_check_max_record_mb_accepts(value: float) -> None:
    assert check_max_record_mb(value) == value


def test_a_tiny_limit_still_works(tmp_path: Path, good_file: Path) -> None:
    result = cli("ingest", good_file, "--db", tmp_path / "a.duckdb", "--max-record-mb=0.0001")
    assert result.exit_code == 1, result.output
    one_line(result.stderr, str(good_file), "limit per record")


@pytest.mark.parametrize("command", ["compare", "gate"])
def test_non_utf8_config_is_a_usage_error(
    command: str, tmp_path: Path, archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "reportgen.toml"
    config.write_bytes(b"[cli]\nmax_loops = 0 # \xff\xfe caf\xe9\n")
    monkeypatch.chdir(tmp_path)
    result = cli(command, "--db", archive)
    assert result.exit_code == 2, result.output
    one_line(result.stderr, "reportgen.toml")
