"""Case 10: symlink loops, dangling symlinks, FIFOs and devices never hang or crash ingest:
inside folders they are skipped with a notice; given explicitly they are a clear error.
Symlinks to regular files inside folders are followed, with a notice."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from reportgen.ingest import ingest
from tests.conftest import make_run
from tests.hostile.conftest import cli, one_line, write_runs
from tests.hostile.fingerprint import archive_fingerprint

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs and symlinks")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder with one good file and every kind of hostile entry."""
    root = tmp_path / "runs"
    write_runs(root / "good.jsonl", [make_run("t", run_id="good")])
    target = write_runs(tmp_path / "elsewhere" / "linked.jsonl", [make_run("t", run_id="linked")])
    os.mkfifo(root / "fifo.jsonl")
    (root / "loop.jsonl").symlink_to(root / "loop.jsonl")
    (root / "a.json").symlink_to(root / "b.json")
    (root / "b.json").symlink_to(root / "a.json")
    (root / "dangling.json").symlink_to(tmp_path / "nowhere.json")
    (root / "zero.json").symlink_to("/dev/zero")
    (root / "link.jsonl").symlink_to(target)
    (root / "subdir-link").symlink_to(root, target_is_directory=True)
    return root


def test_folder_skips_non_regular_files_with_notices(folder: Path, tmp_path: Path) -> None:
    report = ingest([folder], tmp_path / "a.duckdb")
    assert sorted(f["file"] for f in report.loaded) == [
        str(folder / "good.jsonl"),
        str(folder / "link.jsonl"),
    ]
    notices = "\n".join(report.notices)
    for name, why in [
        ("fifo.jsonl", "FIFO"),
        ("loop.jsonl", "symlink loop"),
        ("a.json", "symlink loop"),
        ("dangling.json", "dangling symlink"),
        ("zero.json", "symlink to a device"),
        ("subdir-link", "symlink to a folder"),
    ]:
        assert f"skipped {folder / name}: " in notices and why in notices, (name, notices)
    assert f"followed {folder / 'link.jsonl'}: a symlink to a regular file" in notices


def test_folder_ingest_via_cli_does_not_hang(folder: Path, tmp_path: Path) -> None:
    result = cli("ingest", folder, "--db", tmp_path / "a.duckdb", "--json")
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)["loaded"]) == 2


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("fifo.jsonl", "a FIFO"),
        ("loop.jsonl", "a symlink loop"),
        ("dangling.json", "a dangling symlink"),
        ("zero.json", "a symlink to a device"),
    ],
)
def test_explicit_special_file_is_a_clear_error(
    name: str, why: str, folder: Path, archive: Path
) -> None:
    before = archive_fingerprint(archive)
    result = cli("ingest", folder / name, "--db", archive)
    assert result.exit_code == 1, result.output
    one_line(result.stderr, str(folder / name), why)
    assert archive_fingerprint(archive) == before


def test_explicit_symlink_to_a_file_is_followed(folder: Path, tmp_path: Path) -> None:
    result = cli("ingest", folder / "link.jsonl", "--db", tmp_path / "a.duckdb", "-q")
    assert result.exit_code == 0, result.output
