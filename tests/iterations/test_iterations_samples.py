"""The bundled sample loops tell the seed's story: two runs on one 12-step modernisation backlog
with the same token total and the same iteration count. One certifies nine steps, every failing
set shrinking; the other certifies two and is stuck on step three (session-tokens) with the same
nine failures every attempt and a growing patch. The report separates them at a glance."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from reportgen.archive import connect
from reportgen.ingest import ingest
from reportgen.iterations import analyse, compare_page_data, page_data
from reportgen.iterations.model import RunProgress, StepProgress
from reportgen.resources import shipped_dir

CONVERGING = "2026-11-28/backlog-converging"
THRASHING = "2026-11-28/backlog-thrashing"
BACKLOG = [
    "go-modules",
    "drop-pkg-errors",
    "session-tokens",
    "slog-logging",
    "context-deadlines",
    "stdlib-router",
    "pgx-v5",
    "config-env",
    "generic-helpers",
    "tools-py312",
    "otel-metrics",
    "golangci-lint",
]
AUTH = "go:example.com/shop/internal/auth::"
NINE = sorted(
    AUTH + name
    for name in (
        "TestParseSessionToken",
        "TestParseSessionToken/expired_token",
        "TestParseSessionToken/bad_signature",
        "TestSessionRefresh",
        "TestSessionRevoke",
        "TestAuthMiddleware",
        "TestAuthMiddleware/rejects_expired",
        "TestAuthMiddleware/sets_user",
        "TestLogoutClearsCookie",
    )
)
CHURN = [
    "go:example.com/shop/internal/api::TestLoginHandler",
    "go:example.com/shop/internal/api::TestLoginHandler/valid_credentials",
    "go:internal/http/router.go:not enough arguments in call to auth.ParseSessionToken",
]


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory) -> Iterator[duckdb.DuckDBPyConnection]:
    db: Path = tmp_path_factory.mktemp("samples") / "a.duckdb"
    ingest([shipped_dir("sample_runs") / "iterations"], db)
    connection = connect(db, read_only=True)
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def runs(con: duckdb.DuckDBPyConnection) -> tuple[RunProgress, RunProgress]:
    good, bad = analyse(con)
    assert (good.run_id, bad.run_id) == (CONVERGING, THRASHING)
    return good, bad


def step_of(run: RunProgress, name: str) -> StepProgress:
    return next(s for s in run.steps if s.step == name)


def test_same_headline(runs: tuple[RunProgress, RunProgress]) -> None:
    """What a totals dashboard shows: identical tokens and iteration counts."""
    good, bad = runs
    assert good.tokens == bad.tokens == 380_000
    assert good.n_attempts == bad.n_attempts == 22
    assert (good.first_iter, good.last_iter) == (bad.first_iter, bad.last_iter) == (1, 22)
    assert good.usd == pytest.approx(bad.usd, rel=0.05)


def test_certified_steps_nine_against_two(runs: tuple[RunProgress, RunProgress]) -> None:
    good, bad = runs
    # both work through the same 12-step backlog in order
    assert [s.step for s in good.steps] == BACKLOG[:10]
    assert [s.step for s in bad.steps] == BACKLOG[:3]
    assert good.certified_steps == 9 and [s.certified for s in good.steps] == [True] * 9 + [False]
    assert bad.certified_steps == 2 and [s.certified for s in bad.steps] == [True, True, False]
    assert bad.last_certified_iter == 7 and good.last_certified_iter == 18
    assert (good.marginal_attempts, bad.marginal_attempts) == (4, 15)


def test_spend_per_certified_step_separates_them(runs: tuple[RunProgress, RunProgress]) -> None:
    good, bad = runs
    assert good.tokens_per_certified_step == pytest.approx(380_000 / 9)
    assert bad.tokens_per_certified_step == pytest.approx(380_000 / 2)
    assert good.usd_per_certified_step is not None and bad.usd_per_certified_step is not None
    assert good.tokens_per_certified_step is not None and bad.tokens_per_certified_step is not None
    assert bad.tokens_per_certified_step > 4 * good.tokens_per_certified_step
    assert bad.usd_per_certified_step > 4 * good.usd_per_certified_step
    # nearly everything the stuck run spent came after its last certification
    assert bad.marginal_tokens > 0.8 * bad.tokens > 5 * good.marginal_tokens


def test_thrash_only_on_step_three_of_the_stuck_run(runs: tuple[RunProgress, RunProgress]) -> None:
    good, bad = runs
    assert good.thrash_steps == [] and bad.thrash_steps == ["session-tokens"]
    assert all(s.thrash is None or not s.thrash.flagged for s in good.steps)
    flagged = [s.step for s in bad.steps if s.thrash is not None and s.thrash.flagged]
    assert flagged == ["session-tokens"]


def test_the_same_nine_failures_persist(runs: tuple[RunProgress, RunProgress]) -> None:
    _, bad = runs
    step = step_of(bad, "session-tokens")
    assert not step.certified and step.check_kind == "test-suite"
    first, *rest = step.attempts
    assert first.iter == 8 and first.failing == NINE and first.new == NINE
    assert len(rest) == 14
    for a in rest:
        assert a.persisting == NINE, a.iter
        assert set(NINE) <= set(a.failing or [])
    # iteration 11 broke three more things, iteration 12 cleared them; the nine never moved
    by_iter = {a.iter: a for a in step.attempts}
    assert (by_iter[11].n_failing, by_iter[11].new) == (12, CHURN)
    assert (by_iter[12].n_failing, by_iter[12].resolved) == (9, CHURN)
    assert all(a.n_failing == 9 and not a.new and not a.resolved for a in rest if a.iter > 12)


def test_thrash_evidence_on_session_tokens(runs: tuple[RunProgress, RunProgress]) -> None:
    _, bad = runs
    t = step_of(bad, "session-tokens").thrash
    assert t is not None and t.flagged
    assert (t.anchor_attempt, t.anchor_iter) == (1, 8)
    assert (t.attempts, t.iters) == (list(range(2, 16)), list(range(9, 23)))
    assert t.failing_set == "churning" and t.core_failing == NINE and t.churn_ids == CHURN
    assert (t.n_failing_from, t.n_failing_to) == (9, 9)
    # the patch grows every attempt while staying mostly the same: refining the wrong thing
    assert t.growing_diff and t.diff_from is not None and t.diff_to is not None
    assert t.diff_to > 2 * t.diff_from
    assert not t.low_patch_distance
    assert t.mean_patch_distance is not None and t.mean_patch_distance > 0.9
    assert t.rising_tool_errors
    assert t.tool_error_rate_from == 0 and (t.tool_error_rate_to or 0) > 0.25
    diffs = [a.diff_volume or 0 for a in step_of(bad, "session-tokens").attempts]
    assert diffs == sorted(diffs) and len(set(diffs)) == len(diffs)


def test_converging_run_shrinks_every_failing_set(runs: tuple[RunProgress, RunProgress]) -> None:
    good, _ = runs
    for step in good.steps:
        counts = [a.n_failing if a.n_failing is not None else -1 for a in step.attempts]
        assert min(counts) >= 0, step.step
        assert counts == sorted(counts, reverse=True) and len(set(counts)) == len(counts)
        for a in step.attempts:
            assert a.new == (a.failing if a.attempt == 1 else []), (step.step, a.iter)
    three = step_of(good, "session-tokens")
    assert [a.n_failing for a in three.attempts] == [9, 5, 2, 0]
    assert three.attempts[0].failing == NINE  # the same nine, resolved this time
    patches = [a.diff_volume or 0 for a in three.attempts]
    assert patches == sorted(patches, reverse=True)  # each patch smaller than the last


def test_raw_check_output_is_normalised_at_ingest(con: duckdb.DuckDBPyConnection) -> None:
    """Records with `output` (go test, pytest) and no `failing` get ids equal to the ids the
    other records list, so the sets line up across the two kinds of record."""
    raw: dict[tuple[str, int], str] = {}
    for path in sorted((shipped_dir("sample_runs") / "iterations").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if "output" in record:
                assert "failing" not in record and record["check"]
                raw[(record["run"], record["iter"])] = record["check"]
    kinds = {check.split()[0] for check in raw.values()}
    assert kinds == {"go", "pytest"} and len(raw) >= 5
    rows = con.execute(
        "SELECT run_id, iter, normaliser, failing FROM iterations WHERE check_output IS NOT NULL"
    ).fetchall()
    assert {(r[0], r[1]) for r in rows} == set(raw)
    for run_id, iteration, normaliser, failing in rows:
        assert normaliser == raw[(run_id, iteration)].split()[0], (run_id, iteration)
        assert failing, (run_id, iteration)
    stuck = {r[1]: sorted(r[3]) for r in rows if r[0] == THRASHING}
    assert stuck[8] == NINE and stuck[11] == sorted(NINE + CHURN)


def test_pages(con: duckdb.DuckDBPyConnection) -> None:
    page = page_data(con, THRASHING)
    steps = {s["step"]: s for s in page["steps"]}
    series = steps["session-tokens"]["series"]
    assert series["persisting"] == [0] + [9] * 14
    assert series["new"][:5] == [9, 0, 0, 3, 0]
    assert page["progress"]["certified_steps"][-1] == 2
    assert page["progress"]["cumulative_tokens"][-1] == 380_000
    both = compare_page_data(con, CONVERGING, THRASHING)
    assert [s["step"] for s in both["steps"]] == BACKLOG[:10]
    three = both["steps"][2]
    assert three["a"]["certified"] and not three["b"]["certified"] and three["b"]["thrash"]
    assert not three["a"]["thrash"]
    assert both["steps"][3]["b"] is None  # the stuck run never reached step four
    assert [r["certified_steps"] for r in both["runs"]] == [9, 2]


def test_unknown_run_is_an_input_error(con: duckdb.DuckDBPyConnection) -> None:
    from reportgen.errors import InputError

    with pytest.raises(InputError):
        page_data(con, "no-such-run")
