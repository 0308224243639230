"""Bad input: exit 1, one line naming the file and the line or field, archive untouched."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from reportgen.archive import connect, table_counts
from reportgen.archive.connection import TABLES
from reportgen.cli import app
from reportgen.errors import InputError
from reportgen.ingest.loader import _Opening
from tests.conftest import make_run, make_step

runner = CliRunner()


def snapshot(db: Path) -> tuple[dict[str, int], dict[str, str]]:
    """Table counts and a content hash of every table."""
    con = connect(db, read_only=True)
    try:
        hashes = {
            t: con.execute(
                f"SELECT md5(coalesce(string_agg(CAST(x AS VARCHAR), '|' ORDER BY CAST(x AS VARCHAR)), '')) FROM {t} AS x"
            ).fetchone()[0]
            for t in TABLES
        }
        return table_counts(con), hashes
    finally:
        con.close()


@pytest.fixture
def archive(tmp_path: Path, write_jsonl) -> Path:
    db = tmp_path / "archive.duckdb"
    good = write_jsonl("good/runs.jsonl", [make_run("keep", run_id="keep-1")])
    assert runner.invoke(app, ["ingest", str(good), "--db", str(db), "-q"]).exit_code == 0
    return db


def line(**fields: object) -> str:
    return json.dumps(make_run(**fields))  # type: ignore[arg-type]


def bad_step(**step: object) -> str:
    return json.dumps(make_run(steps=[make_step(), make_step(**step)]))  # type: ignore[arg-type]


CASES: dict[str, tuple[bytes, str]] = {
    # name: (file content, what the one-line error must contain after the file name)
    "empty": (b"", ": empty file"),
    "whitespace_only": (b"\n  \n", ": empty file"),
    "truncated_json": (
        (line(run_id="a") + "\n" + line(run_id="b")[:40]).encode(),
        ":2: invalid JSON",
    ),
    "line_not_object": (
        (line(run_id="a") + "\n[1, 2]\n").encode(),
        ":2: (record): expected object",
    ),
    "missing_task_id": (
        json.dumps({"steps": []}).encode(),
        ":1: task_id: required field is missing",
    ),
    "unknown_status": (
        (line(run_id="a") + "\n" + bad_step(status="done")).encode(),
        ':2: steps[1].status: unknown value "done"',
    ),
    "string_for_number": (
        bad_step(tokens_in="12").encode(),
        ":1: steps[1].tokens_in: expected integer or null, got str",
    ),
    "negative_tokens": (
        bad_step(tokens_out=-5).encode(),
        ":1: steps[1].tokens_out: -5 is out of range",
    ),
    "float_tokens": (bad_step(tokens_in=1.5).encode(), ":1: steps[1].tokens_in: expected integer"),
    "nan": (
        line(run_id="a", cost_usd=0).replace('"cost_usd": 0', '"cost_usd": NaN').encode(),
        ":1: invalid JSON: NaN",
    ),
    "infinity": (
        bad_step(latency_ms=1).replace('"latency_ms": 1}', '"latency_ms": Infinity}').encode(),
        ":1: invalid JSON: Infinity",
    ),
    "duplicate_run_id": (
        (line(run_id="dup") + "\n" + line(run_id="dup", task_id="t2")).encode(),
        ":2: run_id: 'dup' appears twice",
    ),
    "non_utf8": (
        line(run_id="a").replace("t1", "t\udcff").encode("utf-8", "surrogateescape"),
        ": not UTF-8",
    ),
    "bom": (b"\xef\xbb\xbf" + line(run_id="a").encode(), ":1: starts with a UTF-8 byte-order mark"),
    "bad_timestamp": (
        line(started_at="last tuesday").encode(),
        ':1: started_at: "last tuesday" is not an ISO 8601 timestamp',
    ),
    "steps_not_list": (
        json.dumps({"task_id": "t", "steps": "abc"}).encode(),
        ":1: steps: expected array, got str",
    ),
    "step_missing_action": (
        json.dumps(make_run(steps=[{"type": "tool", "status": "ok"}])).encode(),
        ":1: steps[0].action: required field is missing",
    ),
    "parent_not_earlier": (
        bad_step(parent=5).encode(),
        ":1: steps[1].parent: 5 is not the index of an earlier step",
    ),
    "duplicate_key": (
        b'{"task_id": "a", "task_id": "b", "steps": []}',
        ":1: invalid JSON: duplicate key",
    ),
    "top_level_scalar": (b"42\n", "not a recognised format"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_exits_1_with_one_line_and_archive_unchanged(
    name: str, tmp_path: Path, archive: Path
) -> None:
    content, expected = CASES[name]
    path = tmp_path / f"{name}.jsonl"
    path.write_bytes(content)
    before = snapshot(archive)
    result = runner.invoke(app, ["ingest", str(path), "--db", str(archive)])
    assert result.exit_code == 1, result.output
    message = result.stderr.strip()
    assert "\n" not in message, message
    assert message.startswith(f"error: {path}"), message
    assert expected in message, message
    assert snapshot(archive) == before


def test_fifty_megabyte_line(tmp_path: Path, archive: Path) -> None:
    path = tmp_path / "huge.jsonl"
    with path.open("w") as handle:
        handle.write(line(run_id="small") + "\n")
        handle.write(line(run_id="huge", output="x" * (50 << 20)) + "\n")
    before = snapshot(archive)
    result = runner.invoke(app, ["ingest", str(path), "--db", str(archive)])
    assert result.exit_code == 1
    assert (
        result.stderr.strip()
        == f"error: {path}:2: record is over the 16 MB limit per record (--max-record-mb)"
    )
    assert snapshot(archive) == before


def test_folder_without_trace_files(tmp_path: Path, archive: Path) -> None:
    folder = tmp_path / "nothing"
    folder.mkdir()
    (folder / "readme.txt").write_text("hi")
    before = snapshot(archive)
    result = runner.invoke(app, ["ingest", str(folder), "--db", str(archive)])
    assert result.exit_code == 1
    assert result.stderr.strip() == f"error: {folder}: folder holds no .json or .jsonl files"
    assert snapshot(archive) == before


def test_one_bad_file_among_good_ones_loads_nothing(
    tmp_path: Path, archive: Path, write_jsonl
) -> None:
    good = write_jsonl("batch/a.jsonl", [make_run("x", run_id="x1")])
    bad = write_jsonl("batch/b.jsonl", [bad_step(status="nope")])
    before = snapshot(archive)
    result = runner.invoke(app, ["ingest", str(good.parent), "--db", str(archive)])
    assert result.exit_code == 1 and str(bad) in result.stderr
    assert snapshot(archive) == before


def test_skip_invalid_loads_good_files_lists_bad_ones_and_exits_1(
    tmp_path: Path, archive: Path, write_jsonl
) -> None:
    good = write_jsonl("batch/a.jsonl", [make_run("x", run_id="x1")])
    write_jsonl("batch/b.jsonl", [bad_step(status="nope")])
    (tmp_path / "batch" / "c.jsonl").write_bytes(b"")
    result = runner.invoke(
        app, ["ingest", str(good.parent), "--db", str(archive), "--skip-invalid"]
    )
    assert result.exit_code == 1
    errors = [ln for ln in result.stderr.splitlines() if ln.startswith("error:")]
    assert (
        len(errors) == 2
        and "b.jsonl:1: steps[1].status" in errors[0]
        and "c.jsonl: empty file" in errors[1]
    )
    assert snapshot(archive)[0]["runs"] == 2


def test_failed_first_load_leaves_no_archive_file(tmp_path: Path, write_jsonl) -> None:
    db = tmp_path / "new.duckdb"
    bad = write_jsonl("bad.jsonl", [bad_step(status="nope")])
    assert runner.invoke(app, ["ingest", str(bad), "--db", str(db)]).exit_code == 1
    assert not db.exists()


def test_bad_iteration_and_outputs_records_name_the_field(tmp_path: Path, write_jsonl) -> None:
    it = write_jsonl(
        "it.jsonl", [{"run": "r", "iter": 1, "step": "s", "attempt": 1, "failing": ["a", 3]}]
    )
    result = runner.invoke(app, ["ingest", str(it), "--db", str(tmp_path / "a.duckdb")])
    assert result.exit_code == 1 and f"{it}:1: failing[1]: expected string" in result.stderr
    out = tmp_path / "outs.json"
    out.write_text(json.dumps({"runs": ["a", 1]}))
    result = runner.invoke(app, ["ingest", str(out), "--db", str(tmp_path / "a.duckdb")])
    assert result.exit_code == 1 and str(out) in result.stderr


def test_missing_path_and_wrong_suffix(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["ingest", str(tmp_path / "nope.jsonl"), "--db", str(tmp_path / "a.duckdb")]
    )
    assert result.exit_code == 1 and "no such file or folder" in result.stderr
    txt = tmp_path / "x.txt"
    txt.write_text("{}")
    result = runner.invoke(app, ["ingest", str(txt), "--db", str(tmp_path / "a.duckdb")])
    assert result.exit_code == 1 and "not a .json" in result.stderr


@pytest.mark.parametrize(
    ("step", "expected"),
    [
        ({"parent": "x"}, 'steps[0].parent: expected integer or null, got str "x"'),
        ({"error": 3}, "steps[0].error: expected string or null, got int 3"),
    ],
)
def test_step_field_pinned_when_given_a_relative_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: dict[str, object], expected: str
) -> None:
    """A bad step field is named with its step's position whether the file is given by a
    relative or an absolute path (the typed checks name files as shown)."""
    folder = tmp_path / "in"
    folder.mkdir()
    run = {"task_id": "t", "steps": [{"type": "tool", "action": "f", "status": "ok", **step}]}
    (folder / "n.jsonl").write_text(json.dumps(run) + "\n")
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["ingest", "in", "--db", "a.duckdb"])
    assert result.exit_code == 1
    assert "in/n.jsonl" in result.output and expected in result.output


def test_the_archive_opened_beside_a_failing_measure_is_closed_and_its_error_kept() -> None:
    opened: list[duckdb.DuckDBPyConnection] = []

    def open_archive() -> duckdb.DuckDBPyConnection:
        opened.append(duckdb.connect())
        return opened[-1]

    with pytest.raises(InputError, match="bad file"), _Opening(open_archive, own=True):
        raise InputError("f.json", "bad file")
    with pytest.raises(duckdb.ConnectionException):
        opened[0].execute("SELECT 1")

    def refuse() -> duckdb.DuckDBPyConnection:
        raise InputError("a.duckdb", "in use")

    with pytest.raises(InputError, match="bad file"), _Opening(refuse, own=True):
        raise InputError("f.json", "bad file")  # the files' error is the one told
    with _Opening(refuse, own=True) as opening:
        pass
    with pytest.raises(InputError, match="in use"):
        opening.result()
