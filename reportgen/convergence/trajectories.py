"""Trajectory convergence of every group: do the runs take the same path of steps?

For the runs of a group whose traces are in the archive: TDI of every pair (the same
``1 - 2 * LCS / (|A| + |B|)`` as the divergence metrics, steps matched by signature), the mean
pairwise TDI, the medoid run (least total TDI to the others; ties go to the earlier run) and
the number of distinct paths (distinct signature sequences). Runs without a trace have no
path and are left out; a group needs two runs with paths to get a trajectory result.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import numpy as np
import pyarrow as pa

from reportgen._sql import load_sql
from reportgen.archive.arrow import numbers, to_numpy
from reportgen.archive.connection import define_step_hashes
from reportgen.convergence.members import Members
from reportgen.divergence import formulas
from reportgen.divergence.udfs import register_udfs

__all__ = ["TrajectoryConvergence", "member_table", "trajectory_convergence"]

MEMBERS_VIEW = "rg_convergence_members"
PATHS_VIEW = "rg_convergence_paths"


@dataclass(frozen=True, slots=True)
class TrajectoryConvergence:
    """Path agreement of one group; ``similarity`` is 1 - TDI (None: a run's path unknown)."""

    runs_with_path: int
    mean_tdi: float
    medoid: int
    medoid_run_id: str | None
    distinct_paths: int
    similarity: list[list[float | None]]


def member_table(members: Members) -> pa.Table:
    """(gid, i, run_id) of every member row, the view the convergence SQL files read."""
    sizes = members.sizes
    gid = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    i = np.arange(int(members.offsets[-1]), dtype=np.int64) - members.offsets[gid]
    return pa.Table.from_arrays(
        [numbers(gid, pa.int64()), numbers(i, pa.int64()), members.table.column("run_id")],
        names=["gid", "i", "run_id"],
    )


def _pairs(con: duckdb.DuckDBPyConnection, paths: pa.Table) -> pa.Table:
    """LCS of every pair of known paths (sql/convergence_trajectory_pairs.sql)."""
    register_udfs(con)
    con.register(PATHS_VIEW, paths)
    try:
        return con.sql(load_sql("convergence_trajectory_pairs")).to_arrow_table()
    finally:
        con.unregister(PATHS_VIEW)


def trajectory_convergence(
    con: duckdb.DuckDBPyConnection, members: Members
) -> dict[int, TrajectoryConvergence]:
    """Trajectory convergence per group number, for groups with at least two known paths."""
    define_step_hashes(con)
    con.register(MEMBERS_VIEW, member_table(members))
    try:
        paths = con.sql(load_sql("convergence_paths")).to_arrow_table()
    finally:
        con.unregister(MEMBERS_VIEW)
    pairs = _pairs(con, paths.select(["gid", "i", "sigs"]))
    gid = to_numpy(pairs.column("gid")).astype(np.int64)
    total = to_numpy(pairs.column("len_i")).astype(np.int64) + to_numpy(pairs.column("len_j"))
    lcs = to_numpy(pairs.column("lcs")).astype(np.int64)
    tdi = formulas.tdi(lcs, total)
    by_group: dict[int, list[tuple[int, int, float]]] = {}
    for g, i, j, t in zip(
        gid.tolist(),
        pairs.column("i").to_pylist(),
        pairs.column("j").to_pylist(),
        tdi.tolist(),
        strict=True,
    ):
        by_group.setdefault(g, []).append((i, j, t))
    path_of: dict[int, dict[int, int]] = {}
    for g, i, p in zip(
        *(paths.column(c).to_pylist() for c in ("gid", "i", "path_id")), strict=True
    ):
        path_of.setdefault(g, {})[i] = p
    run_ids = members.table.column("run_id").to_pylist()
    out: dict[int, TrajectoryConvergence] = {}
    for g, group_pairs in by_group.items():
        n = int(members.sizes[g])
        out[g] = _one_group(n, group_pairs, path_of[g], run_ids[int(members.offsets[g]) :][:n])
    return out


def _one_group(
    n: int, pairs: list[tuple[int, int, float]], path_of: dict[int, int], run_ids: list[str | None]
) -> TrajectoryConvergence:
    """Assemble one group's result from its pair TDIs (pairs in (i, j) order)."""
    similarity: list[list[float | None]] = [[None] * n for _ in range(n)]
    totals = dict.fromkeys(path_of, 0.0)
    for i, j, t in pairs:
        similarity[i][j] = similarity[j][i] = 1.0 - t
        totals[i] += t
        totals[j] += t
    for i in path_of:
        similarity[i][i] = 1.0
    medoid = min(totals, key=lambda i: (totals[i], i))
    return TrajectoryConvergence(
        runs_with_path=len(path_of),
        mean_tdi=sum(t for _, _, t in pairs) / len(pairs),
        medoid=medoid,
        medoid_run_id=run_ids[medoid],
        distinct_paths=len(set(path_of.values())),
        similarity=similarity,
    )
