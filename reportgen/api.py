"""The Python API: compare runs and assert that nothing regressed, from tests or scripts.

from reportgen.api import compare, assert_no_regressions
assert_no_regressions(compare("traces/baseline.json", "traces/candidate.json"), max_loops=0)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reportgen.divergence.compare import Comparison
from reportgen.evaluation import Judging, evaluate, evaluate_labels, judged, violations_in_words
from reportgen.gating import Resolved, Threshold, find_config, pair_gates, resolve
from reportgen.gating.metrics import label_gates
from reportgen.gating.thresholds import assertion_names

__all__ = [
    "Comparison",
    "Judging",
    "RegressionError",
    "assert_no_regressions",
    "compare",
    "compare_archive",
    "evaluate",
]


def assertion_keywords() -> dict[str, str]:
    """assert_no_regressions keyword -> gate name, for every registered gate: its one spelling
    (``max_cost_delta``, as in [cli] and on the command line) and AgentDiff's where it has one
    (``max_cost_increase_pct``); both are also the keys of a config's [assertions] section."""
    names = {name: gate.name for gate in pair_gates() for name in assertion_names(gate)}
    return names | {gate.config_key: gate.name for gate in label_gates()}


class RegressionError(AssertionError):
    """A gate failed; the message names each pair, metric, value and threshold."""


def compare(
    baseline: str | Path | list[str | Path], candidate: str | Path | list[str | Path]
) -> Comparison:
    """Compare trace files or folders (no archive needed); no thresholds applied yet. The
    label-level statistics (``summary.metrics``, ``summary.tasks``) come with it."""
    from reportgen.evaluation import evaluate_paths

    return evaluate_paths(_as_list(baseline), _as_list(candidate))


def _as_list(paths: str | Path | list[str | Path]) -> list[str | Path]:
    return list(paths) if isinstance(paths, list) else [paths]


def compare_archive(
    db: str | Path,
    baseline_label: str = "baseline",
    candidate_label: str = "candidate",
    *,
    batch: str | None = None,
) -> Comparison:
    """Compare two labels of an archive, night by night (or one ``batch``), with the
    label-level statistics."""
    from reportgen.archive import connect

    con = connect(db, read_only=True)
    try:
        return evaluate_labels(
            con, baseline_label, candidate_label, baseline_batch=batch, candidate_batch=batch
        )
    finally:
        con.close()


def thresholds_for(config: Path | bool | None = True, **keywords: float | None) -> list[Threshold]:
    """Thresholds from keyword arguments (named like the [assertions] keys), over a config
    file's [assertions] section (``True``: the nearest reportgen.toml / pyproject.toml)."""
    return list(_resolve(config, keywords).thresholds)


def _resolve(
    config: Path | bool | None,
    keywords: Mapping[str, float | None],
    *,
    fail_on_regression: bool | None = None,
    alpha: float | None = None,
    min_effect: Mapping[str, float] | None = None,
) -> Resolved:
    """What assert_no_regressions judges with (:func:`reportgen.gating.resolve`, for
    ``assertions``): keywords over the config's [assertions] section; a threshold given by
    keyword says so in its source (``max_cost_increase_pct=``)."""
    names = assertion_keywords()
    unknown = set(keywords) - set(names)
    if unknown:
        raise TypeError(
            f"unexpected keyword argument(s): {', '.join(sorted(unknown))}"
            f" (known thresholds: {', '.join(names)})"
        )
    given = {key: value for key, value in keywords.items() if value is not None}
    twice = sorted(k for k in given if Counter(names[j] for j in given)[names[k]] > 1)
    if twice:
        raise TypeError(f"one threshold given twice, as {' and '.join(twice)}")
    path = find_config() if config is True else (config or None)
    flags: dict[str, float | bool | None] = {names[key]: value for key, value in given.items()}
    resolved = resolve(
        "assertions",
        path if isinstance(path, Path) else None,
        flags,
        fail_on_regression=fail_on_regression,
        alpha=alpha,
        min_effect=min_effect,
    )
    used = {names[key]: key for key in given}
    found = tuple(
        Threshold(t.gate, t.value, f"{used[t.gate]}=" if t.source.startswith("--") else t.source)
        for t in resolved.thresholds
    )
    return Resolved(resolved.command, found, resolved.label)


def assert_no_regressions(
    comparison: Comparison,
    *,
    config: Path | bool | None = True,
    allow_loops: bool | None = None,
    fail_on_regression: bool | None = None,
    alpha: float | None = None,
    min_effect: Mapping[str, float] | None = None,
    **thresholds: Any,
) -> None:
    """Raise RegressionError when any pair breaks a threshold (strict ``>``: equal passes),
    or the comparison as a whole breaks a label-level one.

    Thresholds are keywords named like the [cli] keys (``max_divergence``,
    ``max_wasted_effort``, ``max_loops``, ``max_recovery_ratio``, ``max_cost_delta``,
    ``max_token_delta``, ``max_latency_delta``, and any registered metric's) or, as in
    AgentDiff, ``max_recovery_step_ratio``, ``max_cost_increase_pct``,
    ``max_token_increase_pct``, ``max_latency_increase_pct``. ``allow_loops=False`` is ``max_loops=0`` (no stagnant
    candidate loop at all), as in AgentDiff; thresholds left as None come from the config's
    [assertions] section. Label-level, as ``compare`` and ``gate`` judge them over the
    tasks: ``max_success_drop`` (points), ``max_reward_drop``; ``fail_on_regression``: also
    raise when a verdict (``summary.metrics``) is ``regression`` at ``alpha`` (default 0.05);
    ``min_effect``: ``{metric: X}`` overrides of the minimum effects. Each left as None comes
    from [assertions] (``fail_on_regression = true``, ``alpha``, ``min_effect = {...}``)."""
    if allow_loops is False and thresholds.get("max_loops") is None:
        thresholds["max_loops"] = 0
    resolved = _resolve(
        config,
        thresholds,
        fail_on_regression=fail_on_regression,
        alpha=alpha,
        min_effect=min_effect,
    )
    found, options = resolved.thresholds, resolved.label
    judged(
        comparison,
        Judging(tuple(found), options.fail_on_regression, options.alpha, dict(options.min_effect)),
    )
    problems = violations_in_words(comparison)
    if problems:
        raise RegressionError("reportgen found regressions:\n  " + "\n  ".join(problems))
