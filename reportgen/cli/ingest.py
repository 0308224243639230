"""``reportgen ingest``, ``reportgen demo`` and ``reportgen formats``: loading files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from reportgen.cli.options import Db, Json, MaxRecordMb
from reportgen.cli.output import err, out, print_json


def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders (.json, .jsonl, .gz).")],
    db: Db = Path("reportgen.duckdb"),
    replace: Annotated[
        bool, typer.Option(help="Overwrite runs whose run_id is already archived.")
    ] = False,
    skip_invalid: Annotated[
        bool, typer.Option(help="Load the good files, list the bad ones, and still exit 1.")
    ] = False,
    format: Annotated[
        str | None, typer.Option("--format", help="Force a format (see `reportgen formats`).")
    ] = None,
    max_record_mb: MaxRecordMb = 16,
    batch: Annotated[
        str | None,
        typer.Option(
            "--batch",
            help="Put every run and output loaded in this batch (e.g. a CI job id), whatever"
            " the files say; default: a run's own batch, else its job's (see docs/formats.md).",
        ),
    ] = None,
    label_by: Annotated[
        str,
        typer.Option(
            "--label-by",
            help="Session logs (Claude Code, Codex CLI, Gemini CLI): label each run by its "
            "'model' (the one most calls used) or its git 'branch' (the model when the log "
            "names none).",
        ),
    ] = "model",
    label: Annotated[
        str | None,
        typer.Option(
            "--label",
            help="Give every run and output loaded this label (the thing compared: agent, model,"
            " prompt or config), whatever the files say.",
        ),
    ] = None,
    suite: Annotated[
        str | None,
        typer.Option(
            "--suite",
            help="Give every run and output loaded this suite (the benchmark or domain its tasks"
            " come from), whatever the files say.",
        ),
    ] = None,
    tz: Annotated[
        str | None,
        typer.Option(
            "--tz",
            help="Session logs: a run's batch is the day of its start in this time zone "
            "(IANA name; default: $TZ, else UTC).",
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing on success.")] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            help="List every file skipped as already loaded (default: their count and the "
            "first; --json lists them all).",
        ),
    ] = False,
    as_json: Json = False,
) -> None:
    """Load trace, iteration and output files into the archive, all or nothing."""
    from reportgen.ingest import ingest as run_ingest
    from reportgen.ingest.options import session_options
    from reportgen.reports.progress import DelayedProgress

    sessions = session_options(label_by, None, tz)
    with DelayedProgress(None if quiet or as_json else err()) as progress:
        report = run_ingest(
            paths,
            db,
            replace=replace,
            skip_invalid=skip_invalid,
            format_name=format,
            max_record_mb=max_record_mb,
            progress=progress.hook,
            batch=batch,
            sessions=sessions,
            label=label,
            suite=suite,
        )
    if as_json:
        print_json(report.to_dict())
    elif not quiet:
        from reportgen.reports.ingest import print_ingest_report

        print_ingest_report(out(), report, verbose=verbose)
    for problem in report.invalid:
        err().print(f"error: {problem}", markup=False)
    if report.invalid:
        raise typer.Exit(1)


def demo(
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Folder for the demo archive and site (default: <tempdir>/reportgen-demo, "
            "replaced by each demo run).",
        ),
    ] = None,
    as_json: Json = False,
) -> None:
    """Ingest the bundled sample_runs/, build the site, and print a summary and its path."""
    from reportgen.demo import run_demo
    from reportgen.reports.ingest import print_archive_summary

    db, report, summary = run_demo(out_dir)
    if as_json:
        print_json({"db": str(db), "ingest": report.to_dict(), "summary": summary})
        return
    console = out()
    print_archive_summary(console, summary)
    if out_dir is None:
        console.print(
            f"demo folder: {db.parent} (replaced by the next `reportgen demo`; --out FOLDER "
            "keeps one)",
            markup=False,
            soft_wrap=True,
        )
    console.print(f"archive: {db}", markup=False)
    if "site" in summary:
        index = Path(summary["site"]["index"]).resolve()
        console.print(f"site: {index.as_uri()}  ({summary['site']['pages']} pages)", markup=False)
    verdict = summary["verdict"]
    console.print(
        f"\nbaseline vs candidate, night {verdict['night']}: {verdict['headline']}",
        markup=False,
        soft_wrap=True,
    )
    console.print(
        "next, your own traces: reportgen ingest PATH --db reportgen.duckdb --label NAME, then"
        " reportgen compare --db reportgen.duckdb --baseline-label A --candidate-label B",
        markup=False,
        soft_wrap=True,
    )


def formats(as_json: Json = False) -> None:
    """List the input formats ingest can read."""
    from reportgen.formats.registry import all_formats

    rows = [
        {"name": f.name, "description": f.description, "maps": getattr(f, "maps", "")}
        for f in all_formats()
    ]
    if as_json:
        print_json(rows)
        return
    console = out()
    for row in rows:
        console.print(f"{row['name']:<14} {row['description']}", markup=False)
        if row["maps"]:
            console.print(f"{'':<14}   maps: {row['maps']}", markup=False)
