"""The Python API: compare runs and assert that nothing regressed, from tests or scripts.

from reportgen.api import compare, assert_no_regressions
assert_no_regressions(compare("traces/baseline.json", "traces/candidate.json"), max_loops=0)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reportgen.divergence.compare import Comparison, compare_labels, compare_paths
from reportgen.escape import term_text
from reportgen.gating import Threshold, find_config, judge, pair_gates, resolve_thresholds
from reportgen.gating.metrics import label_gates
from reportgen.gating.thresholds import assertion_names, resolve_label_options
from reportgen.statistics import attach_statistics
from reportgen.statistics.report import level_text

__all__ = ["Comparison", "RegressionError", "assert_no_regressions", "compare", "compare_archive"]


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
    comparison = compare_paths(_as_list(baseline), _as_list(candidate))
    attach_statistics(comparison)
    return comparison


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
        comparison = compare_labels(
            con, baseline_label, candidate_label, baseline_batch=batch, candidate_batch=batch
        )
    finally:
        con.close()
    attach_statistics(comparison)
    return comparison


def thresholds_for(config: Path | bool | None = True, **keywords: float | None) -> list[Threshold]:
    """Thresholds from keyword arguments (named like the [assertions] keys), over a config
    file's [assertions] section (``True``: the nearest reportgen.toml / pyproject.toml)."""
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
    flags = {names[key]: value for key, value in given.items()}
    found = resolve_thresholds(
        flags, path if isinstance(path, Path) else None, section="assertions"
    )
    used = {names[key]: key for key in given}
    return [
        Threshold(t.gate, t.value, f"{used[t.gate]}=" if t.source.startswith("--") else t.source)
        for t in found
    ]


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
    found = thresholds_for(config, **thresholds)
    path = find_config() if config is True else (config or None)
    options = resolve_label_options(
        path if isinstance(path, Path) else None,
        "assertions",
        fail_on_regression=fail_on_regression,
        alpha=alpha,
        min_effect=min_effect,
    )
    problems = []
    for pair in comparison.pairs:
        for v in judge(pair, found).violations:
            problems.append(
                f"pair {term_text(pair['pair_id'])}: {v['metric']} = {v['value']:.6g}"
                f" > {v['threshold']:g} (from {v['source']})"
            )
    label_level = {g.name for g in label_gates()}
    stats = comparison.statistics
    if (  # recompute only when the label-level judgement differs from compare()'s defaults
        stats is None
        or stats["alpha"] != options.alpha
        or options.min_effect
        or any(t.gate in label_level for t in found)
    ):
        stats = attach_statistics(
            comparison,
            fail_on_regression=options.fail_on_regression,
            alpha=options.alpha,
            min_effect=options.min_effect,
            thresholds=found,
        )
    problems += [
        f"{v['gate']}: {v['metric']} {v['value']:.3g} > {v['threshold']:g} (from {v['source']})"
        for v in stats["label_violations"]
    ]
    if options.fail_on_regression:
        problems += [
            f"{m['metric']}: regression ({m['baseline']:.6g} -> {m['candidate']:.6g},"
            f" {level_text(m['ci_level'])} % CI {m['ci_low']:.6g} to {m['ci_high']:.6g},"
            f" the {m['family']} metrics' level at alpha {options.alpha:g})"
            for m in stats["metrics"]
            if m["verdict"] == "regression"
        ]
    if problems:
        raise RegressionError("reportgen found regressions:\n  " + "\n  ".join(problems))
