"""``reportgen spend``: the avoidable-spend findings of an archive's runs (reportgen.spend),
as a table per run or ``--json``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from reportgen.cli.options import Db, Json


def spend(
    db: Db = Path("reportgen.duckdb"),
    run: Annotated[
        list[str] | None, typer.Option("--run", help="Only this run id (repeatable).")
    ] = None,
    suite: Annotated[
        str | None, typer.Option("--suite", help="Only the runs of this suite.")
    ] = None,
    ttl: Annotated[
        float,
        typer.Option(
            "--cache-ttl",
            help="Prompt-cache TTL in seconds: cache writes after "
            "a longer pause are a rebuilt cache.",
            min=0,
        ),
    ] = 300.0,
    long_context: Annotated[
        int,
        typer.Option(
            "--long-context",
            help="A model call whose prompt is above this many tokens is a very long context turn.",
            min=0,
        ),
    ] = 150_000,
    subagent_share: Annotated[
        float,
        typer.Option(
            "--subagent-share",
            help="A sub-agent run costing more than this "
            "share of its parent's own cost is expensive.",
            min=0,
        ),
    ] = 0.5,
    as_json: Json = False,
) -> None:
    """Avoidable spend: repeated identical calls, unchanged files read again, retries of a
    failed call, the prompt cache rebuilt after a pause, very long prompts, expensive
    sub-agents; per run and per suite, with tokens and USD. Then, per suite, the cost the
    traces report beside the cost recomputed from their tokens and model prices."""
    from reportgen.archive import connect
    from reportgen.cli.output import out_line, print_json
    from reportgen.spend import SpendOptions, avoidable_spend
    from reportgen.spend.explain import usd

    options = SpendOptions(ttl_s=ttl, long_context=long_context, subagent_share=subagent_share)
    con = connect(db, read_only=True)
    try:
        report = avoidable_spend(con, list(run) if run else None, options, suite=suite)
    finally:
        con.close()
    if as_json:
        print_json(report.to_json())
        return
    for spent in report.runs.values():
        out_line(
            f"run {spent.run_id}: {len(spent.findings)} finding(s), {spent.tokens:,} tokens, "
            f"{usd(spent.cost_usd)}"
            + (f" ({spent.n_unknown} of unknown cost)" if spent.n_unknown else "")
        )
        for finding in spent.findings:
            out_line(f"  {finding.kind}: {finding.explanation}")
    for suite_spend in report.suites.values():
        out_line(
            f"suite {suite_spend.suite}: {suite_spend.n_runs} run(s), {suite_spend.n_findings} "
            f"finding(s), {suite_spend.tokens:,} tokens, {usd(suite_spend.cost_usd)}"
        )
    if not report.runs:
        out_line("no avoidable spend found")
    for costs in report.costs.values():
        out_line(f"suite {costs.suite} cost: {costs.summary()}")
