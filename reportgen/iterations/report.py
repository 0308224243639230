"""The iteration report: the per-step trajectory table and the run summary, as text (rich),
Markdown or JSON. Formatting only; every number comes from analyse()."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from reportgen.divergence.tables import capped_markdown, fit_markdown
from reportgen.escape import term_text
from reportgen.iterations.checks import BUILD_ONLY
from reportgen.iterations.gates import GateVerdict, IterationGates
from reportgen.iterations.model import Attempt, RunProgress, StepProgress

REPORT_FORMAT = "reportgen.iterations/1"
COLUMNS = (
    "iter",
    "attempt",
    "n_failing",
    "resolved",
    "persisting",
    "new",
    "patch lines",
    "patch distance",
    "tool errors",
    "tokens",
    "usd",
    "certified",
)
UNKNOWN = "-"


def report_data(
    runs: Sequence[RunProgress], verdicts: Sequence[GateVerdict], gates: IterationGates
) -> dict[str, Any]:
    """The report for ``--json``: format version, runs, gate thresholds and verdicts."""
    return {
        "format": REPORT_FORMAT,
        "runs": [run.to_dict() for run in runs],
        "gates": {
            "thresholds": {
                "max_spend_per_certified_step": gates.max_spend_per_certified_step,
                "max_tool_error_rate": gates.max_tool_error_rate,
                "fail_on_thrash": gates.fail_on_thrash,
            },
            "sources": dict(gates.sources),
            "verdicts": [v.to_dict() for v in verdicts],
            "passed": all(v.passed for v in verdicts),
        },
    }


def attempt_cells(a: Attempt) -> list[str]:
    """One trajectory row, in COLUMNS order; unknown values shown as a dash."""
    return [
        str(a.iter),
        str(a.attempt),
        _num(a.n_failing),
        _count(a.resolved),
        _count(a.persisting),
        _count(a.new),
        _num(a.patch_lines),
        UNKNOWN if a.patch_distance is None else f"{a.patch_distance:.2f}",
        _tool_errors(a),
        f"{a.tokens:,}",
        f"{a.usd:.4f}",
        "yes" if a.certified else "no",
    ]


def summary_lines(run: RunProgress) -> list[str]:
    """The run summary: certified steps, spend per certified step, marginal spend, tool
    errors and thrash."""
    of = (
        _plural(run.n_steps, "step")
        if run.backlog_steps is None
        else f"{_plural(run.backlog_steps, 'backlog step')} ({run.n_steps} attempted)"
    )
    lines = [
        f"certified {run.certified_steps} of {of} in "
        f"{_plural(run.n_attempts, 'attempt')} "
        f"(iterations {run.first_iter}-{run.last_iter})",
        f"spend {run.tokens:,} tokens, ${run.usd:.2f}",
    ]
    if run.tokens_per_certified_step is None or run.usd_per_certified_step is None:
        lines.append(f"spend per certified step: unknown ({run.per_certified_reason})")
    else:
        lines.append(
            f"spend per certified step: {run.tokens_per_certified_step:,.0f} tokens, "
            f"${run.usd_per_certified_step:.2f}"
        )
    since = (
        "since the start (nothing certified)"
        if run.last_certified_iter is None
        else f"since the last certification (iteration {run.last_certified_iter})"
    )
    lines.append(
        f"marginal spend {since}: {_plural(run.marginal_attempts, 'attempt')}, "
        f"{run.marginal_tokens:,} tokens, ${run.marginal_usd:.2f}"
    )
    if run.tool_error_rate is None:
        lines.append("tool error rate: unknown (no tool calls recorded)")
    else:
        lines.append(
            f"tool error rate: {run.tool_error_rate:.1%} ({run.tool_errors} of {run.tool_calls} calls)"
        )
    lines.append("thrash: " + (", ".join(run.thrash_steps) if run.thrash_steps else "none"))
    return lines


def step_heading(step: StepProgress) -> str:
    """``step NAME: certified at attempt 2 · check `go test ./...` (test-suite)``."""
    status = (
        f"certified at attempt {step.certified_attempt} (iteration {step.certified_iter})"
        if step.certified
        else f"not certified after {_plural(step.n_attempts, 'attempt')}"
    )
    check = f"`{step.check}`" if step.check else "no check command"
    source = f", normaliser {step.normaliser}" if step.normaliser else ""
    flag = " · THRASH" if step.thrash and step.thrash.flagged else ""
    return f"step {step.step}: {status} · check {check} ({step.check_kind}{source}){flag}"


def step_notes(step: StepProgress) -> list[str]:
    """Thrash evidence (flagged steps only) and a caution for build-only checks."""
    notes: list[str] = []
    if step.thrash and step.thrash.flagged:
        notes.append("thrash evidence (not a stop decision):")
        notes.extend(f"  - {line}" for line in step.thrash.evidence())
    if step.check_kind == BUILD_ONLY and not step.certified:
        notes.append(
            "build-only check: a build fails the same way until it passes, so the failing "
            "set says little about progress on this step"
        )
    return notes


def print_text(
    console: Console, runs: Sequence[RunProgress], verdicts: Sequence[GateVerdict]
) -> None:
    """The terminal report; every text through :func:`term_text` and never read as rich
    markup (run and step names are the loop's own: they never start a line, break one or
    reach the terminal as escapes)."""
    for run in runs:
        console.print(f"run {term_text(run.run_id)}", style="bold", markup=False)
        for line in summary_lines(run):
            console.print(f"  {term_text(line)}", markup=False)
        for step in run.steps:
            table = Table(
                title=Text(term_text(step_heading(step))), title_justify="left", show_edge=False
            )
            for name in COLUMNS:
                table.add_column(name, justify="left" if name == "certified" else "right")
            for attempt in step.attempts:
                table.add_row(*(Text(term_text(cell)) for cell in attempt_cells(attempt)))
            console.print()
            console.print(table)
            for note in step_notes(step):
                console.print(f"  {term_text(note)}", markup=False)
        console.print()
    _print_verdicts(console, verdicts)


def render_markdown(runs: Sequence[RunProgress], verdicts: Sequence[GateVerdict]) -> str:
    """The report as GitHub-flavoured Markdown (for CI summaries and PR comments), within
    GitHub's comment limit as compare's is (divergence.tables.MARKDOWN_BYTES): steps are left
    out from the end, whole, a line counting them, and the gates always come last."""
    blocks: list[list[str]] = []  # a run's heading and summary, then each of its steps
    owners: list[int] = []
    for n, run in enumerate(runs):
        head = [f"## {_md(run.run_id)}\n", *(f"- {_md(line)}" for line in summary_lines(run))]
        blocks.append([*head, ""])
        owners.append(n)
        for step in run.steps:
            lines = [f"### {_md(step_heading(step))}\n", "| " + " | ".join(COLUMNS) + " |"]
            lines.append("|" + "---:|" * (len(COLUMNS) - 1) + ":---|")
            lines += ["| " + " | ".join(attempt_cells(a)) + " |" for a in step.attempts]
            notes = step_notes(step)
            if notes:
                lines += ["", *(_md(n) for n in notes)]
            blocks.append([*lines, ""])
            owners.append(n)
    tail: list[str] = []
    if verdicts:
        tail.append("## Gates\n")
        tail.extend(f"- {'pass' if v.passed else 'FAIL'}: {_md(v.message)}" for v in verdicts)
        tail.append("")
    more_room = len(_more_line(len(blocks), len(runs))) + 4
    kept = fit_markdown(blocks, sum(len(t.encode()) + 1 for t in tail) + more_room)
    out = [line for block in blocks[:kept] for line in block]
    if kept < len(blocks):
        left = len(blocks) - kept - (len(runs) - len(set(owners[:kept])))
        out += [_more_line(left, len(set(owners[kept:]))), ""]
    return capped_markdown("\n".join([*out, *tail]).rstrip()) + "\n"


def _more_line(steps: int, runs: int) -> str:
    """The line saying what the Markdown leaves out to stay within GitHub's limit."""
    return (
        f"... {_plural(steps, 'more step')} of {_plural(runs, 'run')} not shown (GitHub's"
        " comment limit; --json lists every step)"
    )


def _print_verdicts(console: Console, verdicts: Sequence[GateVerdict]) -> None:
    for verdict in verdicts:
        said = term_text(verdict.message)
        console.print(f"{'pass' if verdict.passed else 'FAIL'}: {said}", markup=False)


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _num(value: int | None) -> str:
    return UNKNOWN if value is None else str(value)


def _count(ids: list[str] | None) -> str:
    return UNKNOWN if ids is None else str(len(ids))


def _tool_errors(a: Attempt) -> str:
    if a.tool_errors is None:
        return UNKNOWN
    return f"{a.tool_errors}/{a.tool_calls}" if a.tool_calls is not None else str(a.tool_errors)


def _md(text: str) -> str:
    """Escape the characters that would break a Markdown line or table."""
    return text.replace("|", "\\|").replace("<", "&lt;")
