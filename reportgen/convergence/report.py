"""Everything reportgen knows about the convergence of each group, as JSON-able dataclasses.

``convergence_report`` reads the groups once and computes, for all of them together: the
scorer's numbers (:mod:`.vectorised`), the pairwise output Jaccard matrix, the trajectory
convergence (:mod:`.trajectories`), outlier runs (:mod:`.outliers`) and outcome agreement
(:mod:`.outcomes`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import duckdb
import numpy as np

from reportgen._sql import load_sql
from reportgen.convergence.members import GroupKey, Members, read_members
from reportgen.convergence.outcomes import OutcomeAgreement, outcome_agreement
from reportgen.convergence.outliers import OUTLIER_FLOOR, OUTLIER_K, Outlier, find_outliers
from reportgen.convergence.trajectories import (
    MEMBERS_VIEW,
    TrajectoryConvergence,
    member_table,
    trajectory_convergence,
)
from reportgen.convergence.vectorised import GroupScores, score_groups

__all__ = ["GroupConvergence", "build_report", "convergence_report"]


@dataclass(frozen=True, slots=True)
class GroupConvergence:
    """Convergence of one (suite, label, task_id, batch) group of N runs (run i = index i)."""

    suite: str
    label: str
    task_id: str
    batch: str
    num_runs: int
    run_ids: list[str | None]
    trials: list[int]
    exact_match_rate: float
    avg_overlap: float
    jaccard: float
    convergence_score: float
    divergence_token: str | None
    divergence_position: int
    output_similarity: list[list[float]]  # token-set Jaccard of runs i and j (1.0 on the diagonal)
    output_medoid: int  # the run with the highest total Jaccard to the others
    trajectory: TrajectoryConvergence | None
    outliers: list[Outlier]
    outcomes: OutcomeAgreement | None

    @property
    def key(self) -> GroupKey:
        """(suite, label, task_id, batch)."""
        return (self.suite, self.label, self.task_id, self.batch)

    def scores(self) -> dict[str, Any]:
        """The scorer's JSON for this group, exactly as ``score_runs`` gives it."""
        return {
            "num_runs": self.num_runs,
            "exact_match_rate": self.exact_match_rate,
            "token_metrics": {"avg_overlap": self.avg_overlap, "jaccard": self.jaccard},
            "convergence_score": self.convergence_score,
            "divergence_point": {
                "diverges_at_token": self.divergence_token,
                "token_position": self.divergence_position,
                "num_tokens_to_divergence": self.divergence_position,
            },
        }

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict (nested dataclasses become dicts)."""
        return dataclasses.asdict(self)


def _jaccard_matrix(scores: GroupScores, g: int) -> list[list[float]]:
    """The n x n pairwise Jaccard matrix of group g (unrounded)."""
    n = int(scores.sizes[g])
    matrix = [[1.0] * n for _ in range(n)]
    lo, hi = int(scores.pairs.offsets[g]), int(scores.pairs.offsets[g + 1])
    for i, j, v in zip(
        scores.pairs.i[lo:hi].tolist(),
        scores.pairs.j[lo:hi].tolist(),
        scores.pair_jaccard[lo:hi].tolist(),
        strict=True,
    ):
        matrix[i][j] = matrix[j][i] = v
    return matrix


def _outcomes(con: duckdb.DuckDBPyConnection, members: Members) -> dict[int, list[Any]]:
    """(success, reward) of each group's runs that `runs` knows, per group number."""
    con.register(MEMBERS_VIEW, member_table(members))
    try:
        rows = con.sql(load_sql("convergence_outcomes")).fetchall()
    finally:
        con.unregister(MEMBERS_VIEW)
    out: dict[int, list[Any]] = {}
    for gid, _i, success, reward in rows:
        out.setdefault(int(gid), []).append((success, reward))
    return out


def build_report(
    con: duckdb.DuckDBPyConnection,
    members: Members,
    *,
    reward_threshold: float = 1.0,
    outlier_k: float = OUTLIER_K,
    outlier_floor: float = OUTLIER_FLOOR,
) -> list[GroupConvergence]:
    """One GroupConvergence per group of ``members``, in group order."""
    scores = score_groups(members.table.column("output"), members.sizes)
    paths = trajectory_convergence(con, members)
    outcomes = _outcomes(con, members)
    run_ids = members.table.column("run_id").to_pylist()
    trials = members.table.column("trial").to_pylist()
    result: list[GroupConvergence] = []
    for g, (key, rec) in enumerate(zip(members.keys(), scores.records(), strict=True)):
        lo, hi = int(members.offsets[g]), int(members.offsets[g + 1])
        ids = run_ids[lo:hi]
        matrix = _jaccard_matrix(scores, g)
        path = paths.get(g)
        flagged = find_outliers(matrix, "output", ids, k=outlier_k, floor=outlier_floor)
        if path is not None:
            flagged += find_outliers(
                path.similarity, "trajectory", ids, k=outlier_k, floor=outlier_floor
            )
        totals = [sum(row) for row in matrix]
        result.append(
            GroupConvergence(
                *key,
                num_runs=rec["num_runs"],
                run_ids=ids,
                trials=trials[lo:hi],
                exact_match_rate=rec["exact_match_rate"],
                avg_overlap=rec["token_metrics"]["avg_overlap"],
                jaccard=rec["token_metrics"]["jaccard"],
                convergence_score=rec["convergence_score"],
                divergence_token=rec["divergence_point"]["diverges_at_token"],
                divergence_position=rec["divergence_point"]["token_position"],
                output_similarity=matrix,
                output_medoid=int(np.argmax(totals)),
                trajectory=path,
                outliers=flagged,
                outcomes=outcome_agreement(outcomes.get(g, []), reward_threshold),
            )
        )
    return result


def convergence_report(
    con: duckdb.DuckDBPyConnection,
    *,
    suite: str | None = None,
    label: str | None = None,
    batch: str | None = None,
    reward_threshold: float = 1.0,
) -> list[GroupConvergence]:
    """Convergence of every group (optionally of one suite, label and/or batch), all at once."""
    members = read_members(con, suite=suite, label=label, batch=batch)
    return build_report(con, members, reward_threshold=reward_threshold)
