"""What each metric means, for the tooltips of the site's column headers and cards: one
definition per metric of the registry (``reportgen.gating.metrics``, by its name) and per
label-level metric of the statistics package (by its key), plus the short names the tables
use as headers. ``term`` renders a name as a focusable ``<abbr>`` whose definition shows on
hover and on keyboard focus."""

from __future__ import annotations

from markupsafe import Markup

#: Definitions by registry name (pair metrics) and by statistics key (label-level metrics).
DEFINITIONS: dict[str, str] = {
    "divergence": "Trajectory Divergence Index: 1 \N{MINUS SIGN} 2 \N{MULTIPLICATION SIGN} aligned "
    "steps / the steps of both runs (aligned: the longest common subsequence of step "
    "signatures); 0 the same path, 1 nothing in common.",
    "wasted_effort": "Wasted Effort Index: the share of a run's steps that errored, were "
    "retried or abandoned (0 none wasted, 1 all).",
    "loops": "Stagnant loops: a block of steps repeated back to back with the same input and "
    "output every time. Repeats whose input or output changes are not loops.",
    "identical_calls": "Identical calls: the times a run repeats a call with the same action, "
    "input and output anywhere in the run.",
    "recovery_ratio": "Recovery Step Ratio: steps the candidate took to get back on the "
    "baseline's path after errors, over the baseline's (1 the same, above 1 slower).",
    "cost_delta": "Cost change: (candidate cost \N{MINUS SIGN} baseline cost) / baseline cost, in %; "
    "unknown when the baseline gives no cost.",
    "token_delta": "Token change: (candidate tokens \N{MINUS SIGN} baseline tokens) / baseline tokens, in %.",
    "latency_delta": "Latency change: (candidate latency \N{MINUS SIGN} baseline latency) / baseline "
    "latency, in %.",
    "success": "Task success: whether the run passed its task's check (✓ passed, ✗ failed, "
    "? unknown); newly broken: passed on the baseline, fails on the candidate.",
    "avoidable_cost": "Avoidable spend: what the candidate run spent on calls it could have "
    "skipped (identical calls repeated, unchanged files read again, failed calls retried with "
    "the same input, the prompt cache rebuilt after a pause, very long prompts, expensive "
    "sub-agents), in USD; reportgen spend lists the findings.",
    "reward_delta": "Reward change: candidate reward \N{MINUS SIGN} baseline reward (the benchmark's score).",
    "success_rate": "Success rate: the share of tasks passed (each task once, its trials "
    "averaged); its change is in percentage points.",
    "reward": "Mean reward over the tasks (each task once, its trials averaged).",
    "trajectory_divergence_index": "Mean TDI over the tasks, judged against two baseline runs "
    "of the same task (the noise floor).",
    "candidate_wei": "Mean Wasted Effort Index over the tasks.",
    "cost_usd": "Total cost in USD over the tasks; its change is relative.",
    "tokens": "Total tokens (in + out) over the tasks; its change is relative.",
    "latency_ms": "Total latency over the tasks; its change is relative.",
    "recovery_step_ratio": "Recovery steps over the tasks: the change of their total.",
    "stagnant_loops": "Stagnant loops per task (same input and output every repeat).",
}

#: The short names tables and cards use, to the definition they stand for.
TERMS: dict[str, str] = {
    "TDI": "divergence",
    "WEI": "wasted_effort",
    "RSR": "recovery_ratio",
    "loops": "loops",
    "stagnant loops": "loops",
    "identical calls": "identical_calls",
    "cost change": "cost_delta",
    "cost": "cost_delta",
    "tokens": "token_delta",
    "latency": "latency_delta",
    "success": "success",
    "outcome": "success",
    "reward Δ": "reward_delta",
    "avoid $": "avoidable_cost",
    "reward change": "reward_delta",
}
EXTRA: dict[str, str] = {
    "repeats": "Repeats: steps repeated back to back whose input or output changes each time "
    "(a search over routes, an edit-and-test cycle): not loops, no alarm.",
    "wasted steps": "Steps that errored, were retried or abandoned.",
    "CI": "Confidence interval of the change at the level printed beside it (its family's "
    "Bonferroni level, e.g. 97.5 % for each of two outcome metrics): if the study were "
    "repeated, that share of such intervals would hold the true change. The verdict is read "
    "from it.",
    "p": "The p-value after Bonferroni's correction within the metric's family (the outcomes, "
    "or the path, cost and effort metrics).",
    "pp": "Percentage points: 91.7 % → 75.0 % is \N{MINUS SIGN}16.7 pp.",
}


def metric_name(key: str) -> str:
    """The registry name of the pair metric whose record field is ``key`` (the key itself when
    no registered metric has it: the pair page's extra rows, such as ``steps``)."""
    from reportgen.gating import pair_metrics

    for metric in pair_metrics():
        if metric.key == key:
            return metric.name
    return {"unrecovered_steps": "recovery_ratio", "candidate_success": "success"}.get(key, key)


def definition(name: str) -> str | None:
    """The definition of a metric (registry name, statistics key) or a table's short name."""
    if name in DEFINITIONS:
        return DEFINITIONS[name]
    if name in TERMS:
        return DEFINITIONS[TERMS[name]]
    return EXTRA.get(name)


def term(name: str, text: str | None = None) -> Markup:
    """``text`` (default ``name``) as a focusable abbreviation whose definition shows on hover
    and focus; plain escaped text when the name has no definition."""
    shown = name if text is None else text
    meaning = definition(name)
    if meaning is None:
        return Markup("{}").format(shown)
    return Markup('<abbr class="def" tabindex="0" title="{}" data-def="{}">{}</abbr>').format(
        meaning, meaning, shown
    )
