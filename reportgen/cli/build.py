"""``reportgen build``: the static site from the archive."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from reportgen.cli.options import Db
from reportgen.cli.output import print_json

PAGES_LIMIT_BYTES = 1_000_000_000  # GitHub Pages refuses larger sites


def site_compare(config: Path) -> list[str]:
    """The ``[site] compare`` list of a config file (a usage error unless a list of texts)."""
    from reportgen.errors import UsageError
    from reportgen.gating.thresholds import load_config

    value = load_config(config).get("site", {}).get("compare", [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f'{config}: [site] compare must be a list like ["BASE..CAND"]')
    return list(value)


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
    compare: Annotated[
        list[str] | None,
        typer.Option(
            "--compare",
            metavar="BASE..CAND",
            help="A comparison to build (repeatable; several give a matrix page too); default: "
            "[site] compare of the config, else the labels baseline/candidate, else every "
            "label against the most common one.",
        ),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config", help="Gate thresholds ([cli] section) marked on comparison pages."
        ),
    ] = None,
    redact: Annotated[
        list[str] | None,
        typer.Option(
            "--redact",
            metavar="REGEX",
            help="Also replace text matching this RE2 pattern in every page and data file "
            "(repeatable).",
        ),
    ] = None,
    no_redact: Annotated[
        bool,
        typer.Option("--no-redact", help="Publish raw: do not replace the built-in secret shapes."),
    ] = False,
    no_payloads: Annotated[
        bool,
        typer.Option(
            "--no-payloads",
            help="Publish structure and numbers only: no step input/output or output text.",
        ),
    ] = False,
    keep_nights: Annotated[
        int,
        typer.Option(
            "--keep-nights",
            min=0,
            help="Step-by-step run and pair pages for this many newest nights (0: all); older "
            "ones keep a small page, and every step stays in data/.",
        ),
    ] = 30,
    site_url: Annotated[
        str | None,
        typer.Option(
            "--site-url",
            help="Where the site is published (https://...): makes the Atom feed's links absolute.",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print a JSON summary for machines.")
    ] = False,
) -> None:
    """Build the static site: index, history, run, task and comparison pages, plus the archive
    as Parquet under data/. Re-renders only pages whose inputs changed."""
    from functools import partial

    from reportgen.cli.collector import fewer_collections
    from reportgen.gating import find_config, resolve, verdicts_by_metric
    from reportgen.site import build_site
    from reportgen.site.redaction import Redaction

    found = config or find_config()
    thresholds = list(resolve("build", found).thresholds)
    asked, source = list(compare or ()), "--compare"
    if not asked and found is not None:
        asked, source = site_compare(found), f"{found.name} [site] compare"
    with fewer_collections():  # a page's records, diffs and views: many objects, few cycles
        report = build_site(
            db,
            out,
            build_time=build_time,
            baseline_label=baseline_label,
            candidate_label=candidate_label,
            verdicts=partial(verdicts_by_metric, thresholds=thresholds) if thresholds else None,
            site_url=site_url,
            keep_nights=keep_nights,
            compare=asked,
            compare_source=source,
            redaction=Redaction.from_options(
                redact=not no_redact, patterns=tuple(redact or ()), payloads=not no_payloads
            ),
        )
    if report.size_bytes > PAGES_LIMIT_BYTES:
        typer.echo(
            f"warning: the site is {report.size_bytes / 1e9:.2f} GB in {report.files:,} files; "
            "GitHub Pages refuses sites over 1 GB (try --no-payloads)",
            err=True,
        )
    if as_json:
        print_json(report.to_dict())
        return
    typer.echo(
        f"site: {report.pages} pages, {report.written} written, {report.skipped} unchanged"
        + (f", {report.removed} removed" if report.removed else "")
    )
    typer.echo(
        f"size: {report.size_bytes / 1e6:.1f} MB in {report.files:,} files; "
        f"{report.redacted} secret(s) redacted"
        + ("" if not no_redact else " (built-in redaction off)")
    )
    typer.echo(f"index: {report.index}")
