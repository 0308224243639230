"""The data an iteration page needs, as JSON-able dicts (the site builds its pages from these).

``page_data`` serves one run's page; ``compare_page_data`` two runs on the same backlog side by
side. Both read analyse(), so the page shows the numbers the CLI and the gates use."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import duckdb

from reportgen.errors import InputError
from reportgen.iterations.analysis import analyse
from reportgen.iterations.model import RunProgress, StepProgress

PAGE_FORMAT = 1


def page_data(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, Any]:
    """One run: summary, per-step series (resolved / persisting / new counts, n_failing, patch
    distance, diff volume, tool error rate, spend per attempt), thrash evidence, and a run-wide
    progress series (certified steps against cumulative spend)."""
    run = _one(con, run_id)
    return {
        "format": PAGE_FORMAT,
        "run_id": run.run_id,
        "summary": _summary(run),
        "steps": [_step(step) for step in run.steps],
        "progress": _progress(run),
    }


def compare_page_data(con: duckdb.DuckDBPyConnection, run_a: str, run_b: str) -> dict[str, Any]:
    """Two runs on the same backlog: each summary, and per step (in backlog order: first seen
    in either run) how each run fared, plus both progress series for one chart."""
    a, b = _one(con, run_a), _one(con, run_b)
    steps_a = {s.step: s for s in a.steps}
    steps_b = {s.step: s for s in b.steps}
    order = list(dict.fromkeys([s.step for s in a.steps] + [s.step for s in b.steps]))
    return {
        "format": PAGE_FORMAT,
        "runs": [_summary(a), _summary(b)],
        "steps": [
            {"step": name, "a": _brief(steps_a.get(name)), "b": _brief(steps_b.get(name))}
            for name in order
        ],
        "progress": {"a": _progress(a), "b": _progress(b)},
    }


def _one(con: duckdb.DuckDBPyConnection, run_id: str) -> RunProgress:
    runs = analyse(con, [run_id])
    if not runs:
        raise InputError(run_id, "no iteration records for this run")
    return runs[0]


def _summary(run: RunProgress) -> dict[str, Any]:
    data = run.to_dict()
    del data["steps"]
    return data


def _step(step: StepProgress) -> dict[str, Any]:
    attempts = step.attempts
    return {
        "step": step.step,
        "certified": step.certified,
        "certified_attempt": step.certified_attempt,
        "certified_iter": step.certified_iter,
        "check": step.check,
        "check_kind": step.check_kind,
        "normaliser": step.normaliser,
        "n_attempts": step.n_attempts,
        "tokens": step.tokens,
        "usd": step.usd,
        "thrash": None
        if step.thrash is None
        else {**asdict(step.thrash), "evidence": step.thrash.evidence()},
        "series": {
            "attempt": [a.attempt for a in attempts],
            "iter": [a.iter for a in attempts],
            "n_failing": [a.n_failing for a in attempts],
            "resolved": [_len(a.resolved) for a in attempts],
            "persisting": [_len(a.persisting) for a in attempts],
            "new": [_len(a.new) for a in attempts],
            "patch_distance": [a.patch_distance for a in attempts],
            "diff_volume": [a.diff_volume for a in attempts],
            "tool_error_rate": [a.tool_error_rate for a in attempts],
            "tokens": [a.tokens for a in attempts],
            "usd": [a.usd for a in attempts],
            "certified": [a.certified for a in attempts],
        },
    }


def _brief(step: StepProgress | None) -> dict[str, Any] | None:
    if step is None:
        return None
    return {
        "n_attempts": step.n_attempts,
        "certified": step.certified,
        "certified_attempt": step.certified_attempt,
        "check_kind": step.check_kind,
        "thrash": bool(step.thrash and step.thrash.flagged),
        "n_failing_last": step.attempts[-1].n_failing if step.attempts else None,
        "tokens": step.tokens,
        "usd": step.usd,
    }


def _progress(run: RunProgress) -> dict[str, list[Any]]:
    """Per iteration: cumulative tokens and USD, and how many steps were certified by then."""
    rows = sorted(((a.iter, s.step, a) for s in run.steps for a in s.attempts), key=lambda r: r[0])
    certified_at = {s.certified_iter for s in run.steps if s.certified_iter is not None}
    iters: list[int] = []
    steps: list[str] = []
    tokens: list[int] = []
    usd: list[float] = []
    certified: list[int] = []
    total_tokens, total_usd, done = 0, 0.0, 0
    for iteration, name, attempt in rows:
        total_tokens += attempt.tokens
        total_usd += attempt.usd
        done += iteration in certified_at
        iters.append(iteration)
        steps.append(name)
        tokens.append(total_tokens)
        usd.append(round(total_usd, 6))
        certified.append(done)
    return {
        "iter": iters,
        "step": steps,
        "cumulative_tokens": tokens,
        "cumulative_usd": usd,
        "certified_steps": certified,
    }


def _len(ids: list[str] | None) -> int | None:
    return None if ids is None else len(ids)
