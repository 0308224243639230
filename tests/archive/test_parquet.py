"""The Parquet archive folder: every command gives the same output as on a DuckDB file, ingest
is all or nothing (also when killed), writers lock, and convert is lossless."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reportgen.archive import connect
from reportgen.archive.connection import table_counts
from reportgen.archive.parquet import MANIFEST
from reportgen.archive.parquet_convert import convert
from reportgen.archive.parquet_write import LOCK, listed, locked
from reportgen.cli import app
from reportgen.errors import InputError
from reportgen.ingest import ingest

runner = CliRunner()
TABLES = ("runs", "steps", "iterations", "outputs", "files", "loads", "suite_notes", "archive_info")
ACTIONS = ("read_file", "edit_file", "run_tests", "search", "plan")
STATUSES = ("ok", "ok", "ok", "ok", "error", "retry", "abandoned", "success")


def random_runs(
    seed: int, tasks: int = 50, nights: int = 5, trials: int = 2
) -> list[dict[str, Any]]:
    """Seeded random traces of two labels: ``tasks * nights * trials`` pairs (500 by default)
    plus a few runs without a partner, with every kind of step the metrics read (statuses,
    missing numbers, parents, error messages, inputs that differ in keys or values, run totals
    or none)."""
    rng = random.Random(seed)
    runs = []
    for night in range(nights):
        batch = f"2026-11-{night + 1:02d}"
        for task in range(tasks):
            for trial in range(trials):
                for label in ("baseline", "candidate"):
                    runs.append(_run(rng, f"t{task}", label, batch, trial))
    for n in range(5):  # unpaired
        runs.append(_run(rng, f"lonely{n}", "candidate", "2026-11-01", 0))
    return runs


def _run(rng: random.Random, task: str, label: str, batch: str, trial: int) -> dict[str, Any]:
    steps = []
    for i in range(rng.randint(0, 12)):
        step: dict[str, Any] = {
            "type": rng.choice(("tool", "llm")),
            "action": rng.choice(ACTIONS),
            "status": rng.choice(STATUSES),
            "input": rng.choice(({"path": "a.py"}, {"path": "b.py"}, {"q": rng.randint(0, 2)}, {})),
            "output": rng.choice(("done", "x" * rng.randint(0, 3), None, {"n": 1.0})),
        }
        for key, value in (
            ("tokens_in", rng.randint(0, 500)),
            ("tokens_out", rng.randint(0, 100)),
            ("cost_usd", rng.random() / 100),
            ("latency_ms", rng.random() * 1000),
        ):
            if rng.random() < 0.8:
                step[key] = value
        if i and rng.random() < 0.1:
            step["parent"] = rng.randrange(i)
        if step["status"] != "ok" and rng.random() < 0.5:
            step["error"] = rng.choice(("timeout", "exit 1", "no such file"))
        steps.append(step)
    run: dict[str, Any] = {
        "run_id": f"{batch}/{task}/{label}/{trial}",
        "task_id": task,
        "label": label,
        "suite": rng.choice(("nightly", "nightly", "smoke"))
        if task.startswith("t9")
        else "nightly",
        "batch": batch,
        "trial": trial,
        "started_at": f"{batch}T02:00:00Z",
        "steps": steps,
    }
    if rng.random() < 0.3:
        run["tokens_in"] = rng.randint(0, 5000)
        run["cost_usd"] = rng.random()
    if rng.random() < 0.5:
        run["success"] = rng.random() < 0.7
    return run


def write_runs(folder: Path, runs: list[dict[str, Any]], per_file: int = 100) -> list[Path]:
    """The runs as JSONL files of ``per_file`` runs each under ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for start in range(0, len(runs), per_file):
        path = folder / f"runs-{start:06d}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in runs[start : start + per_file]))
        files.append(path)
    return files


def cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def outputs(db: str, *, iterations: bool = False) -> dict[str, str]:
    """What compare, gate (and iterations) print as JSON for the archive at ``db``."""
    got = {}
    commands = [
        ("compare", ("compare", "--db", db, "--json")),
        ("gate", ("gate", "--db", db, "--batch", "all", "--json")),
    ]
    if iterations:
        commands.append(("iterations", ("iterations", "--db", db, "--json")))
    for name, args in commands:
        code, text = cli(*args)
        assert code in (0, 3), text
        got[name] = text
    return got


def rows(db: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, sorted (an archive's whole content)."""
    con = connect(db, read_only=True)
    try:
        return {t: sorted(map(repr, con.execute(f"SELECT * FROM {t}").fetchall())) for t in TABLES}  # type: ignore[misc]
    finally:
        con.close()


def test_sample_runs_same_output(tmp_path: Path, sample_runs: Path) -> None:
    file, folder = str(tmp_path / "a.duckdb"), str(tmp_path / "pq")
    os.mkdir(folder)
    for db in (file, folder):
        assert cli("ingest", str(sample_runs), "--db", db, "-q")[0] == 0
    assert outputs(file, iterations=True) == outputs(folder, iterations=True)
    assert (Path(folder) / MANIFEST).is_file()
    assert list((Path(folder) / "steps").glob("suite=nightly/batch=2026-11-2*/*.parquet"))


def test_random_pairs_same_output_across_ingests_and_replace(tmp_path: Path) -> None:
    runs = random_runs(14)
    nights = sorted({r["batch"] for r in runs})
    file, folder = str(tmp_path / "a.duckdb"), f"parquet:{tmp_path / 'pq'}"
    for n, night in enumerate(nights):  # one ingest per night, as a nightly job does
        files = write_runs(tmp_path / "in" / night, [r for r in runs if r["batch"] == night])
        for db in (file, folder):
            assert ingest(files, db).loaded
        if n == 2:
            assert outputs(file) == outputs(folder)
    changed = [dict(r, steps=r["steps"][:2], batch="2026-11-02") for r in runs[:40]]
    redo = write_runs(tmp_path / "in" / "redo", changed)
    for db in (file, folder):  # replaced runs move partition and lose steps
        assert ingest(redo, db, replace=True).replaced_runs == 40
    got = outputs(file)
    assert got == outputs(folder)
    assert len(json.loads(got["compare"])["pairs"]) >= 480
    assert rows(file) == rows(folder) or _same_but_loads(rows(file), rows(folder))


def _same_but_loads(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Equal except for the tables of load ids and times (different for two ingests)."""
    return all(a[t] == b[t] for t in TABLES if t not in ("files", "loads"))


def test_convert_is_lossless_both_ways(tmp_path: Path, sample_runs: Path) -> None:
    file = str(tmp_path / "a.duckdb")
    ingest([sample_runs], file)
    assert cli("archive", "convert", file, str(tmp_path / "pq"))[0] == 0
    report = convert(str(tmp_path / "pq"), str(tmp_path / "b.duckdb"))
    assert report.form == "duckdb" and report.rows["steps"] > 1000
    assert rows(file) == rows(str(tmp_path / "pq")) == rows(str(tmp_path / "b.duckdb"))
    code, text = cli("archive", "convert", file, str(tmp_path / "pq"))
    assert code == 1 and "new archive only" in text
    assert cli("archive", "convert", file, str(tmp_path / "b.duckdb"))[0] == 1


def test_restore_into_a_parquet_folder(tmp_path: Path, sample_runs: Path) -> None:
    file = str(tmp_path / "a.duckdb")
    ingest([sample_runs], file)
    assert cli("build", "--db", file, "--out", str(tmp_path / "site"))[0] == 0
    target = f"parquet:{tmp_path / 'restored'}"
    assert cli("restore", str(tmp_path / "site"), "--db", target)[0] == 0
    assert cli("build", "--db", target, "--out", str(tmp_path / "site2"))[0] == 0
    assert outputs(file, iterations=True) == outputs(target, iterations=True)


def test_failed_ingest_leaves_it_as_it_was(
    tmp_path: Path, sample_runs: Path, write_jsonl: Any
) -> None:
    folder = tmp_path / "pq"
    folder.mkdir()
    ingest([sample_runs], folder)
    before, manifest = rows(str(folder)), (folder / MANIFEST).read_bytes()
    bad = write_jsonl("bad/x.jsonl", [{"task_id": "t", "steps": [{"type": "tool"}]}])
    with pytest.raises(InputError):
        ingest([bad], folder)
    assert rows(str(folder)) == before and (folder / MANIFEST).read_bytes() == manifest
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no archive here"):
        connect(tmp_path / "empty", read_only=True)
    assert not (tmp_path / "new").exists()
    with pytest.raises(InputError):
        ingest([bad], f"parquet:{tmp_path / 'new'}")
    assert not (tmp_path / "new").exists()  # a first ingest that fails leaves nothing


def test_a_folder_of_other_files_is_refused(tmp_path: Path, sample_runs: Path) -> None:
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "a.jsonl").write_text("{}\n")
    with pytest.raises(InputError, match="not a reportgen archive"):
        ingest([sample_runs], tmp_path / "traces")
    assert sorted(os.listdir(tmp_path / "traces")) == ["a.jsonl"]


def test_second_writer_gets_the_lock_error(tmp_path: Path, sample_runs: Path) -> None:
    folder = tmp_path / "pq"
    folder.mkdir()
    with locked(folder, str(folder)), pytest.raises(InputError) as caught:
        ingest([sample_runs], folder)
    assert "in use by another writer" in str(caught.value)
    assert f"(process {os.getpid()})" in str(caught.value)
    assert ingest([sample_runs], folder).loaded  # free again


def test_remote_archive_is_read_only(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="read-only"):
        ingest([tmp_path], "s3://bucket/archive")


_KILLED_INGEST = """
import sys
from reportgen.ingest import ingest
ingest(sys.argv[2:], sys.argv[1])
"""


@pytest.mark.slow
def test_sigkill_at_random_points_leaves_the_archive_as_before(tmp_path: Path) -> None:
    folder = tmp_path / "pq"
    folder.mkdir()
    runs = random_runs(3, tasks=40, nights=6)
    first = write_runs(tmp_path / "first", [r for r in runs if r["batch"] < "2026-11-04"])
    ingest(first, folder)
    later = write_runs(
        tmp_path / "later",
        [r for r in runs if r["batch"] >= "2026-11-04"]
        + [dict(r, steps=r["steps"][:1]) for r in runs[:30]],
        per_file=50,
    )
    before = (rows(str(folder)), (folder / MANIFEST).read_bytes())
    start = time.monotonic()
    subprocess.run(
        [sys.executable, "-c", _KILLED_INGEST, f"parquet:{tmp_path / 'probe'}", *map(str, later)],
        check=False,
    )
    took = time.monotonic() - start
    rng = random.Random(7)
    for _ in range(6):
        proc = subprocess.Popen(
            [sys.executable, "-c", _KILLED_INGEST, str(folder), *map(str, later)]
        )
        time.sleep(rng.uniform(0.3, max(0.4, took * 0.9)))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        now = (folder / MANIFEST).read_bytes()
        if now != before[1]:  # the kill came after the swap: the ingest was complete
            break
        assert rows(str(folder)) == before[0]
    live_before = listed(json.loads(before[1]))
    ingest(later, folder, replace=True)
    manifest = json.loads((folder / MANIFEST).read_text())
    # the strays of the killed ingests are gone; files the swap superseded are retired: they
    # stay RETIRED_GRACE_S (for readers still open on the old manifest), then go
    assert _on_disk(folder) - listed(manifest) <= live_before
    assert set(manifest.get("retired", {})) == _on_disk(folder) - listed(manifest)
    assert not ingest(later, folder).loaded
    assert _on_disk(folder) == listed(manifest) | set(manifest.get("retired", {}))
    assert table_counts(connect(folder, read_only=True))["runs"] == len(runs)


def _on_disk(folder: Path) -> set[str]:
    return {
        os.path.relpath(os.path.join(d, f), folder)
        for d, _, fs in os.walk(folder)
        for f in fs
        if f not in (MANIFEST, LOCK)
    }


def test_views_keep_the_schema_types(tmp_path: Path, sample_runs: Path) -> None:
    folder = tmp_path / "pq"
    folder.mkdir()
    ingest([sample_runs], folder)
    con = connect(folder, read_only=True)
    file = connect(tmp_path / "a.duckdb")
    for table in TABLES:
        want = file.execute(f"DESCRIBE {table}").fetchall()
        got = con.execute(f"DESCRIBE {table}").fetchall()
        assert [(r[0], r[1]) for r in got] == [(r[0], r[1]) for r in want], table


def test_what_names_a_parquet_archive(tmp_path: Path) -> None:
    from reportgen.archive.parquet import parquet_location

    assert parquet_location(tmp_path) == str(tmp_path)  # an existing folder
    assert parquet_location(f"parquet:{tmp_path / 'new'}") == str(tmp_path / "new")
    assert parquet_location(Path("s3://bucket/archive")) == "s3://bucket/archive"  # Path's s3:/
    assert parquet_location("parquet:s3://bucket/a") == "s3://bucket/a"
    assert parquet_location(tmp_path / "a.duckdb") is None
    assert parquet_location("C:/x.duckdb") is None
