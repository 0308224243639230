"""Decide which baseline run is compared with which candidate run; list what has no partner."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import duckdb

from reportgen._sql import load_sql
from reportgen.archive import arrow
from reportgen.archive.connection import first_row
from reportgen.divergence.metrics import Pair


@dataclass(frozen=True)
class Unpaired:
    """A run with no partner on the other side."""

    side: str
    run_id: str
    suite: str
    task_id: str
    batch: str
    trial: int


@dataclass
class Pairing:
    """Pairs to compare, and the runs left over (listed, never dropped silently)."""

    pairs: list[Pair] = field(default_factory=list)
    unpaired: list[Unpaired] = field(default_factory=list)


def pair_id(suite: str, task_id: str, batch: str, trial: int) -> str:
    """A stable, readable id for one pair: suite/task/batch, plus #trial for repeats."""
    return f"{suite}/{task_id}/{batch}" + (f"#{trial}" if trial else "")


def pair_runs(
    con: duckdb.DuckDBPyConnection,
    baseline_run_ids: Sequence[str],
    candidate_run_ids: Sequence[str],
    *,
    same_batch: bool = True,
) -> Pairing:
    """Pair two sets of archived runs by suite, task and trial (and batch when ``same_batch``).

    Two single runs always pair with each other, whatever their tasks: that is what a user
    comparing two trace files means."""
    if len(baseline_run_ids) == 1 and len(candidate_run_ids) == 1:
        (base,), (cand,) = baseline_run_ids, candidate_run_ids
        row = first_row(
            con, "SELECT suite, task_id, batch, trial FROM runs WHERE run_id = ?", [cand]
        )
        suite, task, batch, trial = row if row else ("?", "?", "?", 0)
        return Pairing([Pair(pair_id(suite, task, batch, trial), task, base, cand)])
    return _pair_by_key(con, baseline_run_ids, candidate_run_ids, same_batch)


def runs_of_label(
    con: duckdb.DuckDBPyConnection,
    label: str,
    *,
    suite: str | None = None,
    batch: str | None = None,
) -> list[str]:
    """Run ids of one label (optionally one suite and batch)."""
    params = {"label": label, "suite": suite, "batch": batch}
    return [r[0] for r in con.execute(load_sql("runs_by_label"), params).fetchall()]


def pair_labels(
    con: duckdb.DuckDBPyConnection,
    baseline_label: str,
    candidate_label: str,
    *,
    suite: str | None = None,
    baseline_batch: str | None = None,
    candidate_batch: str | None = None,
) -> Pairing:
    """Pair archived runs of two labels by task, night by night unless a batch is pinned on
    either side (then those two nights are compared with each other)."""
    base = runs_of_label(con, baseline_label, suite=suite, batch=baseline_batch)
    cand = runs_of_label(con, candidate_label, suite=suite, batch=candidate_batch)
    same_batch = baseline_batch is None and candidate_batch is None
    return _pair_by_key(con, base, cand, same_batch)


def _pair_by_key(
    con: duckdb.DuckDBPyConnection, base: Sequence[str], cand: Sequence[str], same_batch: bool
) -> Pairing:
    sides = arrow.table(
        {
            "run_id": arrow.strings([*base, *cand]),
            "side": arrow.strings(["baseline"] * len(base) + ["candidate"] * len(cand)),
        }
    )
    con.register("pair_sides", sides)
    try:
        rows = con.execute(load_sql("pairs_by_side"), {"same_batch": same_batch}).fetchall()
    finally:
        con.unregister("pair_sides")
    return pairing_from_rows(rows)


def pairing_from_rows(rows: Sequence[tuple[Any, ...]]) -> Pairing:
    """The pairs (with unique, readable ids) and unpaired runs of ``pairs_by_side.sql``'s rows
    (suite, task_id, batch, trial, baseline run id, candidate run id), in that order; also
    what the Spark engine's pairing gives (reportgen.spark.pairing)."""
    result = Pairing()
    seen: dict[str, int] = {}
    used: set[str] = set()
    for suite, task_id, batch, trial, b, c in rows:
        if b is None or c is None:
            side, run_id = ("candidate", c) if b is None else ("baseline", b)
            result.unpaired.append(Unpaired(side, run_id, suite, task_id, batch, trial))
            continue
        base = pair_id(suite, task_id, batch, trial)
        n = seen[base] = seen.get(base, 0) + 1
        pid = base if n == 1 else f"{base}~{n}"
        while pid in used:  # ids may hold "/", "#" or "~" themselves: keep pair ids unique
            n = seen[base] = n + 1
            pid = f"{base}~{n}"
        used.add(pid)
        result.pairs.append(Pair(pid, task_id, b, c))
    return result
