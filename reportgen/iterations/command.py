"""``reportgen iterations PATH...``: is a coding loop making progress, or only activity?

Ingests the PATHs (into ``--db``, or a throwaway archive), prints the per-step trajectory
table and the run summary (text, ``--json`` or ``--markdown``), then applies the gates.
Exit codes: 0 ok, 1 bad input, 2 usage error, 3 a gate failed (after the report is printed).
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from reportgen.errors import GateFailed, ReportgenError, UsageError
from reportgen.iterations.analyse import MIN_STALLED
from reportgen.iterations.gates import IterationGates, check_gates
from reportgen.iterations.report import print_text, render_markdown, report_data
from reportgen.iterations.source import load_progress

__all__ = ["iterations_command"]


def _amount(value: str) -> float:
    """A finite number >= 0 (USD), else a usage error (exit 2)."""
    try:
        number = float(value)
    except ValueError:
        raise typer.BadParameter(f"{value!r} is not a number") from None
    if not math.isfinite(number) or number < 0:
        raise typer.BadParameter(f"{value!r} is not a finite number >= 0")
    return number


def _rate(value: str) -> float:
    """A finite number in [0, 1], else a usage error (exit 2)."""
    number = _amount(value)
    if number > 1:
        raise typer.BadParameter(f"{value!r} is not a rate in [0, 1]")
    return number


def iterations_command(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="PATH...",
            show_default=False,
            help="Iteration record files or folders (.jsonl); omit to report on --db.",
        ),
    ] = None,
    db: Annotated[
        Path | None,
        typer.Option(
            "--db", help="Archive to ingest into and read from (default: a temporary one)."
        ),
    ] = None,
    run: Annotated[
        list[str] | None,
        typer.Option("--run", help="Only this run id (repeatable).", show_default=False),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    markdown: Annotated[
        bool, typer.Option("--markdown", help="Print the report as Markdown.")
    ] = False,
    max_spend_per_certified_step: Annotated[
        float | None,
        typer.Option(
            "--max-spend-per-certified-step",
            metavar="USD",
            parser=_amount,
            show_default=False,
            help="Fail (exit 3) when a run's USD per certified step is above USD (equal passes); "
            "a run that spent money and certified nothing fails too.",
        ),
    ] = None,
    max_tool_error_rate: Annotated[
        float | None,
        typer.Option(
            "--max-tool-error-rate",
            metavar="RATE",
            parser=_rate,
            show_default=False,
            help="Fail (exit 3) when a run's tool errors / tool calls is above RATE (0..1).",
        ),
    ] = None,
    fail_on_thrash: Annotated[
        bool,
        typer.Option("--fail-on-thrash", help="Fail (exit 3) when any step shows thrash."),
    ] = False,
    thrash_attempts: Annotated[
        int,
        typer.Option(
            "--thrash-attempts",
            min=1,
            metavar="K",
            help="Stalled attempts (no new low in the failing set) that make a thrash signal.",
        ),
    ] = MIN_STALLED,
) -> None:
    """Is a coding loop making progress or only activity? Failing-set trajectory per step,
    spend per certified step, thrash evidence; gates for CI."""
    try:
        _run(
            paths or [],
            db,
            run or [],
            as_json,
            markdown,
            IterationGates(max_spend_per_certified_step, max_tool_error_rate, fail_on_thrash),
            thrash_attempts,
        )
    except ReportgenError as error:
        sys.stderr.write(f"error: {error}\n")
        raise typer.Exit(error.exit_code) from None


def _run(
    paths: list[Path],
    db: Path | None,
    run_ids: list[str],
    as_json: bool,
    markdown: bool,
    gates: IterationGates,
    thrash_attempts: int,
) -> None:
    """Load, report, then gate; GateFailed (exit 3) only after the report is out."""
    if as_json and markdown:
        raise UsageError("--json and --markdown cannot be used together")
    if not paths and db is None:
        raise UsageError("give iteration record files, or --db with an archive")
    with tempfile.TemporaryDirectory(prefix="reportgen-iterations-") as scratch:
        target = db if db is not None else Path(scratch) / "iterations.duckdb"
        runs = load_progress(paths, target, run_ids, min_stalled=thrash_attempts)
    verdicts = check_gates(runs, gates)
    if as_json:
        sys.stdout.write(json.dumps(report_data(runs, verdicts, gates), indent=2, sort_keys=True))
        sys.stdout.write("\n")
    elif markdown:
        sys.stdout.write(render_markdown(runs, verdicts))
    else:
        width = None if sys.stdout.isatty() else 140
        print_text(
            Console(file=sys.stdout, highlight=False, soft_wrap=True, width=width), runs, verdicts
        )
    failed = [v for v in verdicts if not v.passed]
    if failed:
        raise GateFailed("; ".join(v.message for v in failed))
