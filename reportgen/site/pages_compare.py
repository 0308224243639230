"""Comparison pages: ``compare/<baseline>..<candidate>/index.html`` and one page per pair with
metric deltas (and the gates' verdicts once given) and the aligned side-by-side diff."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from functools import partial
from statistics import fmean
from typing import Any

import orjson

from reportgen.divergence.findings import summary
from reportgen.divergence.records import PairRecord, StepDiff
from reportgen.divergence.reference import argument_diff, normalise_status
from reportgen.divergence.textdiff import WordDiff
from reportgen.divergence.view import earliest_rows
from reportgen.divergence.why import Why, why
from reportgen.evaluation import judged_pairs
from reportgen.gating import PairMetric, pair_metrics, stagnant_loops
from reportgen.gating.metrics import Pair, outcome_mark, reward_delta
from reportgen.site import charts, fmt, paths
from reportgen.site.context import (
    Chart,
    ComparePage,
    DiffRow,
    Folded,
    LazyPage,
    Link,
    MetricRow,
    PairPage,
    StepView,
    WhyView,
)
from reportgen.site.data import PairInfo, SiteData, asdict_shallow
from reportgen.site.pages_reliability import reliability_charts, reliability_view
from reportgen.site.pages_runs import _pair_row, run_view
from reportgen.site.pairrows import packed_rows
from reportgen.site.stepdata import steps_path
from reportgen.site.steps import PAIR_TEXT_LIMIT, loop_view, step_views
from reportgen.site.worddiff import payload_diff, render, text_diff
from reportgen.statistics.headline import headline
from reportgen.statistics.methods import wilson
from reportgen.statistics.report import verdict_explanation, verdict_line, verdict_parts

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


#: Most characters of word diffs on one pair page; later modified steps are counted, not diffed.
DIFF_BUDGET = 12_000


WordDiffs = tuple[WordDiff | None, WordDiff | None, tuple[str, ...], WordDiff | None]


def _word_diffs(b: dict[str, Any], c: dict[str, Any]) -> WordDiffs:
    """A modified step's input, output and error message as word diffs (None where a part is
    unchanged or rewritten), and which parts were rewritten beyond a useful diff."""
    found = {
        "input": payload_diff(b["input"], c["input"]),
        "output": payload_diff(b["output"], c["output"]),
        "error": text_diff(b.get("error") or "", c.get("error") or ""),
    }
    rewritten = tuple(k for k, v in found.items() if v is not None and v.kind == "rewritten")
    shown = {k: (None if k in rewritten else v) for k, v in found.items()}
    return shown["input"], shown["output"], rewritten, shown["error"]


def _diff_size(diff: WordDiff | None) -> int:
    """About the characters of HTML a word diff draws: its text, 11 per ``<del>`` or ``<ins>``,
    50 per fold or note."""
    if diff is None:
        return 0
    marks = diff.marks
    notes = marks.count("f") + marks.count("m")
    tags = marks.count("d") + marks.count("i")
    return sum(map(len, diff.texts)) + 11 * tags + 50 * notes or 50  # folds and notes: no text


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
    return step_views(steps, loops=loops, aligned=aligned, limit=PAIR_TEXT_LIMIT, texts=False)


#: Lines (and characters) of a long agent text shown before "show all".
FOLD_LINES, FOLD_CHARS = 8, 800


def fold(text: str | None) -> Folded | None:
    """An agent text as its first FOLD_LINES lines (at most FOLD_CHARS characters) and the
    rest, which the page folds behind "show all"."""
    if text is None:
        return None
    lines = text.splitlines(keepends=True)
    head = "".join(lines[:FOLD_LINES])
    if len(head) > FOLD_CHARS:
        cut = text.rfind(" ", FOLD_CHARS // 2, FOLD_CHARS)
        head = text[: cut if cut > 0 else FOLD_CHARS]
    return Folded(head, text[len(head) :])


def _row_of(rows: Sequence[DiffRow], side: str, index: int) -> int | None:
    """The step table's row that shows step ``index`` of ``side``."""
    for r in rows:
        view = r.baseline if side == "baseline" else r.candidate
        if view is not None and view.idx == index:
            return r.row
    return None


def why_view(reason: Why, rows: Sequence[DiffRow]) -> WhyView:
    """A pair's why as its page shows it (see WhyView)."""
    error = reason.first_error
    return WhyView(
        why=reason,
        goal=fold(reason.goal),
        baseline_goal=fold(reason.baseline_goal),
        answers=(fold(reason.baseline.final_answer), fold(reason.candidate.final_answer)),
        scorers=(fold(reason.baseline.scorer), fold(reason.candidate.scorer)),
        answers_diff=None if reason.answers_diff is None else render(reason.answers_diff),
        error_text=None if error is None else fold(error.text),
        error_row=None if error is None else _row_of(rows, error.side, error.index),
    )


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
        [(normalise_status(s["status"]), s["payload"], s["error"]) for s in bsteps],
        [(normalise_status(s["status"]), s["payload"], s["error"]) for s in csteps],
    )
    where = m.get("first_divergence")
    first = None if where is None else where["position"]
    rows = []
    budget, skipped = DIFF_BUDGET, 0
    for i, d in enumerate(view):
        bi, ci = d["baseline_index"], d["candidate_index"]
        b = bviews[bi] if bi is not None else None
        c = cviews[ci] if ci is not None else None
        changes: list[tuple[str, str]] = []
        words: WordDiffs = (None, None, (), None)
        if d["status"] == "modified" and bi is not None and ci is not None:
            changes = _input_changes(bsteps[bi], csteps[ci])
            if budget > 0:
                words = _word_diffs(bsteps[bi], csteps[ci])
                budget -= sum(_diff_size(w) for w in (words[0], words[1], words[3]))
            else:
                skipped += 1
        rows.append(
            DiffRow(i, d["status"], b, c, i == first, _deltas(b, c), changes, *words, (bi, ci))
        )
    base, cand = data.runs_by_id[pair.baseline_run_id], data.runs_by_id[pair.candidate_run_id]
    loops = [loop_view(n, x["side"], x) for n, x in enumerate(m["loops_detected"], 1)]
    compare_href = paths.compare_index_path(data.baseline_label, data.candidate_label)
    trial = f" · trial {pair.trial}" if pair.trial else ""
    reason = why(m, base, cand, bsteps, csteps)
    name = pair.title
    return PairPage(
        path=pair.path,
        title=f"{name or pair.task_id} · {pair.batch}{trial}: {data.baseline_label} vs {data.candidate_label}",
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
        diffs_skipped=skipped,
        why=why_view(reason, rows),
        title_id=name and pair.task_id,
        findings=summary(m["findings"]) if "findings" in m else None,
        steps_src=(
            steps_path(paths.run_path(base["suite"], base["task_id"], base["run_id"])),
            steps_path(paths.run_path(cand["suite"], cand["task_id"], cand["run_id"])),
        ),
        rows_data=packed_rows(rows),
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


def broken_links(data: SiteData, night: str, tasks: Sequence[str]) -> list[Link]:
    """Each newly broken task of ``night`` (``suite/task`` keys) with the page of its diff: the
    first of its pairs (by trial) whose candidate failed where the baseline passed, else its
    first pair that night."""

    def lost(pair: PairInfo) -> bool:
        m = pair.metrics
        return bool(m["baseline_success"]) and m["candidate_success"] is False

    pages: dict[str, str] = {}
    night_pairs = [p for p in data.pairs if p.batch == night]
    for pair in sorted(night_pairs, key=lambda p: (not lost(p), p.trial)):
        pages.setdefault(f"{pair.suite}/{pair.task_id}", pair.path)
    return [Link(task, pages[task]) for task in tasks if task in pages]


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


NightStats = dict[tuple[str, str], dict[str, Any]]
ALL_SUITES = ""


def night_statistics(data: SiteData) -> NightStats:
    """The label-level statistics of every compared night, over all suites (key
    ``("", night)``, what ``reportgen gate`` judges) and per suite (``(suite, night)``): the
    metrics with their verdicts, the task classes, and the verdicts as rows for the pages.
    Each task's noise floor of divergence is known for the latest night only."""
    if not data.pairs:
        return {}
    latest = max(p.batch for p in data.pairs)
    groups: dict[tuple[str, str], list[PairInfo]] = defaultdict(list)
    for pair in data.pairs:
        groups[(ALL_SUITES, pair.batch)].append(pair)
        groups[(pair.suite, pair.batch)].append(pair)
    if len(data.suites) == 1:  # one suite: its statistics are the night's
        groups = {k: v for k, v in groups.items() if k[0] == ALL_SUITES}
    out: NightStats = {}
    for (suite, night), pairs in sorted(groups.items()):
        keys = {p.metrics["pair_id"]: f"{p.suite}/{p.task_id}" for p in pairs}
        records = [p.metrics for p in pairs]
        judged = data.latest.statistics if data.latest is not None else None
        if suite == ALL_SUITES and night == latest and judged is not None:
            metrics, tasks = judged["metrics"], judged["tasks"]  # what `gate` says of it
        elif night == latest:
            judged_night = judged_pairs(records, keys, data.repeat_tdi)
            metrics, tasks = judged_night["metrics"], judged_night["tasks"]
        else:
            metrics, tasks = _night_judged(data, suite, night, records, keys)
        out[(suite, night)] = {
            "suite": suite,
            "batch": night,
            "metrics": metrics,
            "rows": [verdict_row(m) for m in metrics],
            "tasks": tasks,
            "pairs": len(pairs),
            "headline": headline(metrics, tasks),
        }
    if len(data.suites) == 1:
        out.update({(data.suites[0], k[1]): v for k, v in list(out.items())})
    return out


def _night_judged(
    data: SiteData, suite: str, night: str, records: list[PairRecord], keys: dict[str, str]
) -> tuple[Any, Any]:
    """A past night's statistics (no noise floors: those are the latest night's), kept with
    the night's evaluation (evalcache.py) when it has one: a rebuild judges only new nights."""
    held = data.nights.get(night)
    known = None if held is None else held.statistics.get(suite)
    if known is None:
        judged = judged_pairs(records, keys, {})
        known = {"metrics": judged["metrics"], "tasks": judged["tasks"]}
        if held is not None:
            held.statistics[suite] = known
    return known["metrics"], known["tasks"]


def verdict_row(entry: dict[str, Any]) -> dict[str, Any]:
    """One metric's row of a verdict table: its numbers as text, the interval at its level
    (the one its verdict was read from), the verdict and the tooltip that says what they
    mean."""
    parts = verdict_parts(entry)
    return {
        **parts,
        "metric": entry["metric"],
        "verdict": entry["verdict"],
        "line": verdict_line(entry),
        "p_value": entry["p_value"],
        "n_tasks": entry["n_tasks"],
        "method": entry["method"],
        "family": entry["family"],
        "explain": verdict_explanation(entry),
    }


def _outcome_fields(pair: PairInfo) -> dict[str, Any]:
    """A pair's outcomes beside its path metrics: ✓→✗ marks, broken, reward change."""
    m = pair.metrics
    base, cand = m.get("baseline_success"), m.get("candidate_success")
    return {
        "outcome": outcome_mark(base) + "→" + outcome_mark(cand),
        "broken": base is True and cand is False,
        "fixed": base is False and cand is True,
        "reward_delta": reward_delta(m),
    }


def pair_row(pair: PairInfo) -> dict[str, Any]:
    """A pair as a row of the comparison tables: path metrics and outcomes."""
    return {**_pair_row(pair), **_outcome_fields(pair)}


def frontier_scatter(data: SiteData) -> Chart | None:
    """Cost against success of every label (one point per label and night, with the Wilson
    interval of its pass rate as an error bar), and the frontier of the latest night: the
    labels no other label beats on both (the view of Kapoor et al., "AI Agents That
    Matter", 2024). None when no run gives both a cost and an outcome."""
    cells: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for run in data.runs:
        if run.get("success") is None or run.get("cost_usd") is None:
            continue
        acc = cells[(run["label"], run["batch"])]
        acc[0] += float(run["cost_usd"])
        acc[1] += 1.0 if run["success"] else 0.0
        acc[2] += 1
    if not cells:
        return None
    traces: list[dict[str, Any]] = []
    latest = max(batch for _, batch in cells)
    points: list[tuple[float, float, str]] = []
    labels = sorted({label for label, _ in cells})
    for i, label in enumerate(labels):
        nights = sorted(b for lab, b in cells if lab == label)
        xs, ys, lo, hi, text = [], [], [], [], []
        for night in nights:
            cost, passes, runs, _ = cells[(label, night)]
            rate = passes / runs
            low, high = wilson(int(passes), int(runs))
            xs.append(charts.r6(cost / runs))
            ys.append(charts.r6(rate))
            lo.append(charts.r6(rate - low))
            hi.append(charts.r6(high - rate))
            text.append(
                charts.chart_text(
                    f"{label} · {night}: {rate:.1%} of {int(runs)} runs passed "
                    f"(95 % Wilson interval {low:.1%} to {high:.1%}), mean cost "
                    f"{fmt.usd(cost / runs)} per run"
                )
            )
            if night == latest:
                points.append((cost / runs, rate, label))
        traces.append(charts.scatter_points(label, xs, ys, lo, hi, text, i))
    traces += charts.frontier_line(points)
    return charts.cost_success_chart("frontier", traces, len(cells))


def verdict_chart(
    chart_id: str, rows: list[dict[str, Any]], metrics: list[dict[str, Any]]
) -> Chart:
    """Each metric's change with its interval as an error bar, in units of the metric's
    minimum effect of interest (so every metric shares one axis: inside ±1 the change is
    too small to matter)."""
    return charts.verdict_bars(chart_id, rows, metrics)


def compare_page(
    data: SiteData,
    nav: list[Link],
    nights: NightStats | None = None,
    kept: frozenset[str] | None = None,
) -> ComparePage:
    """The comparison index: nights, then every pair (filterable), then unpaired runs. With
    ``kept`` (the nights with step pages, retention.py), the night-by-night verdict tables
    and the pair rows are those of the kept nights; every night keeps its row in the nights
    table (a year of pairs would otherwise make one page of tens of MB)."""
    rows = sorted(
        (pair_row(p) for p in data.pairs),
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
            "reason": u.reason,
        }
        for u in data.unpaired
    ]
    stats = night_statistics(data) if nights is None else nights
    verdicts = [
        {
            **v,
            "anchor": night_anchor(night),
            "broken": broken_links(data, night, v["tasks"]["newly_broken_tasks"]),
        }
        for (suite, night), v in sorted(stats.items(), key=lambda kv: kv[0][1], reverse=True)
        if suite == ALL_SUITES and (kept is None or night in kept)
    ]
    figures = [
        verdict_chart(f"verdicts-{paths.slug(v['batch'])}", v["rows"], v["metrics"])
        for v in verdicts[:1]
    ]
    both = (data.baseline_label, data.candidate_label)  # this comparison's labels only
    scatter = frontier_scatter(replace(data, runs=[r for r in data.runs if r["label"] in both]))
    if scatter is not None:
        figures.append(scatter)
    rows.sort(key=lambda r: not r["broken"])  # newly broken pairs first (a stable sort)
    rows.sort(key=lambda r: r["batch"], reverse=True)
    per_night = night_rows(rows)
    listed = rows if kept is None else [r for r in rows if r["batch"] in kept]
    for night in per_night:
        night["listed"] = kept is None or night["batch"] in kept
    reliable = reliability_view(data.reliability, data.suites, both)
    return ComparePage(
        path=paths.compare_index_path(data.baseline_label, data.candidate_label),
        title=f"{data.baseline_label} vs {data.candidate_label}",
        nav=nav,
        charts=figures + reliability_charts(reliable),
        verdicts=verdicts,
        baseline_label=data.baseline_label,
        candidate_label=data.candidate_label,
        nights=per_night,
        pairs=listed,
        pairs_not_listed=len(rows) - len(listed),
        kept_nights=None if kept is None else len(kept),
        unpaired=unpaired,
        headline=verdicts[0]["headline"] if verdicts else None,
        reliability=reliable.rows,
        reliability_columns=reliable.columns,
        reliability_changes=reliable.changes,
        reliability_by_suite=reliable.by_suite,
    )
