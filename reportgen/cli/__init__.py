"""The ``reportgen`` command line: a thin layer over the library. Each command lives in its
own module and imports what it needs (DuckDB, pyarrow, numpy, plotly, jinja2) only when it
runs, so ``reportgen --version`` and ``--help`` stay fast.

Exit codes: 0 ok, 1 bad input, 2 usage error, 3 a gate failed (:mod:`reportgen.cli.errors`)."""

from __future__ import annotations

import importlib
import os
import sys
from typing import Annotated, Any

import typer

from reportgen import __version__
from reportgen.cli.errors import exits_on_errors

__all__ = ["app", "main", "make_app"]

COMMANDS: dict[str, tuple[str, bool]] = {
    "ingest": ("ingest", False),
    "demo": ("ingest", False),
    "formats": ("ingest", False),
    "converge": ("converge", False),
    "compare": ("compare", True),
    "gate": ("compare", True),
    "build": ("build", False),
    "iterations": ("iterations", False),
    "restore": ("restore", False),
    "spend": ("spend", False),
}
"""Each command: the module of reportgen.cli defining it (a function of its name) and whether
it takes the gate options."""
GROUPS = ("archive",)


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


def make_app(only: str | None = None) -> typer.Typer:
    """The typer app, with one option per gate of the metrics registered now. ``only``: just
    that command or group, or nothing else for another name (``main`` asks for the one its
    arguments name, so that a command imports and builds no other command's module and
    options, and ``--version`` none)."""
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
    for name, (module, gated) in COMMANDS.items():
        if only is None or name == only:
            command = getattr(importlib.import_module(f"reportgen.cli.{module}"), name)
            app.command(name)(exits_on_errors(_with_gates(command) if gated else command))
    if only is None or only == "archive":
        from reportgen.cli import archive

        app.add_typer(archive.make_group(), name="archive")
    return app


def _with_gates(command: Any) -> Any:
    from reportgen.cli.options import with_gate_options
    from reportgen.gating.metrics import label_gates, pair_gates, reliability_gates

    return with_gate_options(lambda: (*pair_gates(), *label_gates(), *reliability_gates()))(command)


app: typer.Typer
"""The whole app (made when first asked for: ``main`` makes only the command it runs)."""


def __getattr__(name: str) -> Any:
    if name == "app":
        made = globals()["app"] = make_app()
        return made
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Console-script entry point."""
    # numpy's OpenBLAS starts a thread per core that spins for a while at load; no command
    # does linear algebra that wants them, and they took CPU from DuckDB's threads (about 3 %
    # of an ingest's samples on 2 cores). A value the user set is kept.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    named = sys.argv[1] if len(sys.argv) > 1 else None
    # --version is eager: it prints and exits before any command is looked at
    known = named in COMMANDS or named in GROUPS or named == "--version"
    make_app(named if known else None)()
