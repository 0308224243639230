"""The ``reportgen`` command line: a thin layer over the library. Each command lives in its
own module and imports what it needs (DuckDB, pyarrow, numpy, plotly, jinja2) only when it
runs, so ``reportgen --version`` and ``--help`` stay fast.

Exit codes: 0 ok, 1 bad input, 2 usage error, 3 a gate failed (:mod:`reportgen.cli.errors`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer

from reportgen import __version__
from reportgen.cli import archive, build, compare, converge, ingest, iterations, restore, spend
from reportgen.cli.errors import exits_on_errors
from reportgen.cli.options import with_gate_options
from reportgen.gating.metrics import label_gates, pair_gates

__all__ = ["app", "main", "make_app"]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"reportgen {__version__}")
        raise typer.Exit()


def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    """reportgen: see how LLM agents behave across many runs."""


def make_app() -> typer.Typer:
    """The typer app, with one option per gate of the metrics registered now."""
    app = typer.Typer(
        name="reportgen",
        help="See how LLM agents behave across many runs: load traces into DuckDB, compute "
        "divergence, waste, loops, recovery, cost and convergence, gate CI, build a static site.",
        no_args_is_help=True,
        add_completion=False,
        rich_markup_mode=None,
        pretty_exceptions_enable=False,
    )
    app.callback()(_root)
    gated = with_gate_options(lambda: (*pair_gates(), *label_gates()))
    commands: dict[str, Callable[..., Any]] = {
        "ingest": ingest.ingest,
        "demo": ingest.demo,
        "formats": ingest.formats,
        "converge": converge.converge,
        "compare": gated(compare.compare),
        "gate": gated(compare.gate),
        "build": build.build,
        "iterations": iterations.iterations,
        "restore": restore.restore,
        "spend": spend.spend,
    }
    for name, command in commands.items():
        app.command(name)(exits_on_errors(command))
    app.add_typer(archive.make_group(), name="archive")
    return app


app = make_app()


def main() -> None:
    """Console-script entry point."""
    app()
