"""Numbers of the avoidable-spend findings in words, for the CLI (the findings' own
explanations are written in SQL, spend_explain.sql, in the same words)."""

from __future__ import annotations


def usd(value: float | None) -> str:
    """Dollars for a finding: unknown when the model has no price or the log no usage."""
    return "unknown cost" if value is None else f"${value:.4f}"


def tokens(value: int | None) -> str:
    """A token count in words (unknown when the log does not say)."""
    return "unknown tokens" if value is None else f"{value:,} tokens"
