"""Words for a comparison: --explain (each number explained) and --tree (the aligned steps).

Agent text (ids, actions) is shown with ``term_text`` (control characters visible) and never
starts a line, so no line of the output can be a CI workflow command (``::error::``)."""

from __future__ import annotations

from typing import Any, Literal

from reportgen.divergence.findings import describe, summary
from reportgen.divergence.records import PairRecord, StepDiff
from reportgen.divergence.run_text import cut
from reportgen.divergence.view import view_rows
from reportgen.divergence.why import SideWhy, Why
from reportgen.escape import term_text

WASTED = {"error", "retry", "abandoned"}


def _fmt(value: float | None, digits: int = 4) -> str:
    if value is None:
        return "unknown"
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.{digits}g}"


Side = Literal["baseline", "candidate"]


def _index(row: StepDiff, side: Side) -> int | None:
    """The step index of one side of a diff row (None: the step is absent on that side)."""
    return row["baseline_index"] if side == "baseline" else row["candidate_index"]


def _side_step(row: StepDiff, side: Side) -> dict[str, Any]:
    """The attached step of one side of a diff row ({} when absent or not attached)."""
    step = row.get("baseline_step") if side == "baseline" else row.get("candidate_step")
    return step or {}


def _side_steps(pair: PairRecord, side: Side) -> list[tuple[int, dict[str, Any]]]:
    rows = [(_index(r, side), _side_step(r, side)) for r in pair["step_diffs"]]
    return sorted(((i, s) for i, s in rows if i is not None), key=lambda item: item[0])


def recovery_windows(pair: PairRecord, side: Side) -> list[dict[str, Any]]:
    """The RSR windows of one side, for explanation: which step opened each, which ok steps
    were counted, which step closed it (re-aligned with the other run), or none."""
    rows = sorted(
        ((i, r) for r in pair["step_diffs"] if (i := _index(r, side)) is not None),
        key=lambda item: item[0],
    )
    windows: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for index, row in rows:
        step = _side_step(row, side)
        aligned = row["baseline_index"] is not None and row["candidate_index"] is not None
        if step.get("status") in WASTED:
            if current is None:
                current = {
                    "opened_at": index,
                    "trigger": f"{step.get('action')} ({step.get('status')})",
                    "counted": [],
                    "closed_at": None,
                }
                windows.append(current)
        elif current is not None:
            current["counted"].append(index)
            if aligned:
                current["closed_at"] = index
                current = None
    return windows


def first_divergence(pair: PairRecord) -> dict[str, Any] | None:
    """Where the two step sequences first part (the end of their common prefix, in alignment
    order), whatever rows the LCS traceback pairs: its position and each side's step index
    there (None: that run has ended). None when the two runs take the same path."""
    record: dict[str, Any] = dict(pair)
    if "first_divergence" in record:
        first = record["first_divergence"]
        return None if first is None else dict(first)
    # a record without the field (written by an older reportgen): the first unmatched row
    for position, row in enumerate(pair["step_diffs"]):
        if row["status"] != "matched":
            return {
                "position": position,
                "baseline_index": row["baseline_index"],
                "candidate_index": row["candidate_index"],
            }
    return None


def _action(steps: dict[int, dict[str, Any]], index: int | None) -> str:
    return "" if index is None else str(steps.get(index, {}).get("action", ""))


def _first_line(pair: PairRecord, first: dict[str, Any]) -> str:
    """The first divergence in words."""
    base = dict(_side_steps(pair, "baseline"))
    cand = dict(_side_steps(pair, "candidate"))
    b, c = first["baseline_index"], first["candidate_index"]
    same = first["position"]
    prefix = f"the first {same} step(s) take the same path" if same else "from the first step"
    if b is None:
        where = f"the baseline ends; the candidate goes on with step #{c} {_action(cand, c)}"
    elif c is None:
        where = f"the candidate ends; the baseline goes on with step #{b} {_action(base, b)}"
    else:
        where = f"baseline step #{b} {_action(base, b)} vs candidate step #{c} {_action(cand, c)}"
    return f"  First divergence at step {same} of the path ({prefix}): {where}."


#: Most stable findings --explain lists by name for one pair.
FINDINGS_SHOWN = 12


def finding_lines(pair: PairRecord) -> list[str]:
    """The pair's trajectory findings: the stable ones (the baseline's own repeats do not show
    them) by name, the flapping ones folded into a count, or why they cannot be told apart."""
    if "findings" not in pair:
        return []
    found = summary(pair["findings"])
    return [found.headline, *found.detail_lines(describe, FINDINGS_SHOWN, "  ")]


def _loop_lines(pair: PairRecord) -> list[str]:
    """Stagnant loops are loops; other back-to-back repeats are repeats (no alarm)."""
    loops = pair["loops_detected"]
    lines = []
    if not any(loop["stagnant"] for loop in loops):
        lines.append("Loops: none (no block of steps repeats back to back unchanged).")
    for loop in loops:
        what = "Loop" if loop["stagnant"] else "Repeat"
        kind = (
            "stagnant: same input and output every time"
            if loop["stagnant"]
            else "inputs or outputs change, so not a loop"
        )
        lines.append(
            f"{what} ({loop['side']}): [{', '.join(loop['steps'])}] x {loop['iterations']} from"
            f" step #{loop['start_index']} ({kind})."
        )
    if "candidate_identical_calls" in pair:
        lines.append(
            f"Identical calls (same action, input and output as an earlier step, anywhere in the"
            f" run): baseline {pair['baseline_identical_calls']},"
            f" candidate {pair['candidate_identical_calls']}."
        )
    for side in ("baseline", "candidate"):
        if pair.get(f"{side}_parent_cycle"):
            lines.append(
                f"Note: the {side}'s parent links form a cycle, so its steps are aligned in"
                " step order (as AgentDiff does)."
            )
    return lines


#: Most lines and characters per line of one agent text (goal, answer, reason) in --explain.
TEXT_LINES, TEXT_CHARS = 4, 160
#: Lines of a scorer's reason shown (a benchmark lists its failed checks one a line).
SCORER_LINES = 12


def _block(label: str, text: str | None, most: int = TEXT_LINES) -> list[str]:
    """``label: text`` over a few lines, each further line led by ``  | `` (agent text never
    starts a line), cut to ``most`` lines of TEXT_CHARS characters."""
    if text is None:
        return [f"{label}: none given."]
    lines = [line for line in text.strip().split("\n") if line.strip()] or [""]
    shown = [cut(line.rstrip(), TEXT_CHARS) for line in lines[:most]]
    out = [f"{label}: {shown[0]}", *(f"  | {line}" for line in shown[1:])]
    if len(lines) > most:
        out.append(f"  | ... {len(lines) - most} more line(s)")
    return out


def _outcome(side: SideWhy) -> str:
    if side.outcome == "error":  # the infrastructure's, not the agent's: not scored
        return f"error, not scored ({term_text(side.infrastructure or 'infrastructure')})"
    reward = "" if side.reward is None else f" (reward {_fmt(side.reward)})"
    return side.outcome + reward


def why_lines(why: Why, divergence: bool = True) -> list[str]:
    """The pair's why (divergence/why.py) as lines of text: goal, outcomes and the scorer's
    reasons, the two final answers, where the paths part and the first error."""
    lines = _block("Goal" if why.baseline_goal is None else "Goal (candidate)", why.goal)
    if why.baseline_goal is not None:
        lines += _block("Goal (baseline)", why.baseline_goal)
    lines.append(
        f"Outcome: baseline {_outcome(why.baseline)}, candidate {_outcome(why.candidate)}."
    )
    for name, side in (("baseline", why.baseline), ("candidate", why.candidate)):
        if side.scorer is not None:
            # the scorer's reasons are the why itself (the check that failed comes last)
            lines += _block(f"Scorer ({name})", side.scorer, SCORER_LINES)
    for name, side in (("baseline", why.baseline), ("candidate", why.candidate)):
        lines += _block(f"Final answer ({name})", side.final_answer)
    answer = why.baseline.final_answer
    if answer is not None and answer == why.candidate.final_answer:
        lines.append("  The two final answers are the same.")
    first = why.first_divergence
    if not divergence:
        pass  # the caller explains the divergence itself
    elif first is None:
        lines.append("Paths: the same (every step aligned in order).")
    else:
        b = (
            "ended"
            if first.baseline_index is None
            else f"#{first.baseline_index} {first.baseline_action}"
        )
        c = (
            "ended"
            if first.candidate_index is None
            else f"#{first.candidate_index} {first.candidate_action}"
        )
        lines.append(f"First divergence (row {first.position}): baseline {b} vs candidate {c}.")
    error = why.first_error
    if error is None:
        lines.append("First error: none (no step failed).")
    else:
        lines += _block(
            f"First error ({error.side} step #{error.index} {error.action})", error.text
        )
    return lines


def explain(pair: PairRecord, why: Why | None = None) -> str:
    """Every number of one pair in words, with what is needed to check it by hand; led by the
    pair's why (goal, outcomes, answers, first error) when given."""
    lines = [f"== {pair['pair_id']}  ({pair['baseline_run_id']} -> {pair['candidate_run_id']})"]
    if why is not None:
        lines += why_lines(why, divergence=False)  # the TDI's lines below say where paths part
    base, cand = _side_steps(pair, "baseline"), _side_steps(pair, "candidate")
    matched = sum(
        1
        for r in pair["step_diffs"]
        if r["baseline_index"] is not None and r["candidate_index"] is not None
    )
    lines.append(
        f"Trajectory divergence {pair['trajectory_divergence_index']:.4f} = 1 - 2 x {matched} aligned steps"
        f" / ({len(base)} baseline + {len(cand)} candidate steps)."
    )
    first = first_divergence(pair)
    if first is None:
        lines.append("  The two runs take the same path: every step is aligned in order.")
    else:
        lines.append(_first_line(pair, first))
    for side, steps, wei in (
        ("baseline", base, pair["baseline_wei"]),
        ("candidate", cand, pair["candidate_wei"]),
    ):
        wasted = [
            f"#{i} {s.get('action')} ({s.get('status')})"
            for i, s in steps
            if s.get("status") in WASTED
        ]
        shown = ", ".join(wasted[:8]) + (" ..." if len(wasted) > 8 else "")
        lines.append(
            f"Wasted effort ({side}) {wei:.4f} = {len(wasted)} error/retry/abandoned of {len(steps)} steps"
            + (f": {shown}." if wasted else ".")
        )
    lines.extend(finding_lines(pair))
    lines.extend(_loop_lines(pair))
    sides: tuple[Side, Side] = ("baseline", "candidate")
    for side in sides:
        for window in recovery_windows(pair, side):
            counted = ", ".join(f"#{i}" for i in window["counted"]) or "none"
            end = (
                f"closed at #{window['closed_at']}, which re-aligns with the other run"
                if window["closed_at"] is not None
                else "never re-aligns (unrecovered)"
            )
            lines.append(
                f"Recovery ({side}): opened by #{window['opened_at']} {window['trigger']}; ok steps counted: {counted}; {end}."
            )
    b_rec, c_rec = pair["baseline_recovery_steps"], pair["candidate_recovery_steps"]
    if b_rec:
        rule = f"{c_rec} / {b_rec}"
    elif c_rec:
        rule = f"{c_rec} (the baseline needed no recovery, so the raw candidate count)"
    else:
        rule = "0 (no recovery on either side)"
    lines.append(
        f"Recovery step ratio {pair['recovery_step_ratio']:.4f} = {rule}; unrecovered steps: "
        f"baseline {pair['baseline_unrecovered_steps']}, candidate {pair['candidate_unrecovered_steps']}."
    )
    bt, ct = pair["baseline_totals"], pair["candidate_totals"]
    for key, before, after, value, note, unit in (
        ("cost", bt["cost_usd"], ct["cost_usd"], pair["cost_delta_percentage"],
         pair.get("cost_delta_note"), "USD"),
        ("token", bt["tokens"], ct["tokens"], pair["token_delta_percentage"],
         pair.get("token_delta_note"), "tokens"),
        ("latency", bt["latency_ms"], ct["latency_ms"], pair["latency_delta_percentage"],
         pair.get("latency_delta_note"), "ms"),
    ):  # fmt: skip
        change = note if value is None else f"{value:+.2f}%"
        lines.append(f"{key.title()} {_fmt(before)} -> {_fmt(after)} {unit}: {change}.")
    culprit = likely_culprit(pair)
    if culprit:
        lines.append(f"Likely culprit: {culprit}.")
    for violation in pair.get("violations", []):
        lines.append(
            f"GATE FAILED: {violation['metric']} {violation['value']:.4g} > {violation['threshold']:g}"
            f" ({violation['source']})."
        )
    return "\n".join(term_text(line) for line in lines)


def likely_culprit(pair: PairRecord) -> str | None:
    """The candidate step most likely to have sent the run off course: the first wasted
    candidate step from the first step that differs (a step of the common path whose status,
    input or output changed, or the first divergence), else the step where the paths part
    (the candidate's, or the baseline's when the candidate has ended)."""
    first = first_divergence(pair)
    if first is None:
        return None
    cand = _side_steps(pair, "candidate")
    prefix = view_rows(pair)[: first["position"]]
    changed = [r["candidate_index"] for r in prefix if r["status"] != "matched"]
    start = changed[0] if changed else first["candidate_index"]
    if start is not None:
        for index, step in cand:
            if index >= start and step.get("status") in WASTED:
                return f"candidate step #{index} {step.get('action')} ({step.get('status')})"
    c = first["candidate_index"]
    if c is not None:
        return f"candidate step #{c} {_action(dict(cand), c)} (where the paths part)"
    b = first["baseline_index"]
    base = dict(_side_steps(pair, "baseline"))
    return f"baseline step #{b} {_action(base, b)} (the candidate stops before it)"


_MARK = {"matched": " ", "added": "+", "removed": "-", "modified": "~"}


def tree(pair: PairRecord, context: int = 1) -> str:
    """The aligned step list: runs of matched steps collapsed, added ``+``, removed ``-``,
    modified ``~``, with ``context`` matched steps kept around each change."""
    rows = view_rows(pair)  # drawn matching as early as possible (divergence/view.py)
    keep = {i for i, r in enumerate(rows) if r["status"] != "matched"}
    keep |= {
        j for i in list(keep) for j in range(i - context, i + context + 1) if 0 <= j < len(rows)
    }
    lines = [
        f"== {pair['pair_id']}: baseline {pair['baseline_run_id']} vs candidate {pair['candidate_run_id']}"
    ]
    hidden = 0
    for i, row in enumerate(rows):
        if i not in keep:
            hidden += 1
            continue
        if hidden:
            lines.append(f"    ... {hidden} matched step(s)")
            hidden = 0
        b = "" if row["baseline_index"] is None else f"b#{row['baseline_index']}"
        c = "" if row["candidate_index"] is None else f"c#{row['candidate_index']}"
        status = (row.get("candidate_step") or row.get("baseline_step") or {}).get("status", "")
        lines.append(f"  {_MARK[row['status']]} {b:>5} {c:>5}  {row['action']}  [{status}]")
    if hidden:
        lines.append(f"    ... {hidden} matched step(s)")
    return "\n".join(term_text(line) for line in lines)
