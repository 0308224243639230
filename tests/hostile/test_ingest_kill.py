"""Case 14: SIGKILL of ``reportgen ingest`` at seeded random moments: the archive reads as
before or as fully after, never in between; the next ingest succeeds and leaves no temp files."""

from __future__ import annotations

import json
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reportgen.ingest import ingest
from tests.conftest import make_run
from tests.hostile.conftest import ROOT, write_runs
from tests.hostile.fingerprint import archive_fingerprint

KILLS = 20
ABSENT = "no archive"


def state(db: Path) -> str:
    return archive_fingerprint(db) if db.exists() else ABSENT


def start(folder: Path, db: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "reportgen", "ingest", str(folder), "--db", str(db), "-q"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


@pytest.mark.slow
def test_sigkill_leaves_the_archive_before_or_after(tmp_path: Path) -> None:
    inputs = tmp_path / "inputs"
    for i in range(200):
        runs = [make_run(f"t{i}", run_id=f"r{i}-{j}", n_steps=4) for j in range(3)]
        write_runs(inputs / f"f{i:03}.jsonl", runs)
    seed = tmp_path / "seed.duckdb"
    ingest([write_runs(tmp_path / "seed" / "s.jsonl", [make_run("s", run_id="seed")])], seed)
    before = archive_fingerprint(seed)

    # the states "fully after", for an existing archive and for a new one, and how long it takes
    after: dict[bool, str] = {}
    took = 0.0
    for existing in (True, False):
        db = tmp_path / f"reference-{existing}" / "a.duckdb"
        db.parent.mkdir()
        if existing:
            shutil.copy(seed, db)
        started = time.monotonic()
        assert start(inputs, db).wait(timeout=120) == 0
        took = max(took, time.monotonic() - started)
        after[existing] = archive_fingerprint(db)

    rng = random.Random(20261201)
    outcomes: list[str] = []
    for n in range(KILLS):
        existing = n % 2 == 0
        folder = tmp_path / f"kill-{n}"
        folder.mkdir()
        db = folder / "a.duckdb"
        if existing:
            shutil.copy(seed, db)
        process = start(inputs, db)
        time.sleep(rng.uniform(0.0, took))
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
        now = state(db)
        first = before if existing else ABSENT
        assert now in (first, after[existing]), (n, existing)
        outcomes.append("before" if now == first else "after")
        # the next ingest succeeds and cleans up after the killed one
        ingest([inputs], db)
        assert archive_fingerprint(db) == after[existing], n
        assert sorted(p.name for p in folder.iterdir()) == ["a.duckdb"], n
    assert "before" in outcomes, outcomes  # the kills did land during the loads
    print(json.dumps(outcomes), f"{took:.2f}s")
