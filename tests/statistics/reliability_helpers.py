"""Small archives for the reliability profile's tests: runs and tool steps inserted straight
into an in-memory archive, and a slow pure-Python reference of every measure."""

from __future__ import annotations

import json
import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

import duckdb

from reportgen.archive import connect


@dataclass(frozen=True)
class Run:
    task: str
    trial: int
    success: bool | None = True
    tools: Sequence[str] = ()
    cost: float | None = None
    tokens: int | None = None
    latency: float | None = None
    label: str = "a"
    batch: str = "n1"
    suite: str = "s"
    perturbation: str | None = None
    error_kind: str | None = None
    run_id: str = field(default="")

    @property
    def id(self) -> str:
        return self.run_id or f"{self.label}/{self.batch}/{self.suite}/{self.task}#{self.trial}"


def archive(runs: Sequence[Run]) -> duckdb.DuckDBPyConnection:
    """An in-memory archive holding ``runs`` (each tool call one step of type 'tool')."""
    con = connect(None)
    if not runs:
        return con
    con.executemany(
        "INSERT INTO runs (run_id, suite, label, task_id, batch, trial, meta, success, "
        "tokens_in, tokens_out, cost_usd, latency_ms, n_steps, format, source_file, "
        "content_hash, error_kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, 'native', "
        "'x', 'h', ?)",
        [
            (
                r.id, r.suite, r.label, r.task, r.batch, r.trial,
                None if r.perturbation is None else json.dumps({"perturbation": r.perturbation}),
                r.success, r.tokens, r.cost, r.latency, len(r.tools), r.error_kind,
            )
            for r in runs
        ],
    )  # fmt: skip
    steps = [(r.id, k, tool) for r in runs for k, tool in enumerate(r.tools)]
    if steps:
        con.executemany(
            "INSERT INTO steps (run_id, idx, type, action, input_keys, status) "
            "VALUES (?, ?, 'tool', ?, [], 'ok')",
            steps,
        )
    return con


# --- the slow reference: a direct loop over tasks and pairs of trials -----------------------


def _groups(runs: Sequence[Run]) -> dict[tuple[str, str], dict[tuple[str, str], list[Run]]]:
    out: dict[tuple[str, str], dict[tuple[str, str], list[Run]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for r in runs:
        if r.error_kind is None:
            out[(r.label, r.batch)][(r.suite, r.task)].append(r)
    return out


def _clean(r: Run) -> bool:
    return (r.perturbation or "").lower() in ("", "false", "none", "clean")


def js_distance(a: Sequence[str], b: Sequence[str]) -> float:
    """Jensen-Shannon distance (base 2) of two runs' tool-call frequencies, by the book."""
    if not a and not b:
        return 0.0
    if not a or not b:
        return 1.0
    ca, cb = Counter(a), Counter(b)
    total = 0.0
    for tool in set(ca) | set(cb):
        p, q = ca[tool] / len(a), cb[tool] / len(b)
        m = (p + q) / 2
        total += (p * math.log2(p / m) if p else 0.0) / 2 + (q * math.log2(q / m) if q else 0.0) / 2
    return min(1.0, math.sqrt(max(total, 0.0)))


def reference(runs: Sequence[Run]) -> dict[tuple[str, str, str], tuple[int, float]]:
    """(label, batch, measure) -> (n_tasks, mean over tasks), computed run by run."""
    out: dict[tuple[str, str, str], tuple[int, float]] = {}
    for (label, batch), tasks in _groups(runs).items():
        per: dict[str, list[float]] = defaultdict(list)
        for trials in tasks.values():
            clean = [r for r in trials if _clean(r)]
            scored = [r for r in clean if r.success is not None]
            if len(scored) >= 2:
                p = sum(bool(r.success) for r in scored) / len(scored)
                per["outcome_consistency"].append(1 - 4 * p * (1 - p))
            if len(clean) >= 2:
                pairs = list(combinations(clean, 2))
                d = sum(js_distance(x.tools, y.tools) for x, y in pairs) / len(pairs)
                per["tool_consistency"].append(1 - d)
            for name, attr in (
                ("cost_consistency", "cost"),
                ("token_consistency", "tokens"),
                ("latency_consistency", "latency"),
            ):
                values = [float(getattr(r, attr)) for r in clean if getattr(r, attr) is not None]
                if len(values) >= 2 and statistics.fmean(values) > 0:
                    cv = statistics.stdev(values) / statistics.fmean(values)
                    per[name].append(1 - min(cv, 1.0))
            perturbed = [r for r in trials if not _clean(r) and r.success is not None]
            if perturbed and scored:
                pp = sum(bool(r.success) for r in perturbed) / len(perturbed)
                pc = sum(bool(r.success) for r in scored) / len(scored)
                per["robustness"].append(pp - pc)
        for name, values in per.items():
            out[(label, batch, name)] = (len(values), statistics.fmean(values))
    return out
