"""Re-ingest detection by run identity, not bytes alone (reportgen/ingest/duplicates.py): the
same bytes at the same path are skipped unread; the same bytes deriving other run ids (a
leaderboard submission copied to another system folder) load; runs the archive holds with
the same content are dropped, and a file left with nothing is reported as skipped."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from reportgen.archive import connect, table_counts
from reportgen.archive.parquet_convert import convert
from reportgen.archive.snapshot import restore_snapshot, write_snapshot
from reportgen.errors import InputError
from reportgen.formats.source import SourceFile
from reportgen.ingest import ingest, loader
from reportgen.ingest.duplicates import file_key, path_key
from tests.conftest import make_run

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
LEADERBOARD = DATA / "swe-bench-experiments"
PB = LEADERBOARD / "swe-polybench" / "evaluation" / "PBVerified"
ISWE = "20260201_iswe_agent"


def rows(db: Path | str, sql: str) -> list[tuple[Any, ...]]:
    con = connect(db, read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _needs_leaderboard() -> None:
    if not PB.is_dir():
        pytest.skip(f"shared leaderboard submissions not found at {PB}")


def _resolved(folder: Path) -> tuple[int, int]:
    """(result files, how many say "resolved": true), read from the raw JSON."""
    results = [json.loads(p.read_bytes()) for p in (folder / "logs").glob("*_result.json")]
    return len(results), sum(1 for r in results if r.get("resolved") is True)


def _per_label(db: Path) -> dict[str, tuple[int, int]]:
    got = rows(db, "SELECT label, count(*), count(*) FILTER (WHERE success) FROM runs GROUP BY 1")
    return {label: (n, ok) for label, n, ok in got}


def _submissions(tmp_path: Path) -> Path:
    """A writable copy of the shared PBVerified folder."""
    root = tmp_path / "PB"
    shutil.copytree(PB, root)
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return root


def _copy_submission(root: Path, name: str, system: str) -> Path:
    """The iSWE submission again under another folder and system name: identical bytes but
    for metadata.yaml's ``name:`` line."""
    copy = root / name
    shutil.copytree(root / ISWE, copy)
    meta = copy / "metadata.yaml"
    lines = meta.read_text(encoding="utf-8").splitlines()
    meta.write_text(
        "\n".join(f"name: {system}" if ln.startswith("name:") else ln for ln in lines) + "\n",
        encoding="utf-8",
    )
    return copy


def test_each_leaderboard_submission_keeps_its_runs(tmp_path: Path) -> None:
    """The two shared submissions hold 87 byte-identical per-task files; each system still
    gets its 69 runs and its own resolved count."""
    _needs_leaderboard()
    db = tmp_path / "a.duckdb"
    ingest([LEADERBOARD], db)
    expected: dict[str, tuple[int, int]] = {}
    for folder in sorted(p for p in PB.iterdir() if p.is_dir()):
        name = next(
            ln.split(":", 1)[1].strip()
            for ln in (folder / "metadata.yaml").read_text(encoding="utf-8").splitlines()
            if ln.startswith("name:")
        )
        expected[name] = _resolved(folder)
    assert _per_label(db) == expected
    assert all(n == 69 for n, _ in expected.values())


@pytest.mark.parametrize("calls", ["one call", "two calls"])
def test_a_copied_submission_loads_as_its_own_system(tmp_path: Path, calls: str) -> None:
    _needs_leaderboard()
    root = _submissions(tmp_path)
    db = tmp_path / "a.duckdb"
    if calls == "two calls":
        ingest([root], db)
    copy = _copy_submission(root, "20260601_copy", "Copy")
    report = ingest([root] if calls == "one call" else [copy], db)
    per_label = _per_label(db)
    assert per_label["Copy"] == per_label["iSWE-Agent"] == _resolved(root / ISWE)
    assert per_label["Kodah"] == _resolved(root / "20260430_kodah_gpt-5-mini")
    assert rows(db, "SELECT count(*) FROM runs WHERE run_id LIKE '20260601_copy/%'") == [(69,)]
    loaded = {Path(f["file"]).relative_to(root).as_posix() for f in report.loaded}
    assert "20260601_copy/all_preds.jsonl" in loaded
    # both all_preds.jsonl rows are kept in `files`, under keys that differ
    keys = rows(db, "SELECT content_hash FROM files WHERE path LIKE '%all_preds.jsonl'")
    assert len(keys) == 3 and len({k for (k,) in keys}) == 3
    again = ingest([root], db)  # a re-run loads nothing and skips every file
    assert again.loaded == [] and again.counts["runs"] == 0
    inputs = [p for p in root.rglob("*") if p.suffix in (".json", ".jsonl")]
    assert len(again.skipped) == len(inputs)


def _trace_folder(tmp_path: Path, n: int = 3) -> Path:
    folder = tmp_path / "traces" / "baseline"
    folder.mkdir(parents=True)
    for i in range(n):
        run = make_run(f"t{i}", run_id=f"r{i}", started_at=f"2026-11-28T0{i}:00:00Z")
        (folder / f"r{i}.jsonl").write_text(json.dumps(run) + "\n", encoding="utf-8")
    return folder


def _no_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(source: SourceFile) -> None:
        raise AssertionError(f"{source.display} was parsed")

    monkeypatch.setattr(loader, "detect_format", refuse)


def test_reingest_of_the_same_folder_reads_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _trace_folder(tmp_path)
    db = tmp_path / "a.duckdb"
    ingest([folder], db)
    before = table_counts(connect(db, read_only=True))
    _no_parsing(monkeypatch)
    again = ingest([folder], db)
    assert again.loaded == [] and len(again.skipped) == 3
    assert {s["reason"] for s in again.skipped} == {"already loaded (same path, same content)"}
    assert table_counts(connect(db, read_only=True)) == before


def test_a_moved_trace_file_loads_nothing(tmp_path: Path) -> None:
    folder = _trace_folder(tmp_path)
    db = tmp_path / "a.duckdb"
    ingest([folder], db)
    moved = tmp_path / "elsewhere" / "r1.jsonl"
    moved.parent.mkdir()
    shutil.move(folder / "r1.jsonl", moved)
    report = ingest([moved], db)
    assert report.loaded == [] and report.counts["runs"] == 0
    assert report.skipped == [
        {
            "file": str(moved),
            "content_hash": report.skipped[0]["content_hash"],
            "reason": f"same runs already loaded (from {folder / 'r1.jsonl'})",
        }
    ]
    assert rows(db, "SELECT count(*) FROM runs") == [(3,)]
    assert rows(db, "SELECT count(*) FROM loads") == [(1,)]


def test_a_copy_in_the_same_call_keeps_the_first(tmp_path: Path) -> None:
    folder = _trace_folder(tmp_path, n=1)
    copy = tmp_path / "copy" / "r0.jsonl"
    copy.parent.mkdir()
    shutil.copy(folder / "r0.jsonl", copy)
    db = tmp_path / "a.duckdb"
    report = ingest([folder, copy], db)
    assert [f["file"] for f in report.loaded] == [str(folder / "r0.jsonl")]
    assert report.skipped[0]["reason"] == f"same runs as {folder / 'r0.jsonl'}"
    assert rows(db, "SELECT run_id, n_steps, label FROM runs") == [("r0", 3, "baseline")]
    assert rows(db, "SELECT count(*), count(DISTINCT idx) FROM steps") == [(3, 3)]
    assert rows(db, "SELECT count(*) FROM outputs") == rows(
        db, "SELECT count(*) FROM runs WHERE output IS NOT NULL"
    )


def test_three_copies_in_one_call_are_staged_apart(tmp_path: Path) -> None:
    """Each copy is staged in a round of its own: a run's step count is its own file's."""
    folder = _trace_folder(tmp_path, n=2)
    copies = []
    for name in ("b", "c"):
        (tmp_path / name).mkdir()
        for path in sorted(folder.iterdir()):
            copies.append(tmp_path / name / path.name)
            shutil.copy(path, copies[-1])
    db = tmp_path / "a.duckdb"
    report = ingest([folder, tmp_path / "b", tmp_path / "c"], db)
    assert len(report.loaded) == 2 and [s["file"] for s in report.skipped] == list(map(str, copies))
    assert rows(db, "SELECT run_id, n_steps FROM runs ORDER BY 1") == [("r0", 3), ("r1", 3)]
    assert rows(db, "SELECT count(*) FROM steps") == [(6,)]


def test_a_file_listed_twice_is_read_once(tmp_path: Path) -> None:
    path = _trace_folder(tmp_path, n=1) / "r0.jsonl"
    report = ingest([path, path], tmp_path / "a.duckdb")
    assert report.counts["runs"] == 1
    assert report.skipped[0]["reason"] == f"same content as {path}"


def test_same_run_id_with_other_content_is_still_a_conflict(tmp_path: Path) -> None:
    folder = _trace_folder(tmp_path, n=1)
    db = tmp_path / "a.duckdb"
    ingest([folder], db)
    other = tmp_path / "other" / "r0.jsonl"
    other.parent.mkdir()
    other.write_text(json.dumps(make_run("t0", run_id="r0", n_steps=5)) + "\n")
    with pytest.raises(InputError, match="already in the archive"):
        ingest([other], db)
    assert ingest([other], db, replace=True).replaced_runs == 1


def test_same_bytes_deriving_other_ids_load_under_stable_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run without run_id gets one from its file name: a renamed copy is another run. The
    second path's `files` key is the content hash @ a digest of its path, and each re-run
    finds its own row."""
    first = tmp_path / "lbl" / "a.jsonl"
    first.parent.mkdir()
    first.write_text(json.dumps(make_run("t")) + "\n")
    second = first.with_name("b.jsonl")
    shutil.copy(first, second)
    db = tmp_path / "a.duckdb"
    report = ingest([first.parent], db)
    assert report.counts["runs"] == 2 and report.skipped == []
    digest = report.loaded[0]["content_hash"]
    assert rows(db, "SELECT path, content_hash FROM files ORDER BY path") == [
        (str(first), file_key(digest)),
        (str(second), path_key(file_key(digest), str(second))),
    ]
    _no_parsing(monkeypatch)
    again = ingest([second, first], db)  # either order: each path finds its own key
    assert again.loaded == [] and len(again.skipped) == 2


def test_identity_makes_a_call_read_the_files_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _trace_folder(tmp_path, n=2)
    db = tmp_path / "a.duckdb"
    ingest([folder], db)
    parsed: list[str] = []
    detect = loader.detect_format

    def spy(source: SourceFile) -> Any:
        parsed.append(source.display)
        return detect(source)

    monkeypatch.setattr(loader, "detect_format", spy)
    assert ingest([folder], db).skipped and parsed == []
    report = ingest([folder], db, identity="label=other")
    assert len(parsed) == 2  # read again; same run ids, same content: nothing new
    assert report.loaded == [] and all("same runs" in s["reason"] for s in report.skipped)


def test_iteration_and_output_files(tmp_path: Path, write_jsonl) -> None:
    """Iterations are the same by (run, iter), outputs of no run by suite, label, task,
    batch and trial: a copy elsewhere is skipped, an output list moved to another label's
    folder is that label's."""
    iters = write_jsonl(
        "a/it.jsonl", [{"run": "loop", "iter": i, "step": "s", "attempt": i} for i in (1, 2)]
    )
    records = write_jsonl(
        "a/outs.jsonl", [{"task_id": "q", "label": "L", "output": x, "trial": i} for i, x in (
            (0, "yes"), (1, "no"))],
    )  # fmt: skip
    listed = tmp_path / "a" / "capital.json"
    listed.write_text(json.dumps(["Paris.", "paris"]))
    db = tmp_path / "a.duckdb"
    ingest([tmp_path / "a"], db)
    other = tmp_path / "b"
    other.mkdir()
    for path in (iters, records, listed):
        shutil.copy(path, other / path.name)
    report = ingest([other], db)
    assert [Path(f["file"]).name for f in report.loaded] == ["capital.json"]
    assert sorted(Path(s["file"]).name for s in report.skipped) == ["it.jsonl", "outs.jsonl"]
    assert rows(db, "SELECT count(*) FROM iterations") == [(2,)]
    assert rows(db, "SELECT label, count(*) FROM outputs GROUP BY 1 ORDER BY 1") == [
        ("L", 2),
        ("a", 2),
        ("b", 2),
    ]


def test_two_keys_survive_snapshot_restore_and_parquet(tmp_path: Path) -> None:
    folder = tmp_path / "lbl"
    folder.mkdir()
    (folder / "a.jsonl").write_text(json.dumps(make_run("t")) + "\n")
    shutil.copy(folder / "a.jsonl", folder / "b.jsonl")
    db = tmp_path / "a.duckdb"
    ingest([folder], db)
    files = rows(db, "SELECT * FROM files ORDER BY content_hash")
    assert len(files) == 2
    con = connect(db, read_only=True)
    try:
        write_snapshot(con, tmp_path / "snap")
    finally:
        con.close()
    restore_snapshot(str(tmp_path / "snap"), tmp_path / "r.duckdb")
    assert rows(tmp_path / "r.duckdb", "SELECT * FROM files ORDER BY content_hash") == files
    convert(str(db), str(tmp_path / "pq"))
    assert rows(str(tmp_path / "pq"), "SELECT * FROM files ORDER BY content_hash") == files
    again = ingest([folder], str(tmp_path / "pq"))  # the Parquet writer's fast path too
    assert again.loaded == [] and len(again.skipped) == 2


def test_a_parquet_archive_takes_a_copied_file_as_new_runs(tmp_path: Path) -> None:
    folder = tmp_path / "lbl"
    folder.mkdir()
    (folder / "a.jsonl").write_text(json.dumps(make_run("t")) + "\n")
    target = f"parquet:{tmp_path / 'pq'}"
    ingest([folder], target)
    shutil.copy(folder / "a.jsonl", folder / "b.jsonl")
    moved = tmp_path / "moved" / "a.jsonl"
    moved.parent.mkdir()
    shutil.copy(folder / "a.jsonl", moved)
    report = ingest([folder, moved], target)
    assert [Path(f["file"]).name for f in report.loaded] == ["b.jsonl"]
    assert [s["file"] for s in report.skipped] == [str(folder / "a.jsonl"), str(moved)]
    assert rows(str(tmp_path / "pq"), "SELECT count(*) FROM runs") == [(2,)]
