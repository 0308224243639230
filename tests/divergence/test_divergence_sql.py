"""pair_metrics (SQL + UDFs over the archive) equals compare_pair on every pair."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen.divergence import metrics as divergence
from reportgen.divergence.metrics import Pair, insert_runs, pair_metrics
from reportgen.divergence.reference import Run, Step, compare_pair

from .cases import CASES

SCHEMA = Path(__file__).resolve().parents[2] / "reportgen" / "archive" / "schema.sql"
IDS = ("pair_id", "task_id", "baseline_run_id", "candidate_run_id")


def archive() -> duckdb.DuckDBPyConnection:
    """A fresh in-memory archive made by executing the schema file."""
    con = duckdb.connect()
    con.execute(SCHEMA.read_text(encoding="utf-8"))
    return con


@pytest.fixture
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    """An empty in-memory archive."""
    c = archive()
    yield c
    c.close()


def metrics_only(result: dict[str, Any]) -> dict[str, Any]:
    """A pair_metrics row without its identifying fields, comparable with compare_pair."""
    return {k: v for k, v in result.items() if k not in IDS}


def check_pairs(
    con: duckdb.DuckDBPyConnection, runs: dict[str, Run], pairs: list[tuple[str, str]]
) -> None:
    """Load the runs, score the pairs in SQL and compare each with compare_pair."""
    insert_runs(con, runs)
    got = pair_metrics(con, [Pair(f"p{i}", "task", b, c) for i, (b, c) in enumerate(pairs)])
    assert [g["pair_id"] for g in got] == [f"p{i}" for i in range(len(pairs))]
    for (b, c), result in zip(pairs, got, strict=True):
        assert (result["baseline_run_id"], result["candidate_run_id"]) == (b, c)
        assert metrics_only(result) == compare_pair(runs[b], runs[c])


def test_conformance_cases_in_sql(con: duckdb.DuckDBPyConnection) -> None:
    """All conformance cases in one query give exactly compare_pair's answers."""
    runs: dict[str, Run] = {}
    pairs = []
    for i, case in enumerate(CASES):
        runs[f"b{i}"], runs[f"c{i}"] = case.baseline, case.candidate
        pairs.append((f"b{i}", f"c{i}"))
    check_pairs(con, runs, pairs)


# ------------------------------------------------------------------ random runs

numbers = st.fixed_dictionaries(
    {
        "tokens_in": st.one_of(st.none(), st.integers(0, 5000)),
        "tokens_out": st.one_of(st.none(), st.integers(0, 5000)),
        "cost_usd": st.one_of(
            st.none(), st.sampled_from([0.0, 0.001, 0.0023]), st.floats(0, 2, allow_nan=False)
        ),
        "latency_ms": st.one_of(st.none(), st.sampled_from([0.0, 100.0]), st.floats(0, 1e5)),
    }
)

step_strategy = st.builds(
    lambda t, a, i, o, s, n, p: Step(type=t, action=a, input=i, output=o, status=s, parent=p, **n),
    st.sampled_from(["tool_call", "llm_call"]),
    st.sampled_from(["a", "b", "c"]),
    st.one_of(
        st.none(),
        st.just([1, 2]),
        st.just([1.0, 2]),
        # keys in any order, values 1 and 1.0 alike: payloads compare as values
        st.dictionaries(
            st.sampled_from(["x", "y", "é"]), st.sampled_from([0, 1, 1.0, -0.0]), max_size=3
        ),
    ),
    st.sampled_from([None, "o", {"r": 1}, {"r": 1.0}, {"a": 1, "b": 2}, {"b": 2, "a": 1}, "ünï"]),
    st.sampled_from(["ok", "ok", "success", "error", "retry", "abandoned"]),
    numbers,
    # nested steps: any index (an earlier step, a later one, itself: cycles; or none at all)
    st.one_of(st.none(), st.none(), st.integers(0, 14)),
)

run_strategy = st.builds(
    lambda steps, totals, given: Run(steps=tuple(steps), **(totals if given else {})),
    st.lists(step_strategy, max_size=14),
    numbers,
    st.booleans(),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(run_strategy, min_size=1, max_size=5), st.data())
def test_random_pairs_equal_compare_pair(runs_list: list[Run], data: st.DataObject) -> None:
    """Random runs and pairs among them (including a run with itself) match compare_pair."""
    runs = {f"r{i}": r for i, r in enumerate(runs_list)}
    ids = sorted(runs)
    pairs = data.draw(
        st.lists(st.tuples(st.sampled_from(ids), st.sampled_from(ids)), min_size=1, max_size=8)
    )
    con = archive()
    try:
        check_pairs(con, runs, pairs)
    finally:
        con.close()


@pytest.mark.parametrize("chunk_pairs", [5000, 7])
def test_thousands_of_pairs(
    con: duckdb.DuckDBPyConnection, chunk_pairs: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Thousands of pairs, read in one chunk or in hundreds (a run in many chunks, the last
    chunk short): every row matches compare_pair, in the order given."""
    monkeypatch.setattr(divergence, "CHUNK_PAIRS", chunk_pairs)
    rng = random.Random(11)
    runs: dict[str, Run] = {}
    for i in range(600):
        steps = tuple(
            Step(
                "tool_call",
                rng.choice("abcd"),
                {"k": rng.randrange(2)} if rng.random() < 0.5 else None,
                rng.choice([None, "same"]),
                rng.choice(["ok"] * 6 + ["error", "retry", "abandoned"]),
                tokens_in=rng.randrange(100),
                cost_usd=rng.random() / 100,
                latency_ms=float(rng.randrange(1000)),
            )
            for _ in range(rng.randrange(25))
        )
        runs[f"r{i}"] = Run(steps)
    ids = sorted(runs)
    pairs = [(rng.choice(ids), rng.choice(ids)) for _ in range(2500)]
    check_pairs(con, runs, pairs)


# ------------------------------------------------------------------ behaviour around the query


def test_run_totals_from_runs_table_win(con: duckdb.DuckDBPyConnection) -> None:
    """Run totals given by the run are used instead of the step sums."""
    steps = (Step("t", "a", tokens_in=10, cost_usd=1.0, latency_ms=10.0),)
    runs = {
        "b": Run(steps),
        "c": Run(steps, tokens_in=20, tokens_out=5, cost_usd=3.0, latency_ms=5.0),
    }
    check_pairs(con, runs, [("b", "c")])
    got = pair_metrics(con, [("p", "t", "b", "c")])[0]
    assert got["cost_delta_percentage"] == 200.0
    assert got["token_delta_percentage"] == 150.0
    assert got["latency_delta_percentage"] == -50.0


def test_zero_and_unknown_baselines_give_null_and_note(con: duckdb.DuckDBPyConnection) -> None:
    """A zero or unknown baseline never gives inf or a made-up +100%."""
    runs = {
        "zero": Run((Step("t", "a", tokens_in=0, cost_usd=0.0, latency_ms=0.0),)),
        "unknown": Run((Step("t", "a"),)),
        "some": Run((Step("t", "a", tokens_in=5, cost_usd=0.5, latency_ms=3.0),)),
    }
    insert_runs(con, runs)
    zero, unknown = pair_metrics(con, [("1", "t", "zero", "some"), ("2", "t", "unknown", "some")])
    for key in ("cost", "token", "latency"):
        assert zero[f"{key}_delta_percentage"] is None
        assert "is 0" in zero[f"{key}_delta_note"]
        assert unknown[f"{key}_delta_percentage"] is None
        assert "unknown" in unknown[f"{key}_delta_note"]


def test_order_of_pairs_is_kept(con: duckdb.DuckDBPyConnection) -> None:
    """Results come back in the order the pairs were given."""
    insert_runs(con, {"a": CASES[0].baseline, "b": CASES[1].candidate})
    got = pair_metrics(con, [("z", "t", "a", "b"), ("a", "t", "b", "a"), ("m", "t", "a", "a")])
    assert [g["pair_id"] for g in got] == ["z", "a", "m"]


def test_missing_runs_and_duplicate_ids_are_refused(con: duckdb.DuckDBPyConnection) -> None:
    """A run the archive lacks, or a repeated pair id, is an error, not an empty run."""
    insert_runs(con, {"a": CASES[0].baseline})
    with pytest.raises(ValueError, match="not in the archive: nope"):
        pair_metrics(con, [("p", "t", "a", "nope")])
    with pytest.raises(ValueError, match="unique"):
        pair_metrics(con, [("p", "t", "a", "a"), ("p", "t", "a", "a")])
    assert pair_metrics(con, []) == []


def test_leaves_connection_clean(con: duckdb.DuckDBPyConnection) -> None:
    """Temp tables are dropped and a user's own `pairs` table is untouched."""
    con.execute("CREATE TABLE pairs (note VARCHAR)")
    con.execute("INSERT INTO pairs VALUES ('mine')")
    insert_runs(con, {"a": CASES[0].baseline})
    pair_metrics(con, [("p", "t", "a", "a")])
    assert con.execute("SELECT * FROM pairs").fetchall() == [("mine",)]
    temp = con.execute("SELECT table_name FROM duckdb_tables() WHERE temporary").fetchall()
    assert temp == []


def test_success_status_stored_as_given(con: duckdb.DuckDBPyConnection) -> None:
    """A 'success' status written straight into steps still counts as ok."""
    insert_runs(con, {"a": Run((Step("t", "a"),)), "b": Run((Step("t", "a"),))})
    con.execute("UPDATE steps SET status = 'success' WHERE run_id = 'b'")
    got = pair_metrics(con, [("p", "t", "a", "b")])[0]
    assert got["step_diffs"][0]["status"] == "matched"
    assert got["candidate_wei"] == 0.0


def test_unexpected_statuses_compare_exactly(con: duckdb.DuckDBPyConnection) -> None:
    """Statuses outside ok/success/error/retry/abandoned are compared by their spelling."""
    runs = {
        "b": Run((Step("t", "a", status="weird"), Step("t", "b", status="odd"), Step("t", "c"))),
        "c": Run((Step("t", "a", status="weird"), Step("t", "b", status="weird"), Step("t", "c"))),
    }
    check_pairs(con, runs, [("b", "c"), ("c", "b"), ("b", "b")])


def test_step_indices_with_gaps(con: duckdb.DuckDBPyConnection) -> None:
    """Steps are taken in idx order even when the indices are not 0..n-1."""
    rng = random.Random(5)
    runs = {
        f"r{i}": Run(
            tuple(
                Step(
                    "tool_call",
                    rng.choice("ab"),
                    {"k": rng.randrange(2)},
                    status=rng.choice(["ok", "error"]),
                )
                for _ in range(rng.randrange(1, 12))
            )
        )
        for i in range(6)
    }
    insert_runs(con, runs)
    con.execute("UPDATE steps SET idx = idx * 3 + 1")
    pairs = [("r0", "r1"), ("r2", "r3"), ("r4", "r5"), ("r1", "r1")]
    got = pair_metrics(con, [Pair(f"p{i}", "t", b, c) for i, (b, c) in enumerate(pairs)])
    for (b, c), result in zip(pairs, got, strict=True):
        assert metrics_only(result) == compare_pair(runs[b], runs[c])


def test_runs_without_steps(con: duckdb.DuckDBPyConnection) -> None:
    """Runs with no steps at all, next to runs with steps."""
    runs = {"e": Run(()), "f": Run((), cost_usd=2.0), "s": CASES[0].candidate}
    check_pairs(con, runs, [("e", "e"), ("e", "s"), ("s", "e"), ("f", "s"), ("s", "f")])
