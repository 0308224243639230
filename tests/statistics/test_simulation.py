"""Does the verdict tell a regression from noise? Simulated comparisons, all at once (the
methods are vectorised over comparisons): A/A runs rarely say ``regression``; a real 25-point
drop in success almost always does. 40 tasks x 3 trials, as a small nightly suite. Success
is judged as the pipeline judges it: one of two primary metrics, its interval at
``1 - 0.05 / 2`` and its verdict read from that interval."""

from __future__ import annotations

import numpy as np

from reportgen.statistics import methods

COMPARISONS, TASKS, TRIALS = 200, 40, 3
PRIMARY_ALPHA = 0.05 / 2  # Bonferroni over the two primary metrics, success and reward


def _regression_rate(drop: float, seed: int) -> float:
    rng = np.random.default_rng(seed)
    p_task = rng.uniform(0.5, 0.98, size=(COMPARISONS, TASKS, 1))  # tasks differ in difficulty
    base = rng.random((COMPARISONS, TASKS, TRIALS)) < p_task
    cand = rng.random((COMPARISONS, TASKS, TRIALS)) < np.clip(p_task - drop, 0, 1)
    diffs = cand.mean(axis=-1) - base.mean(axis=-1)  # per task: the mean over its trials
    est = methods.paired_t(diffs, PRIMARY_ALPHA)
    verdict = methods.verdicts(est, min_effect=0.05, worse_when="lower")
    return float(np.mean(verdict == "regression"))


def test_a_over_a_rarely_flags_a_regression() -> None:
    rate = _regression_rate(0.0, seed=1)
    assert rate <= 0.05 + 0.03, rate


def test_a_25_point_drop_is_flagged() -> None:
    rate = _regression_rate(0.25, seed=2)
    assert rate >= 0.95, rate
