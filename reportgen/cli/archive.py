"""``reportgen archive``: the archive itself (``convert`` between a DuckDB file and a Parquet
folder, for archives past one machine: docs/scale.md)."""

from __future__ import annotations

from typing import Annotated

import typer

from reportgen.cli.errors import exits_on_errors
from reportgen.cli.output import print_json


def convert(
    source: Annotated[
        str, typer.Argument(help="The archive to read: a .duckdb file or a Parquet folder.")
    ],
    target: Annotated[
        str,
        typer.Argument(
            help="The new archive: a name ending in .duckdb or .db is a DuckDB file; anything"
            " else (or parquet:FOLDER) a Parquet folder. Never replaces an archive."
        ),
    ],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print a JSON summary for machines.")
    ] = False,
) -> None:
    """Copy an archive into a new one of the other form, every table and row kept: a DuckDB
    file into a hive-partitioned Parquet folder (suite=…/batch=…) or back."""
    from reportgen.archive.parquet_convert import convert as run_convert

    report = run_convert(source, target)
    if as_json:
        print_json(report.to_dict())
        return
    counts = ", ".join(f"{n} {table}" for table, n in report.rows.items())
    typer.echo(f"wrote {report.form} archive {report.target} from {report.source}: {counts}")


def make_group() -> typer.Typer:
    """The ``archive`` command group."""
    group = typer.Typer(
        help="Work on the archive itself: convert it between a DuckDB file and a Parquet folder.",
        no_args_is_help=True,
        rich_markup_mode=None,
    )
    group.command("convert")(exits_on_errors(convert))
    return group
