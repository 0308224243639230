"""Ingest happy paths: each native format, defaults, .gz, folders, idempotence, --replace."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import duckdb
import pytest

from reportgen.archive import connect, table_counts
from reportgen.errors import InputError
from reportgen.ingest import ingest
from tests.conftest import make_run, make_step


def rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    con = connect(db, read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_trace_jsonl_fields_and_types(tmp_path: Path, write_jsonl) -> None:
    run = make_run(
        "fix-login",
        run_id="r1",
        label="baseline",
        suite="nightly",
        trial=2,
        meta={"model": "m-1"},
        output="done",
        success=True,
        reward=0.5,
        tokens_in=999,
        cost_usd=1.25,
    )
    run["steps"][1]["status"] = "success"
    run["steps"][2].update(parent=0, started_at="2026-11-28T02:00:01.500Z", output={"k": [1]})
    db = tmp_path / "a.duckdb"
    report = ingest([write_jsonl("x/runs.jsonl", [run])], db)
    assert report.counts == {"runs": 1, "steps": 3, "iterations": 0, "outputs": 1}
    (r,) = rows(
        db,
        "SELECT run_id, suite, label, task_id, batch, trial, meta->>'model', output, success,"
        " reward, tokens_in, tokens_out, cost_usd, n_steps FROM runs",
    )
    assert r == (
        "r1",
        "nightly",
        "baseline",
        "fix-login",
        "2026-11-28",
        2,
        "m-1",
        "done",
        True,
        0.5,
        999,
        None,
        1.25,
        3,
    )
    steps = rows(
        db,
        "SELECT idx, action, status, input_keys, tokens_in, latency_ms, parent, started_at,"
        " output::VARCHAR FROM steps ORDER BY idx",
    )
    assert [s[1] for s in steps] == ["a0", "a1", "a2"]
    assert steps[1][2] == "ok"  # 'success' is stored as ok
    assert steps[0][3] == ["path"]
    assert steps[2][6] == 0 and steps[2][7].year == 2026 and steps[2][8] == '{"k":[1]}'
    types = dict(
        rows(
            db,
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'steps'",
        )
    )
    assert types["started_at"] == "TIMESTAMP WITH TIME ZONE"
    assert types["cost_usd"] == "DOUBLE" and types["input_keys"] == "VARCHAR[]"


def test_defaults_label_from_folder_run_id_stable_batch_from_date(
    tmp_path: Path, write_jsonl
) -> None:
    path = write_jsonl(
        "candidate/runs.jsonl",
        [make_run("t1"), make_run("t2", started_at="2026-11-27T23:59:59-02:00")],
    )
    db = tmp_path / "a.duckdb"
    ingest([path], db)
    got = rows(db, "SELECT task_id, label, suite, batch, trial, run_id FROM runs ORDER BY task_id")
    assert [g[:5] for g in got] == [
        ("t1", "candidate", "default", "2026-11-28", 0),
        ("t2", "candidate", "default", "2026-11-28", 0),
    ]
    assert got[0][5].startswith("t1-") and len(got[0][5]) == len("t1-") + 12
    db2 = tmp_path / "b.duckdb"
    ingest([path], db2)
    assert rows(db2, "SELECT run_id FROM runs ORDER BY task_id") == [(g[5],) for g in got]


def test_single_json_document_and_gz_and_folder(tmp_path: Path) -> None:
    folder = tmp_path / "in" / "baseline"
    folder.mkdir(parents=True)
    (folder / "one.json").write_text(json.dumps(make_run("a", run_id="a"), indent=2))
    with gzip.open(folder / "two.jsonl.gz", "wt") as handle:
        handle.write(
            json.dumps(make_run("b", run_id="b"))
            + "\n"
            + json.dumps(make_run("c", run_id="c"))
            + "\n"
        )
    with gzip.open(folder / "three.json.gz", "wt") as handle:
        handle.write(json.dumps([make_run("d", run_id="d"), make_run("e", run_id="e")]))
    (folder / "notes.txt").write_text("ignored")
    db = tmp_path / "a.duckdb"
    report = ingest([tmp_path / "in"], db)
    assert report.counts["runs"] == 5
    assert rows(db, "SELECT run_id FROM runs ORDER BY 1") == [(x,) for x in "abcde"]


def test_iteration_records(tmp_path: Path, write_jsonl) -> None:
    records = [
        {
            "run": "loop",
            "iter": 1,
            "step": "s1",
            "attempt": 1,
            "check": "go test ./...",
            "exit": 1,
            "failing": ["b", "a"],
            "patch_lines": 4,
            "patch_distance": 0.5,
            "tool_calls": 3,
            "tool_errors": 1,
            "tokens_in": 100,
            "tokens_out": 10,
            "usd": 0.01,
            "certified": False,
            "secs": 2.5,
        },
        {"run": "loop", "iter": 2, "step": "s1", "attempt": 2, "failing": [], "certified": True},
    ]
    db = tmp_path / "a.duckdb"
    report = ingest([write_jsonl("it.jsonl", records)], db)
    assert report.counts["iterations"] == 2
    got = rows(
        db,
        'SELECT run_id, iter, step, attempt, "check", exit_code, failing, certified, secs FROM iterations ORDER BY iter',
    )
    assert got[0] == ("loop", 1, "s1", 1, "go test ./...", 1, ["b", "a"], False, 2.5)
    assert got[1][6] == [] and got[1][7] is True


def test_outputs_scorer_shapes_and_records(tmp_path: Path, write_jsonl) -> None:
    (tmp_path / "lbl").mkdir()
    (tmp_path / "lbl" / "capital.json").write_text(json.dumps(["Paris.", "paris", "Lyon"]))
    (tmp_path / "lbl" / "other.json").write_text(
        json.dumps({"runs": ["x", "x"], "task_id": "tt", "batch": "n1"})
    )
    write_jsonl(
        "lbl/recs.jsonl",
        [{"task_id": "q", "output": "yes", "trial": 1}, {"task_id": "q", "output": "no"}],
    )
    db = tmp_path / "a.duckdb"
    report = ingest([tmp_path / "lbl"], db)
    assert report.counts["outputs"] == 7
    got = rows(
        db,
        "SELECT task_id, label, batch, trial, output FROM outputs ORDER BY task_id, trial, output",
    )
    assert got[0] == ("capital", "lbl", "undated", 0, "Paris.")
    assert ("tt", "lbl", "n1", 1, "x") in got and ("q", "lbl", "undated", 1, "yes") in got


def test_reingest_same_content_is_skipped(tmp_path: Path, write_jsonl) -> None:
    path = write_jsonl("runs.jsonl", [make_run(run_id="r1")])
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(path.read_bytes())
    db = tmp_path / "a.duckdb"
    first = ingest([path, copy], db)  # the same content twice in one call
    assert first.counts["runs"] == 1 and first.skipped[0]["file"] == str(copy)
    again = ingest([path], db)
    assert again.counts["runs"] == 0 and "already loaded" in again.skipped[0]["reason"]
    assert table_counts(connect(db))["runs"] == 1


def test_new_content_for_existing_run_needs_replace(tmp_path: Path, write_jsonl) -> None:
    db = tmp_path / "a.duckdb"
    ingest([write_jsonl("v1.jsonl", [make_run(run_id="r1", n_steps=2)])], db)
    v2 = write_jsonl("v2.jsonl", [make_run(run_id="r1", n_steps=5)])
    with pytest.raises(InputError) as info:
        ingest([v2], db)
    assert str(info.value).startswith(f"{v2}:1: run_id: 'r1' is already in the archive")
    report = ingest([v2], db, replace=True)
    assert report.replaced_runs == 1
    assert rows(db, "SELECT count(*) FROM steps") == [(5,)]
    assert rows(db, "SELECT count(*), max(replaced) FROM loads") == [(2, 1)]


def test_files_and_loads_are_recorded(tmp_path: Path, write_jsonl) -> None:
    path = write_jsonl("runs.jsonl", [make_run(run_id="r1"), make_run(run_id="r2")])
    db = tmp_path / "a.duckdb"
    ingest([path], db)
    (f,) = rows(
        db, "SELECT path, format, size_bytes, n_runs, n_steps, length(content_hash) FROM files"
    )
    assert f == (str(path), "trace-v1", path.stat().st_size, 2, 6, 64)
    assert rows(db, "SELECT n_files, n_runs, n_steps FROM loads") == [(1, 2, 6)]
    packed = tmp_path / "more.jsonl.gz"  # a gzip file's size is the size on disk
    packed.write_bytes(gzip.compress(json.dumps(make_run(run_id="r3")).encode() + b"\n"))
    ingest([packed], db)
    assert rows(db, f"SELECT size_bytes FROM files WHERE path = '{packed}'") == [
        (packed.stat().st_size,)
    ]


def test_odd_unicode_is_kept(tmp_path: Path, write_jsonl) -> None:
    text = "emoji 🧪, RTL \u202eevil\u202c, zero\u200bwidth, NUL-free, 中文"
    db = tmp_path / "a.duckdb"
    ingest(
        [
            write_jsonl(
                "u.jsonl", [make_run(run_id="u", output=text, steps=[make_step(output=text)])]
            )
        ],
        db,
    )
    assert rows(db, "SELECT output FROM runs") == [(text,)]


def test_sample_runs_load(sample_runs: Path, tmp_path: Path) -> None:
    report = ingest([sample_runs], tmp_path / "a.duckdb")
    assert report.counts["runs"] == 288 and report.counts["iterations"] > 0
    con = duckdb.connect(str(tmp_path / "a.duckdb"), read_only=True)
    statuses = {s for (s,) in con.execute("SELECT DISTINCT status FROM steps").fetchall()}
    assert statuses == {"ok", "error", "retry", "abandoned"}
    assert con.execute(
        "SELECT count(DISTINCT batch), count(DISTINCT task_id), max(trial) FROM runs"
    ).fetchone() == (6, 12, 4)


def test_adapter_notices_reach_the_report(tmp_path: Path) -> None:
    """A tau2-bench result file with zero simulations loads no runs and says so."""
    empty = tmp_path / "empty_tau2.json"
    empty.write_text(
        json.dumps(
            {
                "info": {"environment_info": {"domain_name": "airline"}},
                "tasks": [],
                "simulations": [],
            }
        )
    )
    report = ingest([empty], tmp_path / "a.duckdb", format_name="tau2-bench")
    assert report.counts["runs"] == 0
    assert any("zero simulations" in n for n in report.notices)
