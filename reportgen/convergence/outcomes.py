"""Outcome agreement of N runs: how many passed, pass@k and pass^k for k = 1..n.

With n runs of known outcome of which c passed (unbiased estimators, Chen et al. 2021 and
tau-bench): pass@k = 1 - C(n-c, k) / C(n, k), the chance that at least one of k runs drawn
without replacement passes; pass^k = C(c, k) / C(n, k), the chance that all k pass. A run
passes when ``success`` is true; when ``success`` is not given, when ``reward`` is at least
``reward_threshold`` (default 1.0, full reward). Runs with neither are left out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["OutcomeAgreement", "outcome_agreement", "pass_at_k", "pass_hat_k", "passed"]


@dataclass(frozen=True, slots=True)
class OutcomeAgreement:
    """Outcomes of one group's runs; list index k - 1 holds the value for k."""

    runs_with_outcome: int
    passes: int
    pass_at_k: list[float]
    pass_hat_k: list[float]
    mean_reward: float | None


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k: 1 - C(n-c, k) / C(n, k), for 1 <= k <= n and 0 <= c <= n."""
    _check(n, c, k)
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k: C(c, k) / C(n, k), the chance that k runs drawn without replacement all pass."""
    _check(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


def _check(n: int, c: int, k: int) -> None:
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n (n={n}, c={c}, k={k})")


def passed(success: bool | None, reward: float | None, reward_threshold: float) -> bool | None:
    """Whether a run passed; None when the run gives neither success nor reward."""
    if success is not None:
        return success
    if reward is not None:
        return reward >= reward_threshold
    return None


def outcome_agreement(
    outcomes: Sequence[tuple[bool | None, float | None]], reward_threshold: float = 1.0
) -> OutcomeAgreement | None:
    """pass@k and pass^k of one group from (success, reward) per run; None if none is known."""
    known = [p for s, r in outcomes if (p := passed(s, r, reward_threshold)) is not None]
    if not known:
        return None
    n, c = len(known), sum(known)
    rewards = [r for _, r in outcomes if r is not None]
    return OutcomeAgreement(
        runs_with_outcome=n,
        passes=c,
        pass_at_k=[pass_at_k(n, c, k) for k in range(1, n + 1)],
        pass_hat_k=[pass_hat_k(n, c, k) for k in range(1, n + 1)],
        mean_reward=sum(rewards) / len(rewards) if rewards else None,
    )
