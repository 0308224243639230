"""The runs of every convergence group, read from the archive in one query.

A group is (suite, label, task_id, batch) with at least two non-NULL outputs in ``outputs``.
Within a group, runs are ordered by trial, then run_id, then output text; run 0 is the first.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from reportgen._sql import load_sql
from reportgen.archive.arrow import numbers, to_numpy

__all__ = ["GROUP_KEYS", "GroupKey", "Members", "read_members"]

GROUP_KEYS = ("suite", "label", "task_id", "batch")
GroupKey = tuple[str, str, str, str]
I64 = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class Members:
    """Rows (one per output) of all groups, group after group; group g is rows
    ``offsets[g]:offsets[g + 1]``. ``table`` has the group keys, trial, run_id and output."""

    table: pa.Table
    offsets: I64

    @property
    def sizes(self) -> I64:
        """Runs per group."""
        return np.diff(self.offsets)

    def keys(self) -> list[GroupKey]:
        """The (suite, label, task_id, batch) of every group, in order."""
        first = self.table.select(list(GROUP_KEYS)).take(numbers(self.offsets[:-1], pa.int64()))
        cols = [first.column(k).to_pylist() for k in GROUP_KEYS]
        return list(zip(*cols, strict=True))


def _same_as_previous(table: pa.Table, columns: tuple[str, ...]) -> npt.NDArray[np.bool_]:
    """Row k equals row k - 1 on every column (NULL equals NULL); row 0 never does."""
    same = np.ones(max(table.num_rows - 1, 0), dtype=bool)
    for name in columns:
        col = table.column(name)
        a, b = col.slice(1), col.slice(0, table.num_rows - 1)
        both_null = pc.and_(pc.is_null(a), pc.is_null(b))
        same &= to_numpy(pc.or_kleene(pc.equal(a, b), both_null), fill=False)
    return np.concatenate(([False], same)) if table.num_rows else np.zeros(0, dtype=bool)


def _in_order(table: pa.Table, columns: tuple[str, ...]) -> bool:
    """Whether rows are sorted ascending by ``columns`` (NULLs last), checked row by row."""
    if table.num_rows < 2:
        return True
    undecided = np.ones(table.num_rows - 1, dtype=bool)  # rows equal so far to the previous
    for name in columns:
        col = table.column(name)
        prev, cur = col.slice(0, table.num_rows - 1), col.slice(1)
        prev_null, cur_null = pc.is_null(prev), pc.is_null(cur)
        before_null = pc.and_(pc.invert(prev_null), cur_null)  # a value before NULL
        greater = to_numpy(pc.or_kleene(pc.greater(prev, cur), before_null), fill=False)
        if (undecided & greater).any():
            return False
        undecided &= to_numpy(
            pc.or_kleene(pc.equal(prev, cur), pc.and_(prev_null, cur_null)), fill=False
        )
    return True


def ordered(table: pa.Table) -> pa.Table:
    """Rows in group order, then trial, then run_id (NULLs last); ties stay for _break_ties."""
    keys = (*GROUP_KEYS, "trial", "run_id")
    if _in_order(table, keys):
        return table
    return table.take(pc.sort_indices(table, sort_keys=[(k, "ascending") for k in keys]))


def _break_ties(table: pa.Table, tied: npt.NDArray[np.bool_]) -> pa.Table:
    """Order rows that share group, trial and run_id by output text (rare: Python sort)."""
    if not tied.any():
        return table
    order = np.arange(table.num_rows)
    outputs = table.column("output")
    starts = np.flatnonzero(~tied)
    ends = np.append(starts[1:], table.num_rows)
    for s, e in zip(starts.tolist(), ends.tolist(), strict=True):
        if e - s > 1:
            texts = outputs.slice(s, e - s).to_pylist()
            order[s:e] = s + np.array(sorted(range(e - s), key=texts.__getitem__))
    return table.take(numbers(order, pa.int64()))


def group_rows(table: pa.Table, min_size: int = 2) -> Members:
    """Split rows ordered by :func:`ordered` into groups; keep groups of ``min_size``+ outputs."""
    new_group = ~_same_as_previous(table, GROUP_KEYS)
    table = _break_ties(table, _same_as_previous(table, (*GROUP_KEYS, "trial", "run_id")))
    starts = np.flatnonzero(new_group)
    offsets = np.append(starts, table.num_rows).astype(np.int64)
    sizes = np.diff(offsets)
    if (sizes < min_size).any():
        keep = np.repeat(sizes >= min_size, sizes)
        table = table.filter(numbers(keep, pa.bool_()))
        sizes = sizes[sizes >= min_size]
        offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
    return Members(table, offsets)


def read_members(
    con: duckdb.DuckDBPyConnection,
    *,
    suite: str | None = None,
    label: str | None = None,
    batch: str | None = None,
) -> Members:
    """Every group's outputs from the archive (``sql/convergence_members.sql``)."""
    params = {"suite": suite, "label": label, "batch": batch}
    table = con.sql(load_sql("convergence_members"), params=params).to_arrow_table()
    return group_rows(ordered(table))
