"""What each metric means, for the tooltips of the site's column headers and cards: one
definition per metric of the registry (``reportgen.gating.metrics``, by its name) and per
label-level metric of the statistics package (by its key), plus the short names the tables
use as headers. ``term`` renders a name as a focusable ``<abbr>`` whose definition shows on
hover and on keyboard focus."""

from __future__ import annotations

from markupsafe import Markup

from reportgen.gating.metrics import LABEL_METRICS, pair_metrics

#: Definitions by registry name (pair metrics) and by statistics key (label-level metrics):
#: each metric's own ``definition`` in the registry, the one place it is written.
DEFINITIONS: dict[str, str] = {
    **{m.name: m.definition for m in pair_metrics()},
    **{m.name: m.definition for m in LABEL_METRICS},
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
    # the title shows on hover, and on focus (a tap, a tab) through site.css's attr(title)
    return Markup('<abbr class="def" tabindex="0" title="{}">{}</abbr>').format(meaning, shown)
