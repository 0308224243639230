"""Run pages (the step timeline of one run) and task pages (all runs of one task)."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from functools import partial
from statistics import fmean
from typing import Any

from reportgen.divergence import run_text
from reportgen.gating import stagnant_loops
from reportgen.site import charts, paths
from reportgen.site.context import LazyPage, Link, RunPage, ScannerView, TaskPage
from reportgen.site.data import PairInfo, SiteData
from reportgen.site.notes_html import render_notes
from reportgen.site.pages_convergence import convergence_rows
from reportgen.site.pages_iterations import iteration_links
from reportgen.site.pages_spend import run_avoidable
from reportgen.site.stepdata import run_steps_script, steps_path
from reportgen.site.steps import RUN_TEXT_LIMIT, pretty_json, run_loops, step_views
from reportgen.site.trace import step_tree, waterfall

_RUN_FIELDS = (
    "run_id", "suite", "label", "task_id", "batch", "trial", "started_at", "success", "reward",
    "n_steps", "n_wasted", "wei", "tokens", "cost_usd", "latency_ms",
)  # fmt: skip


def _meta(raw: str | None) -> tuple[list[tuple[str, str]], str | None, list[ScannerView]]:
    """A run's meta as sorted (key, text) items, its Markdown notes and its scanners' results
    (``meta.scanners``, an Inspect Scout scan's: shown as a table of their own) apart."""
    try:
        meta = json.loads(raw) if raw else {}
    except (ValueError, RecursionError):  # too deeply nested to parse: shown as it is
        meta = {"meta": raw}
    if not isinstance(meta, dict):
        meta = {"meta": meta}
    notes = meta.pop("notes", None)
    scanners = meta.get(SCANNERS)
    found = _scanners(meta.pop(SCANNERS)) if isinstance(scanners, dict) else []
    items = [
        (str(k), v if isinstance(v, str) else pretty_json(v, indent=None, sort_keys=True))
        for k, v in sorted(meta.items())
    ]
    return items, (notes if isinstance(notes, str) else None), found


def _scanners(given: dict[str, Any]) -> list[ScannerView]:
    """``meta.scanners`` as one view per scanner, sorted by name (entries that are not
    objects are shown as their value)."""
    views = []
    for name, entry in sorted(given.items()):
        said = entry if isinstance(entry, dict) else {"value": entry}

        def text(key: str, said: dict[str, Any] = said) -> str | None:
            value = said.get(key)
            return value if isinstance(value, str) and value else None

        value = said.get("value")
        results = said.get("results")
        views.append(
            ScannerView(
                scanner=str(name),
                value=value if isinstance(value, str) else pretty_json(value, indent=None),
                results=results if isinstance(results, int) else None,
                explanation=text("explanation"),
                answer=text("answer"),
                error=text("error"),
                scan_id=text("scan_id"),
            )
        )
    return views


def run_view(run: dict[str, Any]) -> dict[str, Any]:
    """The fields of a site_runs row that pages show, plus the run page's path."""
    view = {k: run[k] for k in _RUN_FIELDS}
    view["title"] = run_text.title(run["meta"])  # None: no title or goal, named by its task id
    view["href"] = paths.run_path(run["suite"], run["task_id"], run["run_id"])
    return view


SCANNERS = "scanners"
"""The meta key of scanners' results on a run (an Inspect Scout scan's: META_KEY of
reportgen/formats/adapters/inspect_scout.py), shown as a table of its own."""

_BREAKDOWN = ("tokens_in", "tokens_out", "cache_read_tokens", "cache_write_tokens",
              "reasoning_tokens")  # fmt: skip


def cost_view(run: dict[str, Any]) -> dict[str, Any]:
    """The run page's token breakdown (input, output and the cache and reasoning parts; None
    when the trace does not give one) and its cost as reported beside the recomputed one:
    ``cost_delta_usd`` and ``cost_delta_pct`` (of the reported), None unless both are known."""
    view = {k: run.get(k) for k in _BREAKDOWN}
    reported: float | None = run.get("cost_usd")
    recomputed: float | None = run.get("cost_recomputed_usd")
    view["cost_recomputed_usd"] = recomputed
    delta = None if reported is None or recomputed is None else recomputed - reported
    view["cost_delta_usd"] = delta
    view["cost_delta_pct"] = delta / reported * 100 if delta is not None and reported else None
    return view


def _related(data: SiteData, run: dict[str, Any]) -> list[Link]:
    """Links from a run page: its task, and each comparison it takes part in."""
    links = [Link(f"All runs of {run['task_id']}", paths.task_path(run["suite"], run["task_id"]))]
    for comparison in data.comparisons or ():
        pair = comparison.pair_of_run.get(run["run_id"])
        if pair is not None:
            links.append(
                Link(
                    f"{comparison.baseline_label} vs {comparison.candidate_label} on this night",
                    pair.path,
                )
            )
    links += iteration_links(data, run["run_id"])
    links += _family_links(data, run)
    return links


def _family_meta(run: dict[str, Any]) -> dict[str, Any]:
    """A run's meta when it names sub-agent runs or a parent run (session formats), else {}."""
    raw = run["meta"]
    if not raw or ("children" not in raw and "parent_run_id" not in raw):
        return {}
    try:
        meta = json.loads(raw)
    except (ValueError, RecursionError):
        return {}
    return meta if isinstance(meta, dict) else {}


def sub_runs(data: SiteData, run: dict[str, Any]) -> dict[int, list[dict[str, Any]]]:
    """The sub-agent runs of ``run`` that are in the archive, by the step that started them."""
    children = _family_meta(run).get("children")
    index = _runs_by_id(data)
    out: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for child in children if isinstance(children, list) else []:
        found = index.get(str(child.get("run_id"))) if isinstance(child, dict) else None
        if found is not None and isinstance(child.get("step"), int):
            out[child["step"]].append(run_view(found))
    return dict(out)


def _family_links(data: SiteData, run: dict[str, Any]) -> list[Link]:
    """Sub-agent runs (session formats): each child run under the step that started it, and
    a child's way back to that step of its parent, when both are in the archive."""
    meta = _family_meta(run)
    if not meta:
        return []
    index = _runs_by_id(data)
    links: list[Link] = []
    children = meta.get("children")
    for child in children if isinstance(children, list) else []:
        found = index.get(str(child.get("run_id"))) if isinstance(child, dict) else None
        if found is not None:
            whole = "" if meta.get("totals_include_children") else ", not in this run's totals"
            links.append(
                Link(
                    f"Sub-agent run {found['run_id']} (started by step {child.get('step')}{whole})",
                    paths.run_path(found["suite"], found["task_id"], found["run_id"]),
                )
            )
    parent = index.get(str(meta.get("parent_run_id")))
    if parent is not None:
        step = meta.get("parent_step")
        anchor = f"#step-{step}" if isinstance(step, int) else ""
        where = f", step {step}" if anchor else ""
        links.append(
            Link(
                f"Parent run {parent['run_id']}{where}",
                paths.run_path(parent["suite"], parent["task_id"], parent["run_id"]) + anchor,
            )
        )
    return links


_INDEXES: dict[int, tuple[object, dict[str, dict[str, Any]]]] = {}


def _runs_by_id(data: SiteData) -> dict[str, dict[str, Any]]:
    """data.runs by run id, built once per SiteData."""
    held = _INDEXES.get(id(data))
    if held is None or held[0] is not data:
        held = (data, {r["run_id"]: r for r in data.runs})
        _INDEXES.clear()
        _INDEXES[id(data)] = held
    return held[1]


def run_page(data: SiteData, run: dict[str, Any], nav: list[Link]) -> RunPage:
    """The page of one run."""
    steps = data.steps.get(run["run_id"], [])
    loops = run_loops(steps)
    tree = step_tree(steps)
    falls = waterfall(steps)
    views = step_views(steps, loops=loops, tree=tree, falls=falls)
    meta, notes, scanners = _meta(run["meta"])
    children = sub_runs(data, run)
    family = _family_meta(run)
    view = run_view(run) | cost_view(run)
    trial = f" · trial {run['trial']}" if run["trial"] else ""
    task_href = paths.task_path(run["suite"], run["task_id"])
    src = steps_path(view["href"])
    return RunPage(
        path=view["href"],
        title=f"{view['title'] or run['task_id']} · {run['label']} · {run['batch']}{trial}",
        title_id=view["title"] and run["task_id"],
        nav=nav,
        crumbs=[
            Link(run["suite"], paths.history_path(run["suite"])),
            Link(run["task_id"], task_href),
        ],
        charts=(
            [charts.step_timeline("timeline", views)]
            if any(v.latency_ms is not None for v in views)
            else []
        ),
        run=view,
        meta=meta,
        notes=render_notes(notes, data.redact_notes),
        steps=views,
        loops=loops,
        related=_related(data, run),
        avoidable=run_avoidable(data.spend, run["run_id"]),
        nested=tree.nested,
        tree_note=tree.note,
        span_ms=falls.span_ms if falls is not None else None,
        children=children,
        children_in_totals=(
            bool(family.get("totals_include_children")) if family.get("children") else None
        ),
        scanners=scanners,
        steps_src=src,
        data_files={src: run_steps_script(run["run_id"], steps, views, tree, falls)},
    )


def run_pages(data: SiteData, nav: list[Link]) -> Iterator[LazyPage]:
    """One page per run, built only when its run row, steps, links or navigation changed."""
    for run in data.runs:
        inputs = {
            "nav": nav,
            "run": run,
            "steps": data.step_hashes.get(run["run_id"]),
            "related": _related(data, run),
            "children": sub_runs(data, run),
            "text_limit": RUN_TEXT_LIMIT,
            "avoidable": run_avoidable(data.spend, run["run_id"]),
        }
        path = paths.run_path(run["suite"], run["task_id"], run["run_id"])
        yield LazyPage(path, RunPage.template, inputs, partial(run_page, data, run, nav))


def _pair_row(pair: PairInfo) -> dict[str, Any]:
    """A pair as a row of the task and comparison tables."""
    m = pair.metrics
    loops = m["loops_detected"]
    return {
        "suite": pair.suite,
        "task_id": pair.task_id,
        "batch": pair.batch,
        "trial": pair.trial,
        "href": pair.path,
        "title": pair.title,
        "tdi": m["trajectory_divergence_index"],
        "baseline_wei": m["baseline_wei"],
        "candidate_wei": m["candidate_wei"],
        "wei_change": m["candidate_wei"] - m["baseline_wei"],
        "rsr": m["recovery_step_ratio"],
        "candidate_repeats": sum(
            1 for x in loops if x["side"] == "candidate" and not x["stagnant"]
        ),
        "stagnant_loops": stagnant_loops(m),
        "cost_delta": m["cost_delta_percentage"],
        "token_delta": m["token_delta_percentage"],
        "latency_delta": m["latency_delta_percentage"],
    }


def task_pages(
    data: SiteData, nav: list[Link], kept: frozenset[str] | None = None
) -> Iterator[TaskPage]:
    """One page per (suite, task); with ``kept`` (the nights with step pages, retention.py),
    the rows of older nights link to no step page (theirs is a stand-in)."""
    by_task: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for run in data.runs:
        by_task[(run["suite"], run["task_id"])].append(run)
    pairs_by_task: dict[tuple[str, str], list[tuple[str, PairInfo]]] = defaultdict(list)
    for comparison in data.comparisons or ():
        for pair in comparison.pairs:
            pairs_by_task[(pair.suite, pair.task_id)].append((comparison.name, pair))
    for (suite, task_id), runs in sorted(by_task.items()):
        rows = sorted(
            (run_view(r) for r in runs),
            key=lambda r: (r["batch"], r["label"], r["trial"]),
            reverse=True,
        )
        pair_rows = [
            {**_pair_row(p), "comparison": name}
            for name, p in sorted(
                pairs_by_task[(suite, task_id)],
                key=lambda x: (x[1].batch, x[1].trial, x[0]),
                reverse=True,
            )
        ]
        older = [r for r in (*rows, *pair_rows) if kept is not None and r["batch"] not in kept]
        for row in older:
            row["href"] = None
        series: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        wei: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        for r in runs:
            if r["cost_usd"] is not None:
                series[r["label"]][r["batch"]].append(r["cost_usd"])
            wei[r["label"]][r["batch"]].append(r["wei"])
        name = next((r["title"] for r in rows if r["title"]), None)  # the newest run's
        yield TaskPage(
            path=paths.task_path(suite, task_id),
            title=f"Task {name or task_id}",
            title_id=name and task_id,
            nav=nav,
            crumbs=[Link(suite, paths.history_path(suite))],
            charts=[
                charts.nightly_lines("cost", "Mean cost per run", "USD", _means(series)),
                charts.nightly_lines(
                    "wei", "Wasted Effort Index (mean over trials)", "WEI", _means(wei)
                ),
            ],
            suite=suite,
            task_id=task_id,
            runs=rows,
            pairs=pair_rows,
            kept_nights=len(kept) if kept is not None and older else None,
            convergence=convergence_rows(data, suite, task_id),
        )


def _means(series: dict[str, dict[str, list[float]]]) -> dict[str, list[tuple[str, float | None]]]:
    """Per label, the mean value per night, nights in order."""
    return {
        label: [(night, fmean(vals) if vals else None) for night, vals in sorted(nights.items())]
        for label, nights in series.items()
    }
