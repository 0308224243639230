"""Divergence metrics for many baseline/candidate pairs at once, from the archive.

``pair_metrics`` runs ``sql/pair_metrics.sql`` (plus the staging files it reads) with the rg_*
UDFs and returns one JSON-contract dict per pair, with the same numbers as
:func:`reportgen.metrics.trajectory.compare_pair` gives for the same two runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import astuple, dataclass
from typing import Any

import duckdb
import pyarrow as pa

from reportgen.metrics.sql import load_sql
from reportgen.metrics.trajectory import DELTA_NOTES, Run, canonical_json, normalise_status
from reportgen.metrics.udfs import register_udfs

# Staging relations, materialised as temp tables in this order; each .sql file reads the
# ones before it (and the archive tables) by name.
_STAGES = ("pair_runs", "step_signatures", "run_totals")
_INPUT_VIEW = "rg_pairs_input"
_DELTAS = (("cost", "cost"), ("token", "tokens"), ("latency", "latency"))
_METRIC_KEYS = (
    "trajectory_divergence_index",
    "baseline_wei",
    "candidate_wei",
    "loops_detected",
    "baseline_recovery_steps",
    "candidate_recovery_steps",
    "baseline_unrecovered_steps",
    "candidate_unrecovered_steps",
    "recovery_step_ratio",
)


@dataclass(frozen=True, slots=True)
class Pair:
    """A baseline run and a candidate run of one task to compare."""

    pair_id: str
    task_id: str
    baseline_run_id: str
    candidate_run_id: str


PairLike = Pair | tuple[Any, Any, str, str]


def _as_columns(pairs: Iterable[PairLike]) -> dict[str, list[Any]]:
    """The pairs as columns for an Arrow table; pair ids must be unique."""
    rows = [astuple(p) if isinstance(p, Pair) else tuple(p) for p in pairs]
    ids = [r[0] for r in rows]
    if len(set(ids)) != len(ids):
        raise ValueError("pair_id values must be unique")
    names = ("pair_id", "task_id", "baseline_run_id", "candidate_run_id")
    return {name: [r[i] for r in rows] for i, name in enumerate(names)}


def _contract(row: dict[str, Any]) -> dict[str, Any]:
    """Reshape one result row into the JSON contract (same key order as compare_pair)."""
    out: dict[str, Any] = {
        "pair_id": row["pair_id"],
        "task_id": row["task_id"],
        "baseline_run_id": row["baseline_run_id"],
        "candidate_run_id": row["candidate_run_id"],
    }
    for key in _METRIC_KEYS:
        out[key] = row[key]
    for key, what in _DELTAS:
        out[f"{key}_delta_percentage"] = row[f"{key}_delta_percentage"]
        reason = row[f"{key}_delta_reason"]
        if reason is not None:
            out[f"{key}_delta_note"] = DELTA_NOTES[reason].format(what=what)
    out["step_diffs"] = row["step_diffs"]
    out["baseline_totals"] = row["baseline_totals"]
    out["candidate_totals"] = row["candidate_totals"]
    return out


def pair_metrics(con: duckdb.DuckDBPyConnection, pairs: Sequence[PairLike]) -> list[dict[str, Any]]:
    """Every divergence metric of every pair, in the order given, as JSON-contract dicts.

    ``pairs`` are :class:`Pair` or ``(pair_id, task_id, baseline_run_id, candidate_run_id)``
    tuples. Runs the metric SQL in one pass over the archive on ``con``, staging in the temp
    tables pairs, pair_runs, step_signatures and run_totals (replaced, then dropped; tables of
    those names in the main schema are untouched). Raises ValueError for duplicate pair ids or
    runs the archive lacks."""
    columns = _as_columns(pairs)
    if not columns["pair_id"]:
        return []
    register_udfs(con)
    created: list[str] = []
    con.register(_INPUT_VIEW, pa.table(columns))
    try:
        for name in ("pairs", *_STAGES):
            source = f"SELECT * FROM {_INPUT_VIEW}" if name == "pairs" else load_sql(name)
            con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS {source}")
            created.append(name)
        missing = [r[0] for r in con.execute(load_sql("pair_runs_missing")).fetchall()]
        if missing:
            shown = ", ".join(map(str, missing[:5])) + (" ..." if len(missing) > 5 else "")
            raise ValueError(f"{len(missing)} run(s) not in the archive: {shown}")
        table = con.sql(load_sql("pair_metrics")).to_arrow_table()
    finally:
        for name in reversed(created):
            con.execute(f"DROP TABLE IF EXISTS temp.{name}")
        con.unregister(_INPUT_VIEW)
    by_id = {row["pair_id"]: _contract(row) for row in table.to_pylist()}
    return [by_id[pid] for pid in columns["pair_id"]]


def insert_runs(
    con: duckdb.DuckDBPyConnection,
    runs: Mapping[str, Run],
    *,
    task_id: str = "task",
    suite: str = "adhoc",
) -> None:
    """Write in-memory runs (keyed by run_id) into the archive's runs and steps tables.

    For tests, benches and API callers that hold traces in Python; files go through ingest."""
    run_cols: dict[str, list[Any]] = {k: [] for k in _RUN_COLUMNS}
    step_cols: dict[str, list[Any]] = {k: [] for k in _STEP_COLUMNS}
    for run_id, run in runs.items():
        run_fields: tuple[tuple[str, Any], ...] = (
            ("run_id", run_id),
            ("task_id", task_id),
            ("suite", suite),
            ("tokens_in", run.tokens_in),
            ("tokens_out", run.tokens_out),
            ("cost_usd", run.cost_usd),
            ("latency_ms", run.latency_ms),
            ("n_steps", len(run.steps)),
        )
        for key, value in run_fields:
            run_cols[key].append(value)
        for idx, s in enumerate(run.steps):
            step_fields: tuple[tuple[str, Any], ...] = (
                ("run_id", run_id),
                ("idx", idx),
                ("type", s.type),
                ("action", s.action),
                ("input", None if s.input is None else canonical_json(s.input)),
                ("input_keys", list(s.signature[2])),
                ("output", None if s.output is None else canonical_json(s.output)),
                ("status", normalise_status(s.status)),
                ("tokens_in", s.tokens_in),
                ("tokens_out", s.tokens_out),
                ("cost_usd", s.cost_usd),
                ("latency_ms", s.latency_ms),
            )
            for key, value in step_fields:
                step_cols[key].append(value)
    con.register("rg_runs_input", pa.table(run_cols, schema=_RUN_SCHEMA))
    con.register("rg_steps_input", pa.table(step_cols, schema=_STEP_SCHEMA))
    try:
        con.execute(load_sql("insert_runs"))
        con.execute(load_sql("insert_steps"))
    finally:
        con.unregister("rg_runs_input")
        con.unregister("rg_steps_input")


_RUN_SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),
        ("task_id", pa.string()),
        ("suite", pa.string()),
        ("tokens_in", pa.int64()),
        ("tokens_out", pa.int64()),
        ("cost_usd", pa.float64()),
        ("latency_ms", pa.float64()),
        ("n_steps", pa.int32()),
    ]
)
_STEP_SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),
        ("idx", pa.int32()),
        ("type", pa.string()),
        ("action", pa.string()),
        ("input", pa.string()),
        ("input_keys", pa.list_(pa.string())),
        ("output", pa.string()),
        ("status", pa.string()),
        ("tokens_in", pa.int64()),
        ("tokens_out", pa.int64()),
        ("cost_usd", pa.float64()),
        ("latency_ms", pa.float64()),
    ]
)
_RUN_COLUMNS = tuple(_RUN_SCHEMA.names)
_STEP_COLUMNS = tuple(_STEP_SCHEMA.names)
