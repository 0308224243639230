"""The ``reportgen`` command line: parse options, call the library, map errors to exit codes.

Exit codes: 0 ok, 1 bad input, 2 usage error, 3 a gate failed."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console

from reportgen import __version__
from reportgen.compare_command import compare_command, gate_command
from reportgen.convergence.command import converge_command
from reportgen.errors import ReportgenError
from reportgen.iterations.command import iterations_command
from reportgen.site.command import build_command

app = typer.Typer(
    name="reportgen",
    help="See how LLM agents behave across many runs: load traces into DuckDB, compute "
    "divergence, waste, loops, recovery, cost and convergence, gate CI, build a static site.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)
# Piped output gets a wide page so tables stay readable in CI logs.
_WIDTH = None if sys.stdout.isatty() else 140
out = Console(highlight=False, soft_wrap=True, width=_WIDTH)
err = Console(stderr=True, highlight=False, soft_wrap=True)

F = TypeVar("F", bound=Callable[..., Any])

DbOption = Annotated[Path, typer.Option("--db", help="The DuckDB archive file.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print a JSON summary for machines.")]


def exits_on_errors(command: F) -> F:
    """Turn reportgen's own errors into one line on stderr and their exit code."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except ReportgenError as error:
            err.print(f"error: {error}", markup=False)
            raise typer.Exit(error.exit_code) from None

    return wrapper  # type: ignore[return-value]


def print_json(data: Any) -> None:
    """Machine output: sorted keys, stable across runs; streamed, so a large report is never
    held as one string."""
    encoder = json.JSONEncoder(indent=2, sort_keys=True, default=str)
    pending: list[str] = []
    for chunk in encoder.iterencode(data):
        pending.append(chunk)
        if len(pending) >= 1 << 16:  # write in batches: one write per chunk is slow
            sys.stdout.write("".join(pending))
            pending.clear()
    sys.stdout.write("".join(pending) + "\n")


def _version(value: bool) -> None:
    if value:
        out.print(f"reportgen {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    """reportgen: see how LLM agents behave across many runs."""


@app.command()
@exits_on_errors
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders (.json, .jsonl, .gz).")],
    db: DbOption = Path("reportgen.duckdb"),
    replace: Annotated[
        bool, typer.Option(help="Overwrite runs whose run_id is already archived.")
    ] = False,
    skip_invalid: Annotated[
        bool, typer.Option(help="Load the good files, list the bad ones, and still exit 1.")
    ] = False,
    format: Annotated[
        str | None, typer.Option("--format", help="Force a format (see `reportgen formats`).")
    ] = None,
    max_record_mb: Annotated[
        float, typer.Option(help="Largest record (JSONL line) accepted, in MB.")
    ] = 16,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing on success.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Load trace, iteration and output files into the archive, all or nothing."""
    from reportgen.ingest import ingest as run_ingest
    from reportgen.reports.ingest import print_ingest_report
    from reportgen.reports.progress import DelayedProgress

    with DelayedProgress(err, enabled=not (quiet or as_json)) as progress:
        report = run_ingest(
            paths,
            db,
            replace=replace,
            skip_invalid=skip_invalid,
            format_name=format,
            max_record_mb=max_record_mb,
            progress=progress.hook,
        )
    if as_json:
        print_json(report.to_dict())
    elif not quiet:
        print_ingest_report(out, report)
    for problem in report.invalid:
        err.print(f"error: {problem}", markup=False)
    if report.invalid:
        raise typer.Exit(1)


@app.command()
@exits_on_errors
def demo(
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", help="Folder for the demo archive (default: a new temp folder)."),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Ingest the bundled sample_runs/, build the site, and print a summary and its path."""
    from reportgen.demo import run_demo
    from reportgen.reports.ingest import print_archive_summary

    db, report, summary = run_demo(out_dir)
    if as_json:
        print_json({"db": str(db), "ingest": report.to_dict(), "summary": summary})
        return
    print_archive_summary(out, summary)
    out.print(f"archive: {db}", markup=False)
    if "site" in summary:
        out.print(
            f"site: {summary['site']['index']}  ({summary['site']['pages']} pages)", markup=False
        )


@app.command()
def formats(as_json: JsonOption = False) -> None:
    """List the input formats ingest can read."""
    from reportgen.formats.registry import all_formats

    rows = [
        {"name": f.name, "description": f.description, "maps": getattr(f, "maps", "")}
        for f in all_formats()
    ]
    if as_json:
        print_json(rows)
        return
    for row in rows:
        out.print(f"{row['name']:<14} {row['description']}", markup=False)
        if row["maps"]:
            out.print(f"{'':<14}   maps: {row['maps']}", markup=False)


app.command("converge")(converge_command)
app.command("compare")(exits_on_errors(compare_command))
app.command("gate")(exits_on_errors(gate_command))
app.command("build")(build_command)
app.command("iterations")(iterations_command)


def main() -> None:
    """Console-script entry point."""
    app()
