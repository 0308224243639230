"""Convergence of N outputs of one task, scored like agent-convergence-scorer 0.3.0."""

from reportgen.convergence.scorer import (
    convergence_score,
    divergence_point,
    exact_match_rate,
    score_runs,
    token_overlap,
    tokenize,
)

__all__ = [
    "convergence_score",
    "divergence_point",
    "exact_match_rate",
    "score_runs",
    "token_overlap",
    "tokenize",
]
