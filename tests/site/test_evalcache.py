"""The every-night evaluation kept between builds (site/evalcache.py): a night unchanged since
the last build is read back, not evaluated again, and the site is the same byte for byte."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import duckdb
import pytest

import reportgen.site.evalcache as evalcache
from reportgen.site import build_site
from reportgen.site.redaction import Redaction
from tests.site.conftest import BUILD_TIME, archive_nights


@pytest.fixture
def evaluated(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many pairs each evaluation call of the build was given."""
    calls: list[int] = []
    real = evalcache.evaluate_part

    def counting(con: Any, part: Any, **kwargs: Any) -> Any:
        calls.append(len(part.pairs))
        return real(con, part, **kwargs)

    monkeypatch.setattr(evalcache, "evaluate_part", counting)
    return calls


def _same(a: Path, b: Path) -> None:
    diff = subprocess.run(["diff", "-r", str(a), str(b)], capture_output=True, text=True)
    assert diff.returncode == 0, diff.stdout[:2000]


def test_a_build_from_the_cache_is_the_build_without_it(
    demo_db: Path, tmp_path: Path, evaluated: list[int]
) -> None:
    build_site(demo_db, tmp_path / "one", build_time=BUILD_TIME, keep_nights=2)
    assert sum(evaluated) > 0 and (tmp_path / ".one.cache").is_dir()
    evaluated.clear()
    shutil.copytree(tmp_path / ".one.cache", tmp_path / ".two.cache")
    build_site(demo_db, tmp_path / "two", build_time=BUILD_TIME, keep_nights=2)
    assert evaluated == []  # every night read back
    _same(tmp_path / "one", tmp_path / "two")


def test_only_a_changed_night_is_evaluated_again(
    demo_db: Path, tmp_path: Path, evaluated: list[int]
) -> None:
    db = tmp_path / "archive.duckdb"
    shutil.copy(demo_db, db)
    out = tmp_path / "site"
    build_site(db, out, build_time=BUILD_TIME)
    every = sum(evaluated)
    evaluated.clear()
    night = archive_nights(db)[0]
    con = duckdb.connect(str(db))
    try:
        changed = con.execute(
            "UPDATE steps SET latency_ms = coalesce(latency_ms, 0) + 1000 WHERE run_id IN "
            "(SELECT run_id FROM runs WHERE batch = ? AND label = 'candidate')",
            [night],
        ).fetchall()
    finally:
        con.close()
    assert changed
    build_site(db, out, build_time=BUILD_TIME)
    assert 0 < sum(evaluated) < every  # that night's pairs only
    fresh = tmp_path / "fresh"
    build_site(db, fresh, build_time=BUILD_TIME)  # a site of its own: no cache
    _same(out, fresh)


def test_another_policy_evaluates_every_night(
    demo_db: Path, tmp_path: Path, evaluated: list[int]
) -> None:
    out = tmp_path / "site"
    build_site(demo_db, out, build_time=BUILD_TIME)
    every = sum(evaluated)
    evaluated.clear()
    build_site(demo_db, out, build_time=BUILD_TIME, redaction=Redaction(payloads=False))
    assert sum(evaluated) == every


def test_a_cache_file_that_is_not_one_is_ignored(
    demo_db: Path, tmp_path: Path, evaluated: list[int]
) -> None:
    out = tmp_path / "site"
    build_site(demo_db, out, build_time=BUILD_TIME)
    every = sum(evaluated)
    (cache,) = (tmp_path / ".site.cache").iterdir()
    for text in ['{"format": 1, "nights": [{"night": 1}]}', "not json", "[]"]:
        cache.write_text(text, encoding="utf-8")
        evaluated.clear()
        build_site(demo_db, out, build_time=BUILD_TIME)
        assert sum(evaluated) == every


def test_past_nights_statistics_are_kept_with_them(
    demo_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A past night's label-level statistics are judged once and kept with its evaluation: a
    build from the cache judges the latest night only, and its site is the build's without."""
    import reportgen.site.pages_compare as pages_compare

    build_site(demo_db, tmp_path / "one", build_time=BUILD_TIME)
    (cached,) = (tmp_path / ".one.cache").glob("every-night-*.json")
    held = evalcache._read(cached)
    latest = max(n for n in held if n is not None)
    assert all(held[n].statistics for n in held if n != latest)  # judged and kept
    judged: list[int] = []
    real = pages_compare.judged_pairs

    def counting(records: Any, keys: Any, floors: Any) -> Any:
        judged.append(len(records))
        return real(records, keys, floors)

    monkeypatch.setattr(pages_compare, "judged_pairs", counting)
    shutil.copytree(tmp_path / ".one.cache", tmp_path / ".two.cache")
    build_site(demo_db, tmp_path / "two", build_time=BUILD_TIME)
    nights = len([n for n in held if n is not None])
    assert nights > 1 and len(judged) <= 2  # the latest night (and a suite of it), no other
    _same(tmp_path / "one", tmp_path / "two")
