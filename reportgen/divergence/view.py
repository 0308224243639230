"""The aligned steps as the diff views draw them (``--tree``, the pair page).

The metrics and ``step_diffs`` of ``--json`` keep AgentDiff's alignment: the standard
traceback from the end, which on ties may pair a step with a late twin (τ² task 24: the
opening greeting with the candidate's step 16). A reader expects the common opening to line
up, so the views draw, among the alignments of the same (longest) length, the one that
matches earliest: the same traceback run from the start (on both sequences reversed). It has
the same number of aligned steps, so TDI is the same; RSR and the JSON rows stay AgentDiff's.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from reportgen.divergence.records import PairRecord, StepDiff
from reportgen.divergence.reference import (
    align,
    argument_diff,
    canonical_json,
    normalise_status,
)


def _order(rows: Sequence[StepDiff], key: str) -> list[int]:
    """One side's step indices in alignment order (the order the rows visit them)."""
    return [i for r in rows if (i := r[key]) is not None]  # type: ignore[literal-required]


def earliest_rows(
    rows: Sequence[StepDiff],
    b_sig: Sequence[Hashable],
    c_sig: Sequence[Hashable],
    b_state: Sequence[Hashable],
    c_state: Sequence[Hashable],
) -> list[StepDiff]:
    """``rows`` (one pair's step_diffs) realigned to match as early as possible.

    ``*_sig[i]``: the signature of step i of each run (steps match when equal); ``*_state[i]``:
    what makes a match "modified" when it differs (status, canonical input and output, error
    message). The
    rows keep their attached steps; a modified row gets its ``argument_diff`` when the steps
    are attached."""
    b_order, c_order = _order(rows, "baseline_index"), _order(rows, "candidate_index")
    if not b_order or not c_order:
        return list(rows)
    by_b = {r["baseline_index"]: r for r in rows if r["baseline_index"] is not None}
    by_c = {r["candidate_index"]: r for r in rows if r["candidate_index"] is not None}
    nb, nc = len(b_order), len(c_order)
    backwards = align([b_sig[i] for i in reversed(b_order)], [c_sig[j] for j in reversed(c_order)])
    out: list[StepDiff] = []
    for bi, ci in reversed(backwards):
        b = None if bi is None else b_order[nb - 1 - bi]
        c = None if ci is None else c_order[nc - 1 - ci]
        if c is None:
            assert b is not None
            row = by_b[b]
            out.append(_row("removed", b, None, row["action"], row.get("baseline_step"), None))
        elif b is None:
            row = by_c[c]
            out.append(_row("added", None, c, row["action"], None, row.get("candidate_step")))
        else:
            status = "matched" if b_state[b] == c_state[c] else "modified"
            bs, cs = by_b[b].get("baseline_step"), by_c[c].get("candidate_step")
            out.append(_row(status, b, c, by_b[b]["action"], bs, cs))
    return out


def _row(
    status: str,
    b: int | None,
    c: int | None,
    action: str,
    b_step: dict[str, Any] | None,
    c_step: dict[str, Any] | None,
) -> StepDiff:
    row: dict[str, Any] = {
        "status": status,
        "baseline_index": b,
        "candidate_index": c,
        "action": action,
        "baseline_step": b_step,
        "candidate_step": c_step,
    }
    if status == "modified" and (b_step is not None or c_step is not None):
        row["argument_diff"] = argument_diff(
            None if b_step is None else b_step.get("input"),
            None if c_step is None else c_step.get("input"),
        )
    return row  # type: ignore[return-value]


def _sig(step: dict[str, Any]) -> Hashable:
    inp = step.get("input")
    keys = tuple(sorted(inp)) if isinstance(inp, dict) else ()
    return (step.get("type"), step.get("action"), keys)


def _state(step: dict[str, Any]) -> Hashable:
    return (
        normalise_status(str(step.get("status"))),
        canonical_json(step.get("input")),
        canonical_json(step.get("output")),
        step.get("error"),
    )


def view_rows(pair: PairRecord) -> list[StepDiff]:
    """The pair's rows as the diff views draw them, from the steps attached to its rows
    (``compare`` attaches them); rows without attached steps are returned as they are."""
    rows = pair["step_diffs"]
    b_steps: dict[int, dict[str, Any]] = {}
    c_steps: dict[int, dict[str, Any]] = {}
    for r in rows:
        b, c = r["baseline_index"], r["candidate_index"]
        if b is not None:
            step = r.get("baseline_step")
            if step is None:
                return list(rows)
            b_steps[b] = step
        if c is not None:
            step = r.get("candidate_step")
            if step is None:
                return list(rows)
            c_steps[c] = step
    nb = max(b_steps, default=-1) + 1
    nc = max(c_steps, default=-1) + 1
    b_sig = [_sig(b_steps[i]) if i in b_steps else None for i in range(nb)]
    c_sig = [_sig(c_steps[j]) if j in c_steps else None for j in range(nc)]
    b_state = [_state(b_steps[i]) if i in b_steps else None for i in range(nb)]
    c_state = [_state(c_steps[j]) if j in c_steps else None for j in range(nc)]
    return earliest_rows(rows, b_sig, c_sig, b_state, c_state)
