"""Terminal output of ``ingest`` and ``demo``."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from reportgen.ingest import IngestReport


def print_ingest_report(console: Console, report: IngestReport, *, verbose: bool = False) -> None:
    """One line per outcome: what loaded, the notices, the replaced runs, and the files
    skipped as already loaded in one line (their count and the first; ``verbose``: a line
    each)."""
    c = report.counts
    console.print(
        f"loaded {len(report.loaded)} file(s): {c['runs']} runs, {c['steps']} steps, "
        f"{c['iterations']} iteration records, {c['outputs']} outputs "
        f"into {report.db} in {report.seconds:.2f}s",
        markup=False,
    )
    for notice in report.notices:
        console.print(f"notice: {notice}", markup=False)
    if report.replaced_runs:
        console.print(f"replaced {report.replaced_runs} run(s)", markup=False)
    if report.skipped and verbose:
        console.print(f"skipped {len(report.skipped)} file(s) already loaded:", markup=False)
        for item in report.skipped:
            console.print(f"  {item['file']}: {item['reason']}", markup=False)
    elif report.skipped:
        first = report.skipped[0]
        more = "; --verbose lists them" if len(report.skipped) > 1 else ""
        console.print(
            f"skipped {len(report.skipped)} file(s) already loaded"
            f" (e.g. {first['file']}: {first['reason']}){more}",
            markup=False,
        )


def print_archive_summary(console: Console, summary: dict[str, Any]) -> None:
    """A table of suites and labels, then the table counts."""
    table = Table(title="reportgen archive")
    for column in (
        "suite",
        "label",
        "runs",
        "tasks",
        "batches",
        "latest",
        "steps",
        "wasted",
        "tokens",
        "cost $",
    ):
        table.add_column(
            column,
            justify="left" if column in ("suite", "label", "latest") else "right",
            no_wrap=True,
        )
    for row in summary["labels"]:
        table.add_row(
            row["suite"],
            row["label"],
            str(row["runs"]),
            str(row["tasks"]),
            str(row["batches"]),
            str(row["last_batch"]),
            str(row["steps"]),
            str(row["wasted_steps"]),
            str(row["tokens"]),
            f"{row['cost_usd']:.2f}",
        )
    console.print(table)
    tables = ", ".join(f"{n} {name}" for name, n in summary["tables"].items())
    console.print(f"tables: {tables}", markup=False)
