"""Comparison pages: ``compare/<baseline>..<candidate>/index.html`` and one page per pair with
metric deltas (and the gates' verdicts once given) and the aligned side-by-side diff."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from functools import partial
from statistics import fmean
from typing import Any

import orjson

from reportgen.divergence.records import PairRecord, StepDiff
from reportgen.divergence.reference import argument_diff, normalise_status
from reportgen.divergence.view import earliest_rows
from reportgen.gating import PairMetric, pair_metrics, stagnant_loops
from reportgen.gating.metrics import Pair, outcome_mark, reward_delta
from reportgen.site import charts, fmt, paths
from reportgen.site.context import (
    ComparePage,
    DiffRow,
    LazyPage,
    Link,
    MetricRow,
    PairPage,
    StepView,
)
from reportgen.site.data import PairInfo, SiteData, asdict_shallow
from reportgen.site.pages_runs import _pair_row, run_view
from reportgen.site.steps import PAIR_TEXT_LIMIT, loop_view, step_views

Verdicts = Callable[[PairRecord], dict[str, bool] | None]


def night_anchor(batch: str) -> str:
    """The anchor of a night's row on the comparison index (``night-2026-11-28``)."""
    return f"night-{paths.slug(batch)}"


Run = dict[str, Any]


def _tdi_rows(m: Pair, b: Run, c: Run) -> list[MetricRow]:
    return [
        MetricRow(
            "trajectory_divergence_index",
            "Trajectory divergence (TDI)",
            "",
            "",
            fmt.ratio(m["trajectory_divergence_index"]),
            worse=m["trajectory_divergence_index"] > 0,
        ),
        MetricRow(
            "steps",
            "Steps",
            fmt.num(b["n_steps"]),
            fmt.num(c["n_steps"]),
            fmt.signed(c["n_steps"] - b["n_steps"], 0),
            worse=c["n_steps"] > b["n_steps"],
        ),
    ]


def _wei_rows(m: Pair, b: Run, c: Run) -> list[MetricRow]:
    return [
        MetricRow(
            "candidate_wei",
            "Wasted effort (WEI)",
            fmt.ratio(m["baseline_wei"]),
            fmt.ratio(m["candidate_wei"]),
            fmt.signed(m["candidate_wei"] - m["baseline_wei"]),
            worse=m["candidate_wei"] > m["baseline_wei"],
        )
    ]


def _loop_rows(m: Pair, b: Run, c: Run) -> list[MetricRow]:
    base, cand = stagnant_loops(m, "baseline"), stagnant_loops(m, "candidate")
    return [
        MetricRow(
            "loops_detected",
            "Stagnant loops (all loops are marked below)",
            fmt.num(base),
            fmt.num(cand),
            fmt.signed(cand - base, 0),
            worse=cand > base,
        )
    ]


def _rsr_rows(m: Pair, b: Run, c: Run) -> list[MetricRow]:
    return [
        MetricRow(
            "recovery_step_ratio",
            "Recovery steps (RSR = candidate / baseline)",
            fmt.num(m["baseline_recovery_steps"]),
            fmt.num(m["candidate_recovery_steps"]),
            fmt.ratio(m["recovery_step_ratio"], 2),
            worse=m["recovery_step_ratio"] > 1,
        ),
        MetricRow(
            "unrecovered_steps",
            "Unrecovered steps",
            fmt.num(m["baseline_unrecovered_steps"]),
            fmt.num(m["candidate_unrecovered_steps"]),
            fmt.signed(m["candidate_unrecovered_steps"] - m["baseline_unrecovered_steps"], 0),
            worse=m["candidate_unrecovered_steps"] > m["baseline_unrecovered_steps"],
        ),
    ]


def _delta_rows(
    key: str, name: str, total: str, show: Callable[[float | None], str]
) -> Callable[[Pair, Run, Run], list[MetricRow]]:
    def rows(m: Pair, b: Run, c: Run) -> list[MetricRow]:
        delta = m[f"{key}_delta_percentage"]
        return [
            MetricRow(
                f"{key}_delta_percentage",
                name,
                show(b[total]),
                show(c[total]),
                fmt.pct(delta),
                note=m.get(f"{key}_delta_note"),
                worse=delta is not None and delta > 0,
            )
        ]

    return rows


def _outcome(success: bool | None) -> str:
    return "unknown" if success is None else "passed" if success else "failed"


def _success_rows(m: Pair, b: Run, c: Run) -> list[MetricRow]:
    base, cand = m.get("baseline_success"), m.get("candidate_success")
    return [
        MetricRow(
            "candidate_success",
            "Task success",
            _outcome(base),
            _outcome(cand),
            outcome_mark(base) + "→" + outcome_mark(cand),
            worse=base is True and cand is False,
        )
    ]


def _reward_rows(m: Pair, b: Run, c: Run) -> list[MetricRow]:
    delta = reward_delta(m)
    return [
        MetricRow(
            "reward_delta",
            "Reward",
            fmt.ratio(m.get("baseline_reward")),
            fmt.ratio(m.get("candidate_reward")),
            fmt.signed(delta),
            worse=delta is not None and delta < 0,
        )
    ]


#: How the pair page shows the built-in metrics (by registry name), in the page's order: the
#: values of both runs beside the change. Any other registered metric follows, one row each,
#: from its declaration.
PAGE_ROWS: dict[str, Callable[[Pair, Run, Run], list[MetricRow]]] = {
    "divergence": _tdi_rows,
    "wasted_effort": _wei_rows,
    "recovery_ratio": _rsr_rows,
    "loops": _loop_rows,
    "cost_delta": _delta_rows("cost", "Cost", "cost_usd", fmt.usd),
    "token_delta": _delta_rows("token", "Tokens", "tokens", fmt.num),
    "latency_delta": _delta_rows("latency", "Latency", "latency_ms", fmt.ms),
    "success": _success_rows,
    "reward_delta": _reward_rows,
}


def _declared_row(metric: PairMetric, m: Pair) -> MetricRow:
    """A registered metric's row from its declaration alone: its label and its cell."""
    value = metric.value(m)
    worse = value is not None and (value > 0 if metric.worse_when == "higher" else value < 0)
    return MetricRow(metric.key, metric.label, "", "", metric.text(m), worse=worse)


def metric_rows(m: Pair, b: Run, c: Run) -> list[MetricRow]:
    """The metric table of one pair, worst news marked: every registered metric, the built-in
    ones as PAGE_ROWS shows them."""
    registered = pair_metrics()
    names = {metric.name for metric in registered}
    rows = [row for name, make in PAGE_ROWS.items() if name in names for row in make(m, b, c)]
    for metric in registered:
        if metric.name not in PAGE_ROWS:
            rows.append(_declared_row(metric, m))
    return rows


def _deltas(b: StepView | None, c: StepView | None) -> dict[str, str]:
    """Per-step changes of a row that pairs two steps."""
    if b is None or c is None:
        return {}
    out = {}
    tb, tc = b.tokens_in, c.tokens_in
    if tb is not None and tc is not None:
        out["tokens"] = fmt.signed((tc + (c.tokens_out or 0)) - (tb + (b.tokens_out or 0)), 0)
    if b.cost_usd is not None and c.cost_usd is not None:
        out["cost"] = fmt.signed(c.cost_usd - b.cost_usd, 4)
    if b.latency_ms is not None and c.latency_ms is not None:
        out["latency"] = fmt.signed(c.latency_ms - b.latency_ms, 0) + " ms"
    return out


def _input_changes(b: dict[str, Any], c: dict[str, Any]) -> list[tuple[str, str]]:
    """A modified step's input changes, key by key (AgentDiff's argument_diff), as text."""
    diff = argument_diff(
        None if b.get("input") is None else orjson.loads(b["input"]),
        None if c.get("input") is None else orjson.loads(c["input"]),
    )

    def show(value: Any) -> str:
        text = orjson.dumps(value).decode()
        return text if len(text) <= 120 else text[:119] + "…"

    out = []
    for key, change in (diff or {}).items():
        if change["status"] == "added":
            out.append((key, "added: " + show(change["new_value"])))
        elif change["status"] == "removed":
            out.append((key, "removed: " + show(change["old_value"])))
        else:
            out.append((key, f"changed: {show(change['old_value'])} → {show(change['new_value'])}"))
    return out


def _side_views(data: SiteData, pair: PairInfo, side: str, diffs: list[StepDiff]) -> list[StepView]:
    """One side's step views, with recovery windows from the alignment and its loops."""
    run_id = pair.baseline_run_id if side == "baseline" else pair.candidate_run_id
    steps = data.steps.get(run_id, [])
    aligned = [False] * len(steps)
    for d in diffs:
        i = d["baseline_index"] if side == "baseline" else d["candidate_index"]
        if i is not None and d["status"] in ("matched", "modified"):
            aligned[i] = True
    loops = [
        loop_view(n, side, x)
        for n, x in enumerate(pair.metrics["loops_detected"], 1)
        if x["side"] == side
    ]
    return step_views(steps, loops=loops, aligned=aligned, limit=PAIR_TEXT_LIMIT)


def pair_page(
    data: SiteData, pair: PairInfo, nav: list[Link], verdict: dict[str, bool] | None
) -> PairPage:
    """The page of one pair; ``verdict`` is the gates' verdict per metric, if given."""
    m = pair.metrics
    diffs = m["step_diffs"]
    bviews = _side_views(data, pair, "baseline", diffs)
    cviews = _side_views(data, pair, "candidate", diffs)
    # drawn with the earliest-matching alignment of the same length (divergence/view.py);
    # the first divergence is where the two paths part (the end of their common prefix)
    bsteps = data.steps.get(pair.baseline_run_id, [])
    csteps = data.steps.get(pair.candidate_run_id, [])
    view = earliest_rows(
        diffs,
        [s["signature"] for s in bsteps],
        [s["signature"] for s in csteps],
        [(normalise_status(s["status"]), s["payload"]) for s in bsteps],
        [(normalise_status(s["status"]), s["payload"]) for s in csteps],
    )
    where = m.get("first_divergence")
    first = None if where is None else where["position"]
    rows = []
    for i, d in enumerate(view):
        bi, ci = d["baseline_index"], d["candidate_index"]
        b = bviews[bi] if bi is not None else None
        c = cviews[ci] if ci is not None else None
        changes = (
            _input_changes(bsteps[bi], csteps[ci])
            if d["status"] == "modified" and bi is not None and ci is not None
            else []
        )
        rows.append(DiffRow(i, d["status"], b, c, i == first, _deltas(b, c), changes))
    base, cand = data.runs_by_id[pair.baseline_run_id], data.runs_by_id[pair.candidate_run_id]
    loops = [loop_view(n, x["side"], x) for n, x in enumerate(m["loops_detected"], 1)]
    compare_href = paths.compare_index_path(data.baseline_label, data.candidate_label)
    trial = f" · trial {pair.trial}" if pair.trial else ""
    return PairPage(
        path=pair.path,
        title=f"{pair.task_id} · {pair.batch}{trial}: {data.baseline_label} vs {data.candidate_label}",
        nav=nav,
        crumbs=[
            Link(f"{data.baseline_label}..{data.candidate_label}", compare_href),
            Link(pair.batch, f"{compare_href}#{night_anchor(pair.batch)}"),
            Link(pair.task_id, paths.task_path(pair.suite, pair.task_id)),
        ],
        charts=[charts.cumulative_cost("cost", bviews, cviews)],
        pair={
            "pair_id": pair.pair_id,
            "suite": pair.suite,
            "task_id": pair.task_id,
            "batch": pair.batch,
            "trial": pair.trial,
            "baseline": run_view(base),
            "candidate": run_view(cand),
        },
        metrics=metric_rows(m, base, cand),
        verdicts=verdict,
        rows=rows,
        loops=loops,
        first_divergence=first,
    )


def pair_pages(
    data: SiteData, nav: list[Link], verdicts: Verdicts | None = None
) -> Iterator[LazyPage]:
    """One page per compared pair, built only when its runs, metrics, verdicts or navigation
    changed (the step diffs follow from the two runs' steps, which are hashed)."""
    labels = (data.baseline_label, data.candidate_label)
    for pair in data.pairs:
        verdict = verdicts(pair.metrics) if verdicts is not None else None
        inputs = {
            "nav": nav,
            "labels": labels,
            "pair": {k: v for k, v in asdict_shallow(pair).items() if k != "metrics"},
            "metrics": {k: v for k, v in pair.metrics.items() if k != "step_diffs"},
            "runs": [data.runs_by_id[pair.baseline_run_id], data.runs_by_id[pair.candidate_run_id]],
            "steps": [
                data.step_hashes.get(pair.baseline_run_id),
                data.step_hashes.get(pair.candidate_run_id),
            ],
            "verdict": verdict,
            "text_limit": PAIR_TEXT_LIMIT,
        }
        build = partial(pair_page, data, pair, nav, verdict)
        yield LazyPage(pair.path, PairPage.template, inputs, build)


def night_rows(pair_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per night (latest first): how the candidate did against the baseline over all pairs."""
    by_night: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in pair_rows:
        by_night[row["batch"]].append(row)
    out = []
    for night, rows in sorted(by_night.items(), reverse=True):
        costs = [r["cost_delta"] for r in rows if r["cost_delta"] is not None]
        out.append({
            "batch": night, "anchor": night_anchor(night), "pairs": len(rows),
            "tdi": fmean(r["tdi"] for r in rows),
            "baseline_wei": fmean(r["baseline_wei"] for r in rows),
            "candidate_wei": fmean(r["candidate_wei"] for r in rows),
            "stagnant_loops": sum(r["stagnant_loops"] for r in rows),
            "cost_delta": fmean(costs) if costs else None,
        })  # fmt: skip
    return out


def compare_page(data: SiteData, nav: list[Link]) -> ComparePage:
    """The comparison index: nights, then every pair (filterable), then unpaired runs."""
    rows = sorted(
        (_pair_row(p) for p in data.pairs),
        key=lambda r: (r["batch"], r["suite"], r["task_id"], r["trial"]),
    )
    rows.sort(key=lambda r: r["batch"], reverse=True)
    unpaired = [
        {
            "side": u.side,
            "suite": u.suite,
            "task_id": u.task_id,
            "batch": u.batch,
            "trial": u.trial,
            "href": paths.run_path(u.suite, u.task_id, u.run_id),
        }
        for u in data.unpaired
    ]
    return ComparePage(
        path=paths.compare_index_path(data.baseline_label, data.candidate_label),
        title=f"{data.baseline_label} vs {data.candidate_label}",
        nav=nav,
        baseline_label=data.baseline_label,
        candidate_label=data.candidate_label,
        nights=night_rows(rows),
        pairs=rows,
        unpaired=unpaired,
    )
