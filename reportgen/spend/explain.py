"""One line per avoidable-spend finding, in words a user acts on (numbers checkable by hand)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from reportgen.spend.findings import SpendOptions


def usd(value: float | None) -> str:
    """Dollars for a finding: unknown when the model has no price or the log no usage."""
    return "unknown cost" if value is None else f"${value:.4f}"


def tokens(value: int | None) -> str:
    """A token count in words (unknown when the log does not say)."""
    return "unknown tokens" if value is None else f"{value:,} tokens"


def explain(row: Mapping[str, Any], options: SpendOptions) -> str:
    """The explanation of one spend_found row (see spend/sql/spend_found.sql for its fields)."""
    kind, step, ref, detail = row["kind"], row["idx"], row["ref_idx"], row["detail"]
    spent = f"{tokens(row['tokens'])}, {usd(row['cost'])}"
    amount = row["amount"]
    if kind == "identical_call":
        return (
            f"step {step} repeats the {detail} call of step {ref} with the same input and "
            f"output: {spent}, its share of the model call that made it"
        )
    if kind == "reread":
        return (
            f"step {step} reads {detail} again, unchanged since step {ref} read it "
            f"(no write to it in between): {spent}"
        )
    if kind == "failed_retry":
        return f"step {step} retries {detail} with the input that failed at step {ref}: {spent}"
    if kind == "cache_rebuild":
        return (
            f"step {step} rewrote the prompt cache after a {amount:.0f} s pause (cache TTL "
            f"{options.ttl_s:g} s): {spent} over reading a warm cache"
        )
    if kind == "long_context":
        return (
            f"step {step} sent a {int(amount):,}-token prompt, above {options.long_context:,}: "
            f"{spent} for the part above the threshold"
        )
    share = "unknown" if amount is None else f"{amount:.0%}"
    return (
        f"step {step} started sub-agent run {detail}, costing {share} of this run's own cost "
        f"(above {options.subagent_share:.0%}): {spent}"
    )
