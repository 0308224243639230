"""Why a pair came out as it did, in the words of its runs: the goal the agent was given,
each side's outcome with the scorer's reason and final answer, a word diff of the two
answers, where the two paths part and the first error. Computed once here, from a pair record
and its two runs' rows; the pair page and ``--explain`` only show it.

All text in it is agent text (untrusted): every medium escapes it
(:mod:`reportgen.escape`, the site's autoescape)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import duckdb

from reportgen._sql import load_sql
from reportgen.divergence import run_text
from reportgen.divergence.records import PairRecord
from reportgen.divergence.reference import normalise_status
from reportgen.divergence.textdiff import WordDiff, word_pieces

#: ``error``: the infrastructure ended the run (runs.error_kind): not scored, not the agent's.
Outcome = Literal["success", "failure", "error", "unknown"]
Side = Literal["baseline", "candidate"]
#: Longest error text kept (the step tables hold the whole step).
ERROR_CHARS = 2000


@dataclass(frozen=True, slots=True)
class StepError:
    """The first step of one side that failed: its index, action and error text (the step's
    error message, else its output)."""

    side: Side
    index: int
    action: str
    text: str


@dataclass(frozen=True, slots=True)
class SideWhy:
    """One run of the pair in words (None: the run does not say)."""

    outcome: Outcome
    reward: float | None
    final_answer: str | None
    scorer: str | None  # the scorer's reason (meta.scorer)
    first_error: StepError | None
    infrastructure: str | None = None  # "environment: <reason>" when the outcome is error


@dataclass(frozen=True, slots=True)
class Divergence:
    """Where the two paths part: the row of the aligned steps (``position``, the length of
    their common prefix) and each side's step there (None: that run has ended)."""

    position: int
    baseline_index: int | None
    baseline_action: str | None
    candidate_index: int | None
    candidate_action: str | None


@dataclass(frozen=True, slots=True)
class Why:
    """A pair in words. ``goal``: the candidate's goal, else the baseline's; ``baseline_goal``:
    the baseline's, only when both runs have one and they differ. ``answers_diff``: the
    baseline's final answer → the candidate's, word by word (None: equal or one missing).
    ``first_error``: the candidate's first error, else the baseline's."""

    goal: str | None
    baseline_goal: str | None
    baseline: SideWhy
    candidate: SideWhy
    answers_diff: WordDiff | None
    first_divergence: Divergence | None
    first_error: StepError | None


def outcome(success: bool | None) -> Outcome:
    """A run's outcome in one word."""
    return "unknown" if success is None else "success" if success else "failure"


def _payload(value: Any) -> str:
    """A step's output as text: JSON text parsed, strings bare, other values as JSON."""
    if isinstance(value, str):
        text: str = value
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            return text
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def failed(step: Mapping[str, Any]) -> bool:
    """A step that failed: status error, or an error message given."""
    return normalise_status(str(step.get("status", ""))) == "error" or bool(step.get("error"))


def first_error(side: Side, steps: Iterable[tuple[int, Mapping[str, Any]]]) -> StepError | None:
    """The first failed step of ``steps`` ((index, step) in step order)."""
    for index, step in steps:
        if failed(step):
            text = str(step.get("error") or "") or _payload(step.get("output"))
            return StepError(
                side, index, str(step.get("action", "")), run_text.cut(text, ERROR_CHARS)
            )
    return None


Steps = Sequence[Mapping[str, Any]]


def _attached(pair: PairRecord, side: Side) -> dict[int, Mapping[str, Any]]:
    """One side's steps as the pair's step_diffs rows carry them (``--explain``), by index."""
    out: dict[int, Mapping[str, Any]] = {}
    for row in pair["step_diffs"]:
        index = row["baseline_index"] if side == "baseline" else row["candidate_index"]
        step = row.get("baseline_step") if side == "baseline" else row.get("candidate_step")
        if index is not None and step:
            out[index] = step
    return out


def _by_index(steps: Steps | None, pair: PairRecord, side: Side) -> dict[int, Mapping[str, Any]]:
    if steps is None:
        return _attached(pair, side)
    return {int(s["idx"]): s for s in steps}


def _side(
    run: Mapping[str, Any],
    success: bool | None,
    reward: float | None,
    error: StepError | None,
    infrastructure: tuple[Any, Any] = (None, None),
) -> SideWhy:
    answer = run.get("output")
    kind, reason = infrastructure
    return SideWhy(
        outcome="error" if kind else outcome(success),
        reward=reward,
        final_answer=answer if isinstance(answer, str) and answer.strip() else None,
        scorer=run_text.scorer(run.get("meta")),
        first_error=error,
        infrastructure=f"{kind}: {reason}" if kind and reason else kind or None,
    )


def _divergence(
    pair: PairRecord, base: Mapping[int, Mapping[str, Any]], cand: Mapping[int, Mapping[str, Any]]
) -> Divergence | None:
    where = pair.get("first_divergence")
    if where is None:
        return None
    b, c = where["baseline_index"], where["candidate_index"]

    def action(steps: Mapping[int, Mapping[str, Any]], index: int | None) -> str | None:
        return None if index is None or index not in steps else str(steps[index].get("action"))

    return Divergence(where["position"], b, action(base, b), c, action(cand, c))


def why(
    pair: PairRecord,
    baseline: Mapping[str, Any],
    candidate: Mapping[str, Any],
    baseline_steps: Steps | None = None,
    candidate_steps: Steps | None = None,
) -> Why:
    """The why of one pair, from its record and its two runs' rows (``meta``, ``output``,
    ``success``, ``reward``; the pair's outcomes where a row lacks them). The steps (dicts
    with ``idx``, ``action``, ``status``, ``error``, ``output``) default to those the
    record's step_diffs rows carry."""
    base_steps = _by_index(baseline_steps, pair, "baseline")
    cand_steps = _by_index(candidate_steps, pair, "candidate")
    base_error = first_error("baseline", sorted(base_steps.items()))
    cand_error = first_error("candidate", sorted(cand_steps.items()))

    def given(value: Any, recorded: Any) -> Any:
        return recorded if value is None else value

    base = _side(
        baseline,
        given(baseline.get("success"), pair.get("baseline_success")),
        given(baseline.get("reward"), pair.get("baseline_reward")),
        base_error,
        (pair.get("baseline_error_kind"), pair.get("baseline_error_reason")),
    )
    cand = _side(
        candidate,
        given(candidate.get("success"), pair.get("candidate_success")),
        given(candidate.get("reward"), pair.get("candidate_reward")),
        cand_error,
        (pair.get("candidate_error_kind"), pair.get("candidate_error_reason")),
    )
    base_goal, cand_goal = run_text.goal(baseline.get("meta")), run_text.goal(candidate.get("meta"))
    answers = (
        word_pieces(base.final_answer, cand.final_answer)
        if base.final_answer is not None and cand.final_answer is not None
        else None
    )
    return Why(
        goal=cand_goal or base_goal,
        baseline_goal=base_goal if cand_goal and base_goal and base_goal != cand_goal else None,
        baseline=base,
        candidate=cand,
        answers_diff=answers,
        first_divergence=_divergence(pair, base_steps, cand_steps),
        first_error=cand_error or base_error,
    )


def run_texts(con: duckdb.DuckDBPyConnection, run_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The rows ``why`` reads (meta, output, success, reward) of ``run_ids``, by run id, in one
    query."""
    ids = sorted(set(run_ids))
    table = con.sql(load_sql("run_texts"), params={"run_ids": ids}).to_arrow_table()
    return {row["run_id"]: row for row in table.to_pylist()}


def pair_whys(con: duckdb.DuckDBPyConnection, pairs: Sequence[PairRecord]) -> list[Why]:
    """The why of every pair (its steps from the records' step_diffs), the runs read in one
    query."""
    rows = run_texts(con, (r[k] for r in pairs for k in ("baseline_run_id", "candidate_run_id")))
    return [
        why(p, rows.get(p["baseline_run_id"], {}), rows.get(p["candidate_run_id"], {}))
        for p in pairs
    ]
