"""Avoidable spend: findings per run (repeated calls, re-reads, failed retries, cache rebuilt
after a pause, very long prompts, expensive sub-agents), summed per run and per suite."""

from reportgen.spend.findings import (
    KINDS,
    Finding,
    RunSpend,
    SpendOptions,
    SpendReport,
    SuiteCosts,
    SuiteSpend,
    avoidable_spend,
    gate_values,
)

__all__ = [
    "KINDS",
    "Finding",
    "RunSpend",
    "SpendOptions",
    "SpendReport",
    "SuiteCosts",
    "SuiteSpend",
    "avoidable_spend",
    "gate_values",
]
