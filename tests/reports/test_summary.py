"""The archive summary resolves run totals as the site does (rg_run_resolved)."""

from __future__ import annotations

from reportgen.archive.connection import connect
from reportgen.divergence.metrics import insert_runs
from reportgen.divergence.reference import Run, Step
from reportgen.reports.summary import archive_summary


def test_totals_from_the_run_or_its_steps_side_by_side() -> None:
    con = connect(None)
    steps = (
        Step("tool_call", "a", tokens_in=10, tokens_out=5, cost_usd=0.25),
        Step("tool_call", "b", status="error", tokens_in=1, tokens_out=2, cost_usd=0.5),
    )
    insert_runs(
        con,
        {
            # the run gives tokens_in only: tokens_out comes from its steps (5 + 2)
            "r1": Run(steps, tokens_in=100),
            # the run gives nothing: every total is its steps' (11 + 7 tokens, 0.75 $)
            "r2": Run(steps),
            # the run gives its cost: that wins over the steps
            "r3": Run(steps, cost_usd=2.0),
        },
    )
    rows = archive_summary(con)["labels"]  # insert_runs labels each run by its run_id
    got = {
        r["label"]: (r["runs"], r["steps"], r["wasted_steps"], r["tokens"], r["cost_usd"])
        for r in rows
    }
    assert got == {
        "r1": (1, 2, 1, 100 + 7, 0.75),
        "r2": (1, 2, 1, 11 + 7, 0.75),
        "r3": (1, 2, 1, 11 + 7, 2.0),
    }
