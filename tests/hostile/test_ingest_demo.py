"""Case 3: the demo never writes into an archive (or site) it did not create."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.demo import run_demo
from reportgen.errors import InputError
from tests.hostile.conftest import cli, one_line
from tests.hostile.fingerprint import archive_fingerprint


def test_demo_out_dot_refuses_the_users_archive(archive: Path, tmp_path: Path) -> None:
    own = tmp_path / "reportgen.duckdb"
    archive.rename(own)
    before = own.read_bytes()
    result = cli("demo", "--out", tmp_path)
    assert result.exit_code == 2, result.output
    one_line(result.stderr, str(own), "already exists", "--out")
    assert own.read_bytes() == before
    assert not (tmp_path / "site").exists()


def test_demo_refuses_an_existing_site_folder(tmp_path: Path) -> None:
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "mine.html").write_text("mine")
    result = cli("demo", "--out", tmp_path)
    assert result.exit_code == 2, result.output
    one_line(result.stderr, str(tmp_path / "site"), "already exists")
    assert (tmp_path / "site" / "mine.html").read_text() == "mine"
    assert not (tmp_path / "reportgen.duckdb").exists()


def test_demo_into_a_new_folder_works_once(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    db, report, _ = run_demo(out, site=False)
    assert db == out / "reportgen.duckdb" and report.counts["runs"] == 288
    fingerprint = archive_fingerprint(db)
    result = cli("demo", "--out", out)
    assert result.exit_code == 2, result.output
    assert archive_fingerprint(db) == fingerprint


def test_an_archive_appearing_meanwhile_is_not_written(
    tmp_path: Path, archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reportgen import demo

    target = tmp_path / "reportgen.duckdb"
    real = demo.ingest

    def racing(paths: list[Path], db: Path, **kw: object) -> object:
        archive.rename(target)  # someone creates the archive after the demo's check
        return real(paths, db, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(demo, "ingest", racing)
    before = archive_fingerprint(archive)
    with pytest.raises(InputError, match="already exists"):
        run_demo(tmp_path, site=False)
    assert archive_fingerprint(target) == before


def test_demo_without_out_reuses_one_temp_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --out the demo writes to <tempdir>/reportgen-demo, replacing its own earlier
    folder each run (never a new folder per run), and says so."""
    import tempfile

    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))
    first = cli("demo")
    assert first.exit_code == 0, first.output
    folder = tmp_path / "reportgen-demo"
    assert f"demo folder: {folder} (replaced by the next" in first.stdout
    (folder / "left-over.txt").write_text("from the first run")
    second = cli("demo")
    assert second.exit_code == 0, second.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reportgen-demo"]
    assert not (folder / "left-over.txt").exists() and (folder / "site" / "index.html").is_file()


def test_demo_without_out_never_replaces_a_folder_it_did_not_make(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))
    (tmp_path / "reportgen-demo").mkdir()
    (tmp_path / "reportgen-demo" / "mine.txt").write_text("keep")
    result = cli("demo")
    assert result.exit_code == 2 and "is not an earlier demo's folder" in result.stderr
    assert (tmp_path / "reportgen-demo" / "mine.txt").read_text() == "keep"
