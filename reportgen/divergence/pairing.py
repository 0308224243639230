"""Decide which baseline run is compared with which candidate run; list what has no partner,
and why; say why nothing paired when nothing did."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import duckdb

from reportgen._sql import load_sql
from reportgen.archive import arrow
from reportgen.archive.connection import first_row
from reportgen.divergence.metrics import Pair
from reportgen.errors import InputError, UsageError

PAIR_KEYS = ("suite", "task", "trial")
"""What may pair a baseline run with a candidate run (``--pair-by``); ``task`` always does.
Nights (batches) are paired apart: each night with itself, unless a batch is pinned."""

LABEL_KEYS = PAIR_KEYS
"""The keys two labels of one archive pair by by default: the same task of the same suite and
trial (the benchmark's own task ids may repeat across suites)."""


def parse_pair_by(text: str | None) -> tuple[str, ...] | None:
    """``--pair-by`` as keys in PAIR_KEYS order (``"trial, task"`` -> ``("task", "trial")``);
    None when not given. A usage error unless a comma-separated subset of PAIR_KEYS that
    holds ``task``."""
    if text is None:
        return None
    given = [k.strip() for k in text.split(",") if k.strip()]
    unknown = [k for k in given if k not in PAIR_KEYS]
    if unknown or "task" not in given:
        raise UsageError(
            f"--pair-by: expected task plus any of suite, trial, comma-separated (e.g. task,trial);"
            f" got {text!r}"
        )
    return tuple(k for k in PAIR_KEYS if k in given)


@dataclass(frozen=True)
class Unpaired:
    """A run with no partner on the other side, and why (``reason``)."""

    side: str
    run_id: str
    suite: str
    task_id: str
    batch: str
    trial: int
    reason: str = ""


@dataclass
class Pairing:
    """Pairs to compare, the runs left over (listed, never dropped silently) and the keys that
    paired them (``keys``, in PAIR_KEYS order; ``()`` when two single runs were paired as
    they are)."""

    pairs: list[Pair] = field(default_factory=list)
    unpaired: list[Unpaired] = field(default_factory=list)
    keys: tuple[str, ...] = LABEL_KEYS


def pair_id(suite: str, task_id: str, batch: str, trial: int) -> str:
    """A stable, readable id for one pair: suite/task/batch, plus #trial for repeats."""
    return f"{suite}/{task_id}/{batch}" + (f"#{trial}" if trial else "")


def pair_runs(
    con: duckdb.DuckDBPyConnection,
    baseline_run_ids: Sequence[str],
    candidate_run_ids: Sequence[str],
    *,
    same_batch: bool = True,
    keys: Sequence[str] | None = None,
) -> Pairing:
    """Pair two sets of archived runs by ``keys`` (PAIR_KEYS; default: the task, the trial
    where both sides hold repeated trials and the suite where both hold the same suites), and
    by batch when ``same_batch``. Two explicit inputs are two sides: their labels never
    matter, and their suites only when both sides hold the same ones.

    Two single runs always pair with each other, whatever their tasks, unless ``keys`` is
    given: that is what a user comparing two trace files means."""
    if keys is None and len(baseline_run_ids) == 1 and len(candidate_run_ids) == 1:
        (base,), (cand,) = baseline_run_ids, candidate_run_ids
        row = first_row(
            con, "SELECT suite, task_id, batch, trial FROM runs WHERE run_id = ?", [cand]
        )
        suite, task, batch, trial = row if row else ("?", "?", "?", 0)
        return Pairing([Pair(pair_id(suite, task, batch, trial), task, base, cand)], keys=())
    if keys is None:
        keys = _default_keys(con, baseline_run_ids, candidate_run_ids)
    return _pair_by_key(con, baseline_run_ids, candidate_run_ids, same_batch, tuple(keys))


def _default_keys(
    con: duckdb.DuckDBPyConnection, base: Sequence[str], cand: Sequence[str]
) -> tuple[str, ...]:
    """What two explicit inputs pair by: the task; the trial when both sides hold repeated
    trials; the suite when both sides hold the same suites (two result files of one benchmark
    whose domains reuse task ids), never when they differ (two formats, two suite names)."""
    row = first_row(con, load_sql("sides_have_trials"), {"b": list(base), "c": list(cand)})
    trials, same_suites = (bool(row[0]), bool(row[1])) if row else (False, False)
    wanted = {"task"} | ({"trial"} if trials else set()) | ({"suite"} if same_suites else set())
    return tuple(k for k in PAIR_KEYS if k in wanted)


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
    keys: Sequence[str] = LABEL_KEYS,
) -> Pairing:
    """Pair archived runs of two labels by ``keys`` (default: suite, task and trial), night by
    night unless a batch is pinned on either side (then those two nights are compared with
    each other)."""
    base = runs_of_label(con, baseline_label, suite=suite, batch=baseline_batch)
    cand = runs_of_label(con, candidate_label, suite=suite, batch=candidate_batch)
    same_batch = baseline_batch is None and candidate_batch is None
    return _pair_by_key(con, base, cand, same_batch, tuple(keys))


def _pair_by_key(
    con: duckdb.DuckDBPyConnection,
    base: Sequence[str],
    cand: Sequence[str],
    same_batch: bool,
    keys: tuple[str, ...],
) -> Pairing:
    sides = arrow.table(
        {
            "run_id": arrow.strings([*base, *cand]),
            "side": arrow.strings(["baseline"] * len(base) + ["candidate"] * len(cand)),
        }
    )
    params = {"same_batch": same_batch, "by_suite": "suite" in keys, "by_trial": "trial" in keys}
    con.register("pair_sides", sides)
    try:
        rows = con.execute(load_sql("pairs_by_side"), params).fetchall()
    finally:
        con.unregister("pair_sides")
    return pairing_from_rows(rows, keys, same_batch)


def pairing_from_rows(
    rows: Sequence[tuple[Any, ...]], keys: tuple[str, ...] = LABEL_KEYS, same_batch: bool = True
) -> Pairing:
    """The pairs (with unique, readable ids) and unpaired runs (with the reason each has no
    partner) of ``pairs_by_side.sql``'s rows (suite, task_id, batch, trial, baseline run id,
    candidate run id), in that order, paired by ``keys``; also what the Spark engine's
    pairing gives (reportgen.spark.pairing)."""
    result = Pairing(keys=keys)
    seen: dict[str, int] = {}
    used: set[str] = set()
    held: dict[str, dict[str, set[tuple[Any, ...]]]] = {"baseline": {}, "candidate": {}}
    for suite, task_id, batch, trial, b, c in rows:
        for side, run in (("baseline", b), ("candidate", c)):
            if run is not None:
                for name, key in _reason_keys(suite, task_id, batch, trial, keys, same_batch):
                    held[side].setdefault(name, set()).add(key)
    for suite, task_id, batch, trial, b, c in rows:
        if b is None or c is None:
            side, other, run_id = (
                ("candidate", "baseline", c) if b is None else ("baseline", "candidate", b)
            )
            reason = _why_unpaired(
                held[other], suite, task_id, batch, trial, keys, same_batch, other
            )
            result.unpaired.append(Unpaired(side, run_id, suite, task_id, batch, trial, reason))
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


def _reason_keys(
    suite: str, task: str, batch: str, trial: int, keys: tuple[str, ...], same_batch: bool
) -> list[tuple[str, tuple[Any, ...]]]:
    """The ever finer keys of a run that tell why it found no partner: its task, then with
    its suite, trial and batch where those pair."""
    found = [("task", (task,))]
    key: tuple[Any, ...] = (task,)
    if "suite" in keys:
        key = (*key, suite)
        found.append(("suite", key))
    if "trial" in keys:
        key = (*key, trial)
        found.append(("trial", key))
    if same_batch:
        key = (*key, batch)
        found.append(("batch", key))
    return found


def _why_unpaired(
    other: dict[str, set[tuple[Any, ...]]],
    suite: str,
    task: str,
    batch: str,
    trial: int,
    keys: tuple[str, ...],
    same_batch: bool,
    side: str,
) -> str:
    """Why a run has no partner on ``side``: the first of its keys the other side lacks."""
    words = {
        "task": f"task {task}",
        "suite": f"task {task} in suite {suite}",
        "trial": f"trial {trial} of task {task}",
        "batch": f"run of task {task} in batch {batch}",
    }
    for name, key in _reason_keys(suite, task, batch, trial, keys, same_batch):
        if key not in other.get(name, set()):
            return f"the {side} has no {words[name]}"
    return f"the {side} has fewer runs of task {task} with the same keys"


class NothingPaired(InputError):
    """A comparison that paired no run: an error (exit 1), never a pass."""


def nothing_paired(
    con: duckdb.DuckDBPyConnection,
    where: str,
    base: Sequence[str],
    cand: Sequence[str],
    keys: Sequence[str],
) -> NothingPaired:
    """The error for a comparison that paired nothing, in one line: the tasks and suites of
    each side and the ids they share, e.g. "no task in common: baseline has 16 tasks of suite
    tau2-bench/airline, candidate 16 of suite ...; 0 shared ids (first baseline ids: ...)"."""
    row = first_row(con, load_sql("sides_overview"), {"b": list(base), "c": list(cand)})
    b_tasks, b_suites, b_first, c_tasks, c_suites, c_first, shared, shared_first = (
        row if row else (0, [], [], 0, [], [], 0, [])
    )
    if not base or not cand:
        empty = "baseline" if not base else "candidate"
        return NothingPaired(where, f"nothing to compare: the {empty} holds no runs")
    what = "no task in common" if not shared else f"no run pairs by {', '.join(keys)}"
    said = (
        f"{what}: baseline has {b_tasks} task(s) of {_suites(b_suites)}, "
        f"candidate {c_tasks} of {_suites(c_suites)}; {shared} shared task id(s)"
    )
    if shared:
        said += f" (e.g. {', '.join(shared_first)})"
        if len(keys) > 1:
            said += "; pair by fewer keys, e.g. --pair-by task"
    else:
        said += f" (first baseline ids: {', '.join(b_first)}; first candidate ids: {', '.join(c_first)})"
    return NothingPaired(where, said)


def _suites(suites: list[str]) -> str:
    if len(suites) == 1:
        return f"suite {suites[0]}"
    return f"{len(suites)} suites ({', '.join(suites[:3])}{', ...' if len(suites) > 3 else ''})"
