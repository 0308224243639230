"""Default batches: runs that carry no batch take the batch of the job they came with (runs
grouped by gaps of ``BATCH_GAP`` between start times, across labels, each group named by the
UTC date of its first start; joined to an archived batch whose runs start within the gap)."""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from reportgen.cli import make_app
from reportgen.ingest import ingest
from reportgen.ingest.loader import BATCH_GAP
from tests.conftest import make_run
from tests.formats.helpers import DATA, needs_data


def write_runs(path: Path, runs: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in runs), encoding="utf-8")
    return path


def batches(db: Path, sql: str = "SELECT label, task_id, batch FROM runs ORDER BY ALL") -> list:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def job(tmp: Path, night: datetime, tasks: int, every: timedelta, folder: str = "") -> list[Path]:
    """One nightly job: ``tasks`` tasks starting ``every`` apart, run by both labels."""
    paths = []
    for label in ("baseline", "candidate"):
        runs = [
            make_run(
                f"t{k}", started_at=stamp(night + k * every), label=label, output=f"{label} {k}"
            )
            for k in range(tasks)
        ]
        paths.append(write_runs(tmp / folder / label / "runs.jsonl", runs))
    return paths


def test_a_job_crossing_midnight_is_one_batch_for_both_labels(tmp_path: Path) -> None:
    """23:30 to 00:40 UTC, both labels: one batch, named by the date of the first start."""
    paths = job(tmp_path, datetime(2026, 11, 27, 23, 30, tzinfo=UTC), 15, timedelta(minutes=5))
    db = tmp_path / "a.duckdb"
    ingest(paths, db)
    assert batches(db, "SELECT batch, count(*), count(DISTINCT label) FROM runs GROUP BY 1") == [
        ("2026-11-27", 30, 2)
    ]
    assert batches(db, "SELECT min(started_at), max(started_at) FROM runs") == [
        (
            datetime(2026, 11, 27, 23, 30, tzinfo=UTC),
            datetime(2026, 11, 28, 0, 40, tzinfo=UTC),
        )
    ]
    # the outputs (convergence) take their runs' batch
    assert batches(db, "SELECT DISTINCT batch FROM outputs") == [("2026-11-27",)]


def test_thirty_nights_in_one_call_stay_thirty_batches(tmp_path: Path) -> None:
    paths = []
    for n in range(30):
        night = datetime(2026, 10, 1, 23, 0, tzinfo=UTC) + timedelta(days=n)
        paths += job(tmp_path, night, 8, timedelta(minutes=15), folder=f"n{n:02d}")
    db = tmp_path / "a.duckdb"
    ingest(paths, db)
    got = batches(
        db, "SELECT batch, count(*), count(DISTINCT label) FROM runs GROUP BY 1 ORDER BY 1"
    )
    assert len(got) == 30
    assert got[0] == ("2026-10-01", 16, 2) and got[-1] == ("2026-10-30", 16, 2)


@needs_data
def test_the_real_mini_swe_agent_job_is_one_batch(tmp_path: Path) -> None:
    """The shared mini-swe-agent folder: 20 tasks run 23:35 to 00:25 UTC."""
    db = tmp_path / "a.duckdb"
    ingest([DATA / "mini-swe-agent"], db)
    assert batches(db, "SELECT batch, count(*) FROM runs GROUP BY 1") == [("2025-11-18", 20)]


def test_a_later_load_of_the_same_night_joins_its_batch(tmp_path: Path) -> None:
    """The first half of a job, loaded on its own, is named by its date; the second half,
    loaded later and starting within the gap, joins it rather than opening the next day."""
    night = datetime(2026, 11, 27, 23, 30, tzinfo=UTC)
    first = write_runs(
        tmp_path / "one" / "baseline" / "a.jsonl",
        [make_run(f"t{k}", started_at=stamp(night + timedelta(minutes=10 * k))) for k in range(3)],
    )
    second = write_runs(
        tmp_path / "two" / "baseline" / "b.jsonl",
        [
            make_run(f"u{k}", started_at=stamp(night + timedelta(minutes=50 + 10 * k)))
            for k in range(3)
        ],
    )
    later = write_runs(
        tmp_path / "three" / "baseline" / "c.jsonl",
        [make_run("v", started_at=stamp(night + timedelta(hours=20)))],
    )
    db = tmp_path / "a.duckdb"
    ingest([first], db)
    ingest([second], db)
    ingest([later], db)
    got = batches(db, "SELECT task_id, batch FROM runs ORDER BY 1")
    assert got == [
        ("t0", "2026-11-27"),
        ("t1", "2026-11-27"),
        ("t2", "2026-11-27"),
        ("u0", "2026-11-27"),
        ("u1", "2026-11-27"),
        ("u2", "2026-11-27"),
        ("v", "2026-11-28"),
    ]


def test_a_carried_batch_is_kept_and_batch_option_sets_it_outright(tmp_path: Path) -> None:
    night = datetime(2026, 11, 27, 23, 50, tzinfo=UTC)
    carried = write_runs(
        tmp_path / "baseline" / "a.jsonl",
        [make_run("t0", started_at=stamp(night), batch="ci-17")],
    )
    plain = write_runs(
        tmp_path / "candidate" / "a.jsonl",
        [make_run("t0", started_at=stamp(night + timedelta(minutes=30)), output="x")],
    )
    undated = write_runs(tmp_path / "other" / "a.jsonl", [make_run("t9", started_at=None)])
    db = tmp_path / "a.duckdb"
    ingest([carried, plain, undated], db)
    # the batch-less run of the same job joins the batch its neighbour carries
    assert batches(db) == [
        ("baseline", "t0", "ci-17"),
        ("candidate", "t0", "ci-17"),
        ("other", "t9", "undated"),
    ]
    forced = tmp_path / "b.duckdb"
    ingest([carried, plain, undated], forced, batch="night-5")
    assert {b for (_, _, b) in batches(forced)} == {"night-5"}
    assert batches(forced, "SELECT DISTINCT batch FROM outputs") == [("night-5",)]


def test_ingest_batch_option_on_the_command_line(tmp_path: Path) -> None:
    path = write_runs(tmp_path / "baseline" / "a.jsonl", [make_run("t0")])
    db = tmp_path / "a.duckdb"
    result = CliRunner().invoke(
        make_app(), ["ingest", str(path), "--db", str(db), "--batch", "job-9", "-q"]
    )
    assert result.exit_code == 0, result.output
    assert batches(db) == [("baseline", "t0", "job-9")]
    blank = CliRunner().invoke(
        make_app(), ["ingest", str(path), "--db", str(tmp_path / "b.duckdb"), "--batch", " "]
    )
    assert blank.exit_code == 2 and "--batch" in blank.output


def reference_batches(starts: list[datetime | None], gap: timedelta) -> list[str]:
    """The rule, slowly: sort the starts, cut where a gap reaches ``gap``, name each group by
    the UTC date of its first start (no archive, no carried batches)."""
    order = sorted((s, i) for i, s in enumerate(starts) if s is not None)
    names: list[str] = ["undated"] * len(starts)
    first: datetime | None = None
    previous: datetime | None = None
    for start, i in order:
        if previous is None or start - previous >= gap:
            first = start
        assert first is not None
        names[i] = first.astimezone(UTC).strftime("%Y-%m-%d")
        previous = start
    return names


BASE = datetime(2026, 11, 1, tzinfo=UTC)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.one_of(st.none(), st.integers(min_value=0, max_value=5 * 24 * 60)),
        min_size=1,
        max_size=25,
    )
)
def test_batches_agree_with_the_slow_reference(minutes: list[int | None]) -> None:
    starts = [None if m is None else BASE + timedelta(minutes=m) for m in minutes]
    # gaps of exactly the cut-off are common enough to matter
    with tempfile.TemporaryDirectory() as tmp:
        runs = [
            make_run(f"t{i:03d}", run_id=f"r{i:03d}", started_at=None if s is None else stamp(s))
            for i, s in enumerate(starts)
        ]
        path = write_runs(Path(tmp) / "baseline" / "a.jsonl", runs)
        db = Path(tmp) / "a.duckdb"
        ingest([path], db)
        got = [b for (b,) in batches(db, "SELECT batch FROM runs ORDER BY run_id")]
    assert got == reference_batches(starts, BATCH_GAP)


def test_an_exact_gap_opens_a_new_batch(tmp_path: Path) -> None:
    night = datetime(2026, 11, 27, 20, 0, tzinfo=UTC)
    runs = [
        make_run("a", started_at=stamp(night)),
        make_run("b", started_at=stamp(night + BATCH_GAP - timedelta(seconds=1))),
        make_run("c", started_at=stamp(night + 2 * BATCH_GAP - timedelta(seconds=1))),
    ]
    db = tmp_path / "a.duckdb"
    ingest([write_runs(tmp_path / "baseline" / "a.jsonl", runs)], db)
    assert [b for (_, _, b) in batches(db)] == ["2026-11-27", "2026-11-27", "2026-11-28"]
