"""What a build reads: a night's steps only when a page of that night asks for them, and the
latest night's verdicts judged from the every-night evaluation's pairs, the same as
``gate --batch NIGHT`` says."""

from __future__ import annotations

import json
from pathlib import Path

from reportgen._sql import load_sql
from reportgen.archive import connect
from reportgen.evaluation import evaluate_labels
from reportgen.site.data import NightSteps, _rows, load_site_data


def test_steps_are_read_a_night_at_a_time(demo_db: Path) -> None:
    con = connect(demo_db, read_only=True)
    try:
        con.execute(load_sql("run_resolved"))
        runs = {r["run_id"]: r for r in _rows(con, "site_runs")}
        nights = sorted({r["batch"] for r in runs.values()})
        steps = NightSteps(con, runs, None)
        run_id = next(r for r, run in runs.items() if run["batch"] == nights[-1])
        first = steps[run_id]
        assert first and all(s["run_id"] == run_id for s in first)
        assert set(steps._read) == {nights[-1]}  # one night read, not the archive
        every = _rows(con, "site_steps", {"run_ids": sorted(runs)})
        assert [s for s in every if s["run_id"] == run_id] == first
        assert len(steps) == len({s["run_id"] for s in every})
        kept = NightSteps(con, runs, nights[-1:])
        old = next(r for r, run in runs.items() if run["batch"] != nights[-1])
        assert kept.get(old) is None and kept.get(run_id) == first
    finally:
        con.close()


def test_latest_night_says_what_gate_says(demo_db: Path) -> None:
    con = connect(demo_db, read_only=True)
    try:
        data = load_site_data(con, "baseline", "candidate")
        assert data.latest is not None and data.pairs
        night = max(p.batch for p in data.pairs)
        gate = evaluate_labels(
            con, "baseline", "candidate", baseline_batch=night, candidate_batch=night,
            with_steps=False,
        )  # fmt: skip
        said = json.dumps(data.latest.statistics, sort_keys=True, default=str)
        assert said == json.dumps(gate.statistics, sort_keys=True, default=str)
        assert data.latest.repeat_tdi == gate.repeat_tdi
        assert data.latest.headline == gate.headline
    finally:
        con.close()


def test_step_hashes_are_read_for_the_nights_with_step_pages(demo_db: Path) -> None:
    con = connect(demo_db, read_only=True)
    try:
        every = load_site_data(con, "baseline", "candidate")
        newest = max(r["batch"] for r in every.runs)
        kept = load_site_data(con, "baseline", "candidate", frozenset({newest}))
        of_newest = {r["run_id"] for r in every.runs if r["batch"] == newest}
        assert of_newest and set(kept.step_hashes) == of_newest & set(every.step_hashes)
        assert all(kept.step_hashes[r] == every.step_hashes[r] for r in kept.step_hashes)
        assert len(every.step_hashes) > len(kept.step_hashes)
    finally:
        con.close()
