"""Inspect Scout scan folders (../shared/data/inspect-scout): each scanner's results on a
transcript land in ``meta.scanners.<scanner>`` of the run of that transcript (the Inspect
sample whose uuid is the transcript id). What was attached is checked against what the test
reads itself straight from the scan's Parquet files (pyarrow), not against remembered numbers."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from reportgen.formats.adapters.inspect_scout import META_KEY
from reportgen.formats.registry import all_formats
from reportgen.ingest import ingest
from reportgen.site.pages_runs import SCANNERS

from .helpers import DATA, needs_data

pytestmark = needs_data

ROOT = DATA / "inspect-scout" / "inspect_scout"
SCAN = ROOT / "scans" / "scan_id=JzvEPBFB4aVpCU93FFbiFT"
LOGS = ROOT / "logs"
SECURITY = LOGS / "2025-09-23T08-09-58-04-00_security-guide_LuxZJVwvymC3S3SyoJczxB.eval"


def _parquet() -> dict[str, list[dict[str, Any]]]:
    """Each scanner's result rows, read from its Parquet file by the test itself."""
    return {
        path.stem: pq.read_table(
            path, columns=["transcript_id", "value", "value_type", "explanation", "scan_error"]
        ).to_pylist()
        for path in sorted(SCAN.glob("*.parquet"))
    }


def _scanners(db: Path) -> dict[str, dict[str, Any]]:
    """meta.scanners of every run that has one, by run id."""
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT run_id, CAST(meta->'scanners' AS VARCHAR) FROM runs"
            " WHERE (meta->'scanners') IS NOT NULL"
        ).fetchall()
    return {run_id: json.loads(found) for run_id, found in rows}


def _run_ids(db: Path) -> set[str]:
    with duckdb.connect(str(db), read_only=True) as con:
        return {r for (r,) in con.execute("SELECT run_id FROM runs").fetchall()}


def test_registered_and_detected(tmp_path: Path) -> None:
    assert "inspect-scout" in {f.name for f in all_formats()}
    assert META_KEY == SCANNERS  # the run page reads the key the adapter writes
    report = ingest([ROOT], tmp_path / "a.duckdb")
    formats = {Path(row["file"]).name: row["format"] for row in report.loaded}
    assert formats.pop("_scan.json") == "inspect-scout"
    assert set(formats.values()) == {"inspect"}  # the four .eval logs; _errors.jsonl not a file
    assert "_errors.jsonl" not in formats


def test_every_result_is_attached_to_its_run(tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    report = ingest([ROOT], db)
    attached = _scanners(db)
    results = _parquet()
    assert set(results) == {"word_counter", "message_length"}
    runs = _run_ids(db)
    expected_runs = {row["transcript_id"] for rows in results.values() for row in rows} & runs
    assert set(attached) == expected_runs
    assert len(attached) == len({r["transcript_id"] for r in results["word_counter"]})
    for scanner, rows in results.items():
        per_transcript: dict[str, list[dict[str, Any]]] = {}
        for row in rows:
            per_transcript.setdefault(row["transcript_id"], []).append(row)
        on_runs = {run_id: said[scanner] for run_id, said in attached.items() if scanner in said}
        assert set(on_runs) == set(per_transcript) & runs
        for transcript, given in per_transcript.items():
            entry = on_runs[transcript]
            assert entry["results"] == len(given) == 1
            assert given[0]["value_type"] == "number"
            assert entry["value"] == float(given[0]["value"])
            assert entry["explanation"] == given[0]["explanation"]
            assert entry["scan_id"] == SCAN.name.removeprefix("scan_id=")
            assert "error" not in entry and "answer" not in entry  # 'None' in the file
    total = sum(len(rows) for rows in results.values())
    (line,) = [n for n in report.notices if "Inspect Scout scan" in n]
    assert f"{total} result(s) and 0 scanner error(s) attached to {len(attached)} run(s)" in line
    assert "not runs of this load" not in line


def test_unscanned_log_gets_nothing(tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    ingest([ROOT], db)
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT suite, count(*) FILTER (WHERE (meta->'scanners') IS NULL) FROM runs GROUP BY ALL"
        ).fetchall()
    assert dict(rows)["websearch_addition_problem"] == 1  # its log is not in the scan


def test_logs_missing_from_the_load_say_so_in_one_line(tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    report = ingest([SCAN, SECURITY], db)
    attached = _scanners(db)
    results = _parquet()
    scanned = {r["transcript_id"] for rows in results.values() for r in rows}
    assert set(attached) == _run_ids(db) and len(attached) == report.counts["runs"] == 16
    (line,) = [n for n in report.notices if "Inspect Scout scan" in n]
    missing = len(scanned) - len(attached)
    assert f"{missing} scanned transcript(s) are not runs of this load or archive" in line
    assert "popularity_DN2wbX2ZvACsBpjwptzBRo.eval" in line and "security-guide" not in line


def test_a_scan_loaded_after_its_logs_annotates_the_archived_runs(tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    ingest([LOGS], db)
    assert _scanners(db) == {}
    report = ingest([SCAN], db)
    assert [row["format"] for row in report.loaded] == ["inspect-scout"]
    assert report.counts["runs"] == 0
    attached = _scanners(db)
    assert len(attached) == len({r["transcript_id"] for r in _parquet()["word_counter"]})
    again = ingest([SCAN], db)  # the same scan again: skipped, nothing changes
    assert again.loaded == [] and _scanners(db) == attached


def _copy_scan(tmp_path: Path) -> Path:
    folder = tmp_path / "scans" / "scan_id=test"
    folder.mkdir(parents=True)
    spec = json.loads((SCAN / "_scan.json").read_text())
    spec["scan_id"] = "test"
    spec["scanners"] = {"judge": {"name": "judge"}}
    (folder / "_scan.json").write_text(json.dumps(spec))
    return folder


def test_errors_several_results_and_typed_values(tmp_path: Path) -> None:
    """A scanner that returned two results on one transcript, a boolean, a string and an
    object on others, errors in the results and in _errors.jsonl: each run shows them."""
    ids = sorted({r["transcript_id"] for r in _parquet()["word_counter"]})
    with duckdb.connect() as con:
        security = [
            r
            for (r,) in con.execute(
                "SELECT DISTINCT transcript_id FROM read_parquet($p)"
                " WHERE transcript_source_uri LIKE '%security-guide%' ORDER BY 1",
                {"p": str(SCAN / "word_counter.parquet")},
            ).fetchall()
        ]
    a, b, c, d, e = security[:5]
    folder = _copy_scan(tmp_path)
    rows = [
        (a, "1", "number", "first", "None"),
        (a, "2.5", "number", "second", "None"),
        (b, "True", "number", "old Scout: a bool typed number", "None"),
        (c, "yes", "string", "", "None"),
        (d, '{"k": [1, 2]}', "object", "None", "None"),
        (e, None, "null", None, "RuntimeError: judge timed out"),
    ]
    pq.write_table(
        pa.table(
            {
                "transcript_id": [r[0] for r in rows],
                "value": [r[1] for r in rows],
                "value_type": [r[2] for r in rows],
                "explanation": [r[3] for r in rows],
                "scan_error": [r[4] for r in rows],
                "answer": ["A", "B", None, None, None, None],
            }
        ),
        folder / "judge.parquet",
    )
    (folder / "_errors.jsonl").write_text(
        json.dumps(
            {
                "transcript_id": e,
                "scanner": "judge",
                "error": "RuntimeError: judge timed out",
                "traceback": "...",
            }
        )
        + "\n"
        + json.dumps(
            {
                "transcript_id": ids[0] if ids[0] not in security else "nope",
                "scanner": "judge",
                "error": "refused",
                "traceback": "",
            }
        )
        + "\n"
    )
    db = tmp_path / "a.duckdb"
    report = ingest([folder, SECURITY], db)
    attached = {k: v["judge"] for k, v in _scanners(db).items()}
    assert attached[a] == {
        "value": [1, 2.5], "results": 2, "answer": "A\nB", "explanation": "first\nsecond",
        "scan_id": "test",
    }  # fmt: skip
    assert attached[b]["value"] is True
    assert attached[c]["value"] == "yes" and "explanation" not in attached[c]
    assert attached[d]["value"] == {"k": [1, 2]}
    # no value (a null one is left out), the error once though both files tell it
    assert attached[e] == {
        "results": 0,
        "error": "RuntimeError: judge timed out",
        "scan_id": "test",
    }
    (line,) = [n for n in report.notices if "Inspect Scout scan test" in n]
    assert "5 result(s) and 1 scanner error(s) attached to 5 run(s)" in line


def test_run_page_shows_the_scanners(tmp_path: Path) -> None:
    from reportgen.site import build_site
    from tests.site.html import parse_file

    db = tmp_path / "a.duckdb"
    ingest([SCAN, SECURITY], db)
    site = tmp_path / "site"
    build_site(db, site, build_time="2026-12-01T00:00:00Z")
    attached = _scanners(db)
    pages = sorted(site.glob("runs/security_guide/**/*.html"))
    assert len(pages) == len(attached) == 16
    page = parse_file(pages[0])
    table = page.one("table", class_="scanners")
    heads = [th.text for th in table.select("th")]
    assert heads[:4] == ["scanner", "value", "explanation", "error"]
    assert heads[4:] == ["message_length", "word_counter"]
    assert "meta.scanners" in page.one("section", id="scanners").text
    metadata = page.one("details", class_="meta").text
    assert "scanners" not in metadata  # shown once, as its table


@pytest.fixture
def scan_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "scan"
    shutil.copytree(SCAN, folder)
    return folder


def test_a_bad_parquet_file_is_refused(scan_copy: Path, tmp_path: Path) -> None:
    """A bad results file is an error of its scan (one line naming both), the archive is left
    as it was; with --skip-invalid the logs load and the scan is listed as invalid."""
    from reportgen.errors import InputError

    (scan_copy / "word_counter.parquet").write_bytes(b"not parquet")
    db = tmp_path / "a.duckdb"
    with pytest.raises(InputError) as refused:
        ingest([scan_copy, SECURITY], db)
    said = str(refused.value)
    assert "_scan.json: word_counter.parquet: not a readable Parquet file" in said
    assert "\n" not in said
    assert not db.exists()
    report = ingest([scan_copy, SECURITY], db, skip_invalid=True)
    assert [Path(e.path).name for e in report.invalid] == ["_scan.json"]
    assert report.counts["runs"] == 16 and _scanners(db) == {}
