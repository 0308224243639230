"""The site writer under hostile conditions: overlapping builds, killed builds, files the user
put in --out, a full disk."""

from __future__ import annotations

import errno
import os
import subprocess
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reportgen.cli import app
from reportgen.site import build_site, writer
from tests.hostile.conftest import assert_whole, site_files, start_build

BUILD_TIME = "2026-11-29T06:00:00Z"
Refs = tuple[dict[str, bytes], dict[str, bytes]]


def _cli_build(db: Path, out: Path) -> subprocess.Popen[bytes]:
    return start_build(db, out, BUILD_TIME)


def _leftovers(out: Path) -> list[str]:
    """What a build left beside its site, but for the site's evaluation cache."""
    mine = (out.name, f".{out.name}.cache")
    return sorted(p.name for p in out.parent.iterdir() if p.name not in mine)


def test_overlapping_builds_never_mix_two_archives(
    two_archives: tuple[Path, Path], reference_sites: Refs, tmp_path: Path
) -> None:
    db_a, db_b = two_archives
    ref_a, ref_b = reference_sites
    out = tmp_path / "site"
    build_site(db_a, out, build_time=BUILD_TIME)
    for delay in (0.0, 0.3, 0.8):
        first = _cli_build(db_b, out)
        time.sleep(delay)
        second = _cli_build(db_a, out)
        for proc in (first, second):
            _, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err.decode()
        assert site_files(out) in (ref_a, ref_b), "a mixed site"
        assert_whole(out)
        # a later build of either archive gives exactly its clean site
        build_site(db_b, out, build_time=BUILD_TIME)
        assert site_files(out) == ref_b
        build_site(db_a, out, build_time=BUILD_TIME)
        assert site_files(out) == ref_a
    assert _leftovers(out) == []


def test_a_second_build_waits_for_the_lock_or_says_who_holds_it(
    two_archives: tuple[Path, Path], tmp_path: Path
) -> None:
    out = tmp_path / "site"
    held = writer.SiteWriter(out)
    try:
        with pytest.raises(writer.UsageError, match=r"another reportgen build .* is running"):
            writer.SiteWriter(out, lock_wait=0.2)
    finally:
        held.abort()
    build_site(two_archives[0], out, build_time=BUILD_TIME)  # free again
    assert _leftovers(out) == []


def test_next_build_recovers_from_a_build_killed_between_renames(
    two_archives: tuple[Path, Path], reference_sites: Refs, tmp_path: Path
) -> None:
    db_a, db_b = two_archives
    out = tmp_path / "site"
    build_site(db_a, out, build_time=BUILD_TIME)
    # what a build killed between the two renames of the fallback swap leaves behind
    os.replace(out, tmp_path / ".site.old-deadbeef")
    (tmp_path / ".site.build-x1").mkdir()
    (tmp_path / ".site.build-x1" / "index.html").write_text("half")
    writer.recover(out)
    assert site_files(out) == reference_sites[0], "the old site is back"
    assert _leftovers(out) == []
    (tmp_path / ".site.build-x2").mkdir()
    build_site(db_b, out, build_time=BUILD_TIME)
    assert site_files(out) == reference_sites[1]
    assert _leftovers(out) == [], "stale temp folders are removed"


def test_fallback_swap_without_rename_exchange(
    two_archives: tuple[Path, Path], reference_sites: Refs, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setattr(writer, "_exchange", lambda a, b: False)
    out = tmp_path / "site"
    build_site(two_archives[0], out, build_time=BUILD_TIME)
    build_site(two_archives[1], out, build_time=BUILD_TIME)
    assert site_files(out) == reference_sites[1]
    assert _leftovers(out) == []


def test_files_the_user_put_in_out_are_kept(
    two_archives: tuple[Path, Path], reference_sites: Refs, tmp_path: Path
) -> None:
    db_a, db_b = two_archives
    out = tmp_path / "site"
    build_site(db_a, out, build_time=BUILD_TIME)
    (out / "CNAME").write_text("reports.example.com\n")
    (out / "my-notes").mkdir()
    (out / "my-notes" / "todo.md").write_text("- check cost\n")
    (out / "index.html.bak").write_text("old copy")
    (out / "my-link").symlink_to("my-notes")
    page = next(p for p in reference_sites[1] if p.startswith("tasks/"))
    (out / page).write_text("mine")  # a page of the site: the new build's page wins
    build_site(db_b, out, build_time=BUILD_TIME)
    user = frozenset({"CNAME", "my-notes/todo.md", "index.html.bak"})
    assert (out / "CNAME").read_text() == "reports.example.com\n"
    assert (out / "my-notes" / "todo.md").read_text() == "- check cost\n"
    assert (out / "my-link").is_symlink() and os.readlink(out / "my-link") == "my-notes"
    assert (out / page).read_bytes() == reference_sites[1][page]
    files = site_files(out)
    assert {k: v for k, v in files.items() if k not in user} == reference_sites[1]
    assert_whole(out, user)
    build_site(db_a, out, build_time=BUILD_TIME)  # and again, with a manifest that lists files
    assert (out / "CNAME").read_text() == "reports.example.com\n"
    assert {k: v for k, v in site_files(out).items() if k not in user} == reference_sites[0]


def test_user_files_kept_over_a_site_of_an_older_manifest(
    two_archives: tuple[Path, Path], reference_sites: Refs, tmp_path: Path
) -> None:
    import json

    out = tmp_path / "site"
    build_site(two_archives[0], out, build_time=BUILD_TIME)
    manifest = out / writer.MANIFEST
    data = json.loads(manifest.read_text())
    del data["files"]  # as reportgen wrote it before manifests listed every file
    manifest.write_text(json.dumps(data))
    (out / "CNAME").write_text("x.example.com\n")
    build_site(two_archives[1], out, build_time=BUILD_TIME)
    assert (out / "CNAME").read_text() == "x.example.com\n"
    assert {k: v for k, v in site_files(out).items() if k != "CNAME"} == reference_sites[1]


def test_full_disk_is_one_line_and_leaves_the_previous_site(
    two_archives: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "site"
    build_site(two_archives[0], out, build_time=BUILD_TIME)
    before = site_files(out)
    calls = {"n": 0}
    real = writer.SiteWriter._write

    def full(self: writer.SiteWriter, rel: str, data: bytes) -> None:
        calls["n"] += 1
        if calls["n"] > 5:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self.tmp / rel))
        real(self, rel, data)

    monkeypatch.setattr(writer.SiteWriter, "_write", full)
    result = CliRunner().invoke(
        app,
        ["build", "--db", str(two_archives[1]), "--out", str(out), "--build-time", BUILD_TIME],
    )
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "No space left on device" in lines[0] and str(out) in lines[0]
    assert "Traceback" not in result.output
    assert site_files(out) == before
    assert _leftovers(out) == []


def test_out_given_as_a_symlink_is_replaced_cleanly(
    two_archives: tuple[Path, Path], reference_sites: Refs, tmp_path: Path
) -> None:
    real = tmp_path / "real"
    build_site(two_archives[0], real, build_time=BUILD_TIME)
    out = tmp_path / "site"
    out.symlink_to(real, target_is_directory=True)
    build_site(two_archives[1], out, build_time=BUILD_TIME)
    assert not out.is_symlink() and site_files(out) == reference_sites[1]
    assert site_files(real) == reference_sites[0], "the symlink's target is left alone"
    assert _leftovers(out) == [".real.cache", "real"]  # the first site and its cache


def test_a_manifest_naming_files_outside_the_site_is_not_trusted(
    two_archives: tuple[Path, Path], reference_sites: Refs, tmp_path: Path
) -> None:
    import json

    out = tmp_path / "site"
    build_site(two_archives[0], out, build_time=BUILD_TIME)
    (tmp_path / "secret.txt").write_text("secret")
    manifest = out / writer.MANIFEST
    data = json.loads(manifest.read_text())
    for entry in data["pages"].values():
        entry["files"] = ["../secret.txt"]
    manifest.write_text(json.dumps(data))
    build_site(two_archives[0], out, build_time=BUILD_TIME)
    assert site_files(out) == reference_sites[0]
