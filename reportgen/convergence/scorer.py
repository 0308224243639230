"""How alike are N outputs of the same agent task? Lexical scores, in [0, 1].

The numbers match PyPI ``agent-convergence-scorer`` 0.3.0 bit for bit (same
fields, same float operations in the same order, same rounding), so reports and
CI gates built on either tool agree. Tokens are whitespace-separated and
lowercased: this measures wording, not meaning.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

__all__ = [
    "convergence_score",
    "divergence_point",
    "exact_match_rate",
    "score_runs",
    "token_overlap",
    "tokenize",
]

_DIGITS = 3
_W_EXACT = 0.5
_W_OVERLAP = 0.3
_W_PREFIX = 0.2


def tokenize(text: str) -> list[str]:
    """Lowercase ``text`` and split it on any Unicode whitespace."""
    return text.lower().split()


def _check(runs: Sequence[str]) -> None:
    """Refuse an empty collection: zero outputs say nothing about agreement."""
    if len(runs) == 0:
        raise ValueError("cannot score convergence of zero runs; give at least one output")


def _jaccard(a: set[str], b: set[str]) -> float:
    """Share of distinct tokens two outputs have in common; two empty sets count as 1.0."""
    union = len(a | b)
    if union == 0:
        return 1.0
    return len(a & b) / union


def exact_match_rate(runs: Sequence[str]) -> float:
    """Share of unordered pairs of runs that are byte-identical (1.0 for a single run)."""
    _check(runs)
    n = len(runs)
    if n == 1:
        return 1.0
    same = 0
    for count in Counter(runs).values():
        same += count * (count - 1) // 2
    return round(same / (n * (n - 1) // 2), _DIGITS)


def _overlap_from_sets(sets: list[set[str]]) -> dict[str, float]:
    """Mean Jaccard over all pairs (in i<j order) plus the Jaccard of the first two runs."""
    if len(sets) == 1:
        return {"avg_overlap": 1.0, "jaccard": 1.0}
    values = [_jaccard(sets[i], sets[j]) for i in range(len(sets)) for j in range(i + 1, len(sets))]
    # Summed left to right like the builtin does, so the float is the reference's.
    mean = sum(values) / len(values)
    return {"avg_overlap": round(mean, _DIGITS), "jaccard": round(values[0], _DIGITS)}


def token_overlap(runs: Sequence[str]) -> dict[str, float]:
    """Token-set overlap: ``avg_overlap`` over every pair and ``jaccard`` of runs 0 and 1."""
    _check(runs)
    return _overlap_from_sets([set(tokenize(r)) for r in runs])


def _divergence_from_tokens(tokens: list[list[str]]) -> dict[str, Any]:
    """First position (within the shortest run) where the runs' tokens disagree."""
    if len(tokens) == 1:
        return {"diverges_at_token": None, "token_position": 0, "num_tokens_to_divergence": 0}
    shortest = min(len(t) for t in tokens)
    first = tokens[0]
    position = shortest
    token: str | None = None
    for pos in range(shortest):
        if any(other[pos] != first[pos] for other in tokens[1:]):
            position, token = pos, first[pos]
            break
    return {
        "diverges_at_token": token,
        "token_position": position,
        "num_tokens_to_divergence": position,
    }


def divergence_point(runs: Sequence[str]) -> dict[str, Any]:
    """Where the runs first disagree, token-wise; ``None`` token if one run is a prefix."""
    _check(runs)
    return _divergence_from_tokens([tokenize(r) for r in runs])


def _composite(exact: float, overlap: float, position: int, longest: int) -> float:
    """Weighted blend 0.5 exact + 0.3 overlap + 0.2 shared-prefix share, rounded."""
    prefix = min(position / longest, 1.0) if longest > 0 else 1.0
    return round(_W_EXACT * exact + _W_OVERLAP * overlap + _W_PREFIX * prefix, _DIGITS)


def convergence_score(runs: Sequence[str]) -> dict[str, float]:
    """Composite score as ``{"convergence_score": x}``; 1.0 means the runs agree fully."""
    return {"convergence_score": score_runs(runs)["convergence_score"]}


def score_runs(runs: Sequence[str]) -> dict[str, Any]:
    """All metrics at once, in the JSON shape the CLI prints (tokenises each run once)."""
    _check(runs)
    tokens = [tokenize(r) for r in runs]
    exact = exact_match_rate(runs)
    overlap = _overlap_from_sets([set(t) for t in tokens])
    divergence = _divergence_from_tokens(tokens)
    if len(runs) == 1:
        score = 1.0
    else:
        longest = max(len(t) for t in tokens)
        score = _composite(
            exact, overlap["avg_overlap"], divergence["num_tokens_to_divergence"], longest
        )
    return {
        "num_runs": len(runs),
        "exact_match_rate": exact,
        "token_metrics": overlap,
        "convergence_score": score,
        "divergence_point": divergence,
    }
