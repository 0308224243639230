"""Run the iteration metric SQL over an archive and return RunProgress objects.

The SQL (reportgen/iterations/sql/iteration_*.sql) is the one place the signals are computed; the
CLI, the pages and the API all read them from here."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import duckdb

from reportgen._sql import load_sql
from reportgen.iterations.model import (
    MIN_STALLED,
    Attempt,
    RunProgress,
    StepProgress,
    ThrashEvidence,
)
from reportgen.iterations.udfs import register_iteration_udfs

LOW_PATCH_DISTANCE = 0.5
"""A mean patch distance under this says attempts rewrite rather than refine."""


def analyse(
    con: duckdb.DuckDBPyConnection,
    run_ids: list[str] | None = None,
    *,
    min_stalled: int = MIN_STALLED,
    low_patch_distance: float = LOW_PATCH_DISTANCE,
) -> list[RunProgress]:
    """Progress of every coding-loop run in the archive (or of ``run_ids``), sorted by run id.

    Leaves temp tables ``iteration_attempts`` and ``iteration_steps`` on ``con``."""
    prepare(con, run_ids, min_stalled=min_stalled, low_patch_distance=low_patch_distance)
    attempts: dict[tuple[str, str], list[Attempt]] = defaultdict(list)
    for row in _rows(con, "SELECT * FROM iteration_attempts ORDER BY run_id, step, step_seq"):
        attempts[(row["run_id"], row["step"])].append(_attempt(row))
    steps: dict[str, list[StepProgress]] = defaultdict(list)
    for row in _rows(con, "SELECT * FROM iteration_steps"):
        steps[row["run_id"]].append(_step(row, attempts[(row["run_id"], row["step"])]))
    return [_run(row, steps[row["run_id"]]) for row in _rows(con, load_sql("iteration_runs"))]


def prepare(
    con: duckdb.DuckDBPyConnection,
    run_ids: list[str] | None = None,
    *,
    min_stalled: int = MIN_STALLED,
    low_patch_distance: float = LOW_PATCH_DISTANCE,
) -> None:
    """Materialise the per-attempt and per-step tables (temp tables, so a read-only archive
    works too); the patch-distance UDF runs once per attempt."""
    register_iteration_udfs(con)
    con.execute(
        "CREATE OR REPLACE TEMP TABLE iteration_attempts AS " + load_sql("iteration_attempts"),
        {"run_ids": run_ids},
    )
    con.execute(
        "CREATE OR REPLACE TEMP TABLE iteration_steps AS " + load_sql("iteration_steps"),
        {"min_stalled": min_stalled, "low_patch_distance": low_patch_distance},
    )


def _rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[dict[str, Any]]:
    cursor = con.execute(sql)
    names = [d[0] for d in cursor.description or []]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _attempt(row: dict[str, Any]) -> Attempt:
    return Attempt(
        iter=row["iter"],
        attempt=row["attempt"],
        check=row["check"],
        exit_code=row["exit_code"],
        certified=row["certified"],
        normaliser=row["normaliser"],
        failing=row["failing"],
        n_failing=row["n_failing"],
        resolved=row["resolved"],
        persisting=row["persisting"],
        new=row["new"],
        patch_lines=row["patch_lines"],
        patch_distance=row["patch_distance"],
        diff_volume=row["diff_volume"],
        tool_calls=row["tool_calls"],
        tool_errors=row["tool_errors"],
        tool_error_rate=row["tool_error_rate"],
        tokens=int(row["tokens"]),
        usd=float(row["usd"]),
        secs=row["secs"],
    )


def _thrash(row: dict[str, Any]) -> ThrashEvidence | None:
    if not row["stalled"]:
        return None
    return ThrashEvidence(
        flagged=row["thrash"],
        stalled=int(row["stalled"]),
        anchor_attempt=row["anchor_attempt"],
        anchor_iter=row["anchor_iter"],
        attempts=list(row["stalled_attempts"]),
        iters=list(row["stalled_iters"]),
        failing_set=row["failing_set"],
        core_failing=list(row["core_failing"]),
        churn_ids=list(row["churn_ids"]),
        n_failing_from=row["n_failing_from"],
        n_failing_to=row["n_failing_to"],
        diff_from=row["diff_from"],
        diff_to=row["diff_to"],
        growing_diff=row["growing_diff"],
        mean_patch_distance=row["mean_patch_distance"],
        low_patch_distance=row["low_patch_distance"],
        tool_error_rate_from=row["tool_error_rate_from"],
        tool_error_rate_to=row["tool_error_rate_to"],
        rising_tool_errors=row["rising_tool_errors"],
        tokens=int(row["stalled_tokens"]),
        usd=float(row["stalled_usd"]),
    )


def _step(row: dict[str, Any], attempts: list[Attempt]) -> StepProgress:
    return StepProgress(
        step=row["step"],
        n_attempts=int(row["attempts"]),
        first_iter=row["first_iter"],
        last_iter=row["last_iter"],
        certified=row["certified"],
        certified_attempt=row["certified_attempt"],
        certified_iter=row["certified_iter"],
        check=row["certifying_check"],
        normaliser=row["normaliser"],
        check_kind=row["check_kind"],
        tokens=int(row["tokens"]),
        usd=float(row["usd"]),
        tool_calls=row["tool_calls"],
        tool_errors=row["tool_errors"],
        thrash=_thrash(row),
        attempts=attempts,
    )


def _run(row: dict[str, Any], steps: list[StepProgress]) -> RunProgress:
    return RunProgress(
        run_id=row["run_id"],
        n_attempts=int(row["attempts"]),
        first_iter=row["first_iter"],
        last_iter=row["last_iter"],
        n_steps=int(row["n_steps"]),
        backlog_steps=None if row["backlog_steps"] is None else int(row["backlog_steps"]),
        certified_steps=int(row["certified_steps"]),
        tokens=int(row["tokens"]),
        usd=float(row["usd"]),
        tokens_per_certified_step=row["tokens_per_certified_step"],
        usd_per_certified_step=row["usd_per_certified_step"],
        per_certified_reason=row["per_certified_reason"],
        last_certified_iter=row["last_certified_iter"],
        marginal_attempts=int(row["marginal_attempts"]),
        marginal_tokens=int(row["marginal_tokens"]),
        marginal_usd=float(row["marginal_usd"]),
        tool_calls=row["tool_calls"],
        tool_errors=row["tool_errors"],
        tool_error_rate=row["tool_error_rate"],
        thrash_steps=list(row["thrash_steps"]),
        steps=steps,
    )
