"""``reportgen build``: the static site from the archive."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from reportgen.cli.options import Db
from reportgen.cli.output import print_json


def build(
    out: Annotated[Path, typer.Option("--out", help="Folder of the site (replaced atomically).")],
    db: Db = Path("reportgen.duckdb"),
    build_time: Annotated[
        str | None,
        typer.Option(
            "--build-time",
            help="ISO 8601 time stamp shown on the index (default: SOURCE_DATE_EPOCH, else now).",
        ),
    ] = None,
    baseline_label: Annotated[
        str, typer.Option("--baseline-label", help="Label compared against.")
    ] = "baseline",
    candidate_label: Annotated[
        str, typer.Option("--candidate-label", help="Label compared with the baseline.")
    ] = "candidate",
    config: Annotated[
        Path | None,
        typer.Option(
            "--config", help="Gate thresholds ([cli] section) marked on comparison pages."
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print a JSON summary for machines.")
    ] = False,
) -> None:
    """Build the static site: index, history, run, task and comparison pages, plus the archive
    as Parquet under data/. Re-renders only pages whose inputs changed."""
    from functools import partial

    from reportgen.gating import find_config, resolve_thresholds, verdicts_by_metric
    from reportgen.site import build_site

    thresholds = resolve_thresholds({}, config or find_config())
    report = build_site(
        db,
        out,
        build_time=build_time,
        baseline_label=baseline_label,
        candidate_label=candidate_label,
        verdicts=partial(verdicts_by_metric, thresholds=thresholds) if thresholds else None,
    )
    if as_json:
        print_json(report.to_dict())
        return
    typer.echo(
        f"site: {report.pages} pages, {report.written} written, {report.skipped} unchanged"
        + (f", {report.removed} removed" if report.removed else "")
    )
    typer.echo(f"index: {report.index}")
