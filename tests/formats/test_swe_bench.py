"""Leaderboard submissions: every result file of both shared submissions loads as a run,
resolved counts equal the result files', and the two systems compare task by task."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reportgen.archive import connect
from reportgen.divergence.compare import compare_labels
from reportgen.errors import InputError
from reportgen.ingest.loader import ingest
from reportgen.statistics.summary import task_classes

from .helpers import DATA, needs_data

ROOT = DATA / "swe-bench-experiments" / "swe-polybench" / "evaluation" / "PBVerified"
KODAH = ROOT / "20260430_kodah_gpt-5-mini"
ISWE = ROOT / "20260201_iswe_agent"


def _results(folder: Path) -> dict[str, dict[str, object]]:
    return {
        p.name.removesuffix("_result.json"): json.loads(p.read_text())
        for p in sorted((folder / "logs").glob("*_result.json"))
    }


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not ROOT.is_dir():
        pytest.skip("shared leaderboard data missing")
    db = tmp_path_factory.mktemp("lb") / "a.duckdb"
    ingest([DATA / "swe-bench-experiments"], db)
    return db


@needs_data
@pytest.mark.parametrize(("folder", "label"), [(KODAH, "Kodah"), (ISWE, "iSWE-Agent")])
def test_each_submission_counts(archive: Path, folder: Path, label: str) -> None:
    results = _results(folder)
    con = connect(archive, read_only=True)
    try:
        row = con.execute(
            "SELECT count(*), count(*) FILTER (WHERE success), sum(n_steps),"
            " (SELECT count(*) FROM steps WHERE type = 'tool' AND status = 'error'"
            "  AND run_id IN (SELECT run_id FROM runs WHERE label = $l)),"
            " (SELECT count(*) FROM steps WHERE tokens_in IS NOT NULL"
            "  AND run_id IN (SELECT run_id FROM runs WHERE label = $l))"
            " FROM runs WHERE label = $l",
            {"l": label},
        ).fetchone()
    finally:
        con.close()
    resolved = sum(1 for r in results.values() if r["resolved"] is True)
    patches = sum(1 for r in results.values() if r.get("generation") is True)
    assert row == (len(results), resolved, len(results) + patches, 0, 0)


@needs_data
def test_resolved_counts_match_metadata(archive: Path) -> None:
    """iSWE-Agent's metadata.yaml says 46.38% (32/69); Kodah resolves 19 of these 69."""
    con = connect(archive, read_only=True)
    try:
        counts = dict(
            con.execute(
                "SELECT label, count(*) FILTER (WHERE success) FROM runs GROUP BY 1"
            ).fetchall()
        )
    finally:
        con.close()
    assert counts == {"Kodah": 19, "iSWE-Agent": 32}
    assert "(32/69)" in (ISWE / "metadata.yaml").read_text()


@needs_data
def test_two_submissions_compare_task_by_task(archive: Path) -> None:
    con = connect(archive, read_only=True)
    try:
        comparison = compare_labels(con, "Kodah", "iSWE-Agent")
    finally:
        con.close()
    base, cand = _results(KODAH), _results(ISWE)
    assert len(comparison.pairs) == 69 and not comparison.unpaired
    classes = task_classes(comparison.pairs, {})
    fixed = sorted(i for i in base if not base[i]["resolved"] and cand[i]["resolved"])
    broken = sorted(i for i in base if base[i]["resolved"] and not cand[i]["resolved"])
    assert sorted(classes["fixed_tasks"]) == fixed
    assert sorted(classes["newly_broken_tasks"]) == broken
    assert classes["still_passing"] == sum(
        1 for i in base if base[i]["resolved"] and cand[i]["resolved"]
    )


@needs_data
def test_results_without_predictions_load_alone(tmp_path: Path) -> None:
    folder = tmp_path / "PB" / "sys"
    (folder / "logs").mkdir(parents=True)
    for path in sorted((ISWE / "logs").glob("*_result.json"))[:3]:
        shutil.copy(path, folder / "logs" / path.name)
    (folder / "metadata.yaml").write_text("name: Solo\n")
    report = ingest([folder], tmp_path / "a.duckdb")
    assert report.counts["runs"] == 3


def test_bad_result_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "sys" / "logs"
    folder.mkdir(parents=True)
    path = folder / "x_result.json"
    path.write_text('{"instance_id": "x", "resolved": "yes", "patch_applied": true}')
    with pytest.raises(InputError) as caught:
        ingest([path], tmp_path / "a.duckdb")
    assert caught.value.field == "resolved"
