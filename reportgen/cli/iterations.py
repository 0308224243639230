"""``reportgen iterations PATH...``: is a coding loop making progress, or only activity?

Ingests the PATHs (into ``--db``, or a throwaway archive), prints the per-step trajectory
table and the run summary (text, ``--json`` or ``--markdown``), then applies the gates."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from reportgen.cli.options import Config, threshold_option
from reportgen.cli.output import print_json
from reportgen.gating.metrics import (
    FAIL_ON_THRASH,
    MAX_SPEND_PER_CERTIFIED_STEP,
    MAX_TOOL_ERROR_RATE,
)
from reportgen.iterations.model import MIN_STALLED


def iterations(
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
        float | None, threshold_option(MAX_SPEND_PER_CERTIFIED_STEP)
    ] = None,
    max_tool_error_rate: Annotated[float | None, threshold_option(MAX_TOOL_ERROR_RATE)] = None,
    fail_on_thrash: Annotated[
        bool, typer.Option(FAIL_ON_THRASH.flag, help=FAIL_ON_THRASH.help)
    ] = False,
    config: Config = None,
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
    spend per certified step, thrash evidence; gates for CI (flags over the config's [cli]
    max_spend_per_certified_step, max_tool_error_rate, fail_on_thrash)."""
    from rich.console import Console

    from reportgen.errors import GateFailed, UsageError
    from reportgen.gating import find_config, resolve
    from reportgen.iterations.gates import IterationGates, check_gates
    from reportgen.iterations.loading import load_progress
    from reportgen.iterations.report import print_text, render_markdown, report_data

    given: dict[str, float | bool | None] = {
        MAX_SPEND_PER_CERTIFIED_STEP.name: max_spend_per_certified_step,
        MAX_TOOL_ERROR_RATE.name: max_tool_error_rate,
        FAIL_ON_THRASH.name: fail_on_thrash,
    }
    resolved = resolve("iterations", config or find_config(), given)
    gates = IterationGates.from_thresholds(resolved.thresholds)
    if as_json and markdown:
        raise UsageError("--json and --markdown cannot be used together")
    if not paths and db is None:
        raise UsageError("give iteration record files, or --db with an archive")
    with tempfile.TemporaryDirectory(prefix="reportgen-iterations-") as scratch:
        target = db if db is not None else Path(scratch) / "iterations.duckdb"
        runs = load_progress(paths or [], target, run or [], min_stalled=thrash_attempts)
    verdicts = check_gates(runs, gates)
    if as_json:
        print_json(report_data(runs, verdicts, gates))
    elif markdown:
        sys.stdout.write(render_markdown(runs, verdicts))
    else:
        width = None if sys.stdout.isatty() else 140
        print_text(
            Console(file=sys.stdout, highlight=False, soft_wrap=True, width=width), runs, verdicts
        )
    failed = [found for v in verdicts if (found := v.violation()) is not None]
    if failed:
        raise GateFailed("; ".join(v.message for v in failed))
