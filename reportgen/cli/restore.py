"""``reportgen restore``: a new archive from a published site's ``data/`` snapshot."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from reportgen.cli.options import Db, Json
from reportgen.cli.output import print_json


def restore(
    site: Annotated[
        str,
        typer.Argument(
            help="A site built by reportgen: its folder, its data/ folder, or its http(s) URL."
        ),
    ],
    db: Db = Path("reportgen.duckdb"),
    as_json: Json = False,
) -> None:
    """Rebuild the archive a site was built from (same tables and rows), from the Parquet
    snapshot and checksummed manifest under the site's data/. Never replaces an existing
    archive; a missing, changed or truncated file is an error and leaves nothing behind."""
    from reportgen.archive.snapshot import restore_snapshot

    report = restore_snapshot(site, db)
    if as_json:
        print_json(report.to_dict())
        return
    counts = ", ".join(f"{n} {table}" for table, n in report.rows.items())
    typer.echo(f"restored {report.db} from {report.source}: {counts}")
