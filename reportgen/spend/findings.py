"""Avoidable spend: the findings a user acts on, per run and summed per run and per suite,
computed in DuckDB SQL over the archive's ``steps`` and ``runs`` for many runs at once.

Kinds (one SQL file each, ``spend/sql/``): ``identical_call`` (a tool call repeating an
earlier one's input and output, P9), ``reread`` (the same file read again with no write to it
in between), ``failed_retry`` (a call repeating a failed call's input), ``cache_rebuild``
(cache-write tokens after a pause longer than the cache TTL), ``long_context`` (a prompt
above a token threshold) and ``expensive_subagent`` (a child run costing more than a share of
its parent). A step found by several kinds counts once in the totals, at its costliest."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import duckdb
import pyarrow as pa

from reportgen._sql import load_sql
from reportgen.archive import arrow
from reportgen.formats.pricing import load_table

#: The finding kinds, in report order, each with the SQL file that finds it and its parameters.
KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "identical_call": ("spend_identical", ()),
    "reread": ("spend_reread", ()),
    "failed_retry": ("spend_retry", ()),
    "cache_rebuild": ("spend_cache_rebuild", ("ttl_s",)),
    "long_context": ("spend_long_context", ("long_context",)),
    "expensive_subagent": ("spend_subagents", ("subagent_share",)),
}


@dataclass(frozen=True)
class SpendOptions:
    """The thresholds of the findings: the prompt-cache TTL (Anthropic's default cache lives
    5 minutes), the prompt size of a very long context turn, and the share of its parent's
    cost above which a sub-agent is expensive."""

    ttl_s: float = 300.0
    long_context: int = 150_000
    subagent_share: float = 0.5

    def params(self, names: Sequence[str]) -> dict[str, Any]:
        """The SQL parameters ``names`` of these options."""
        return {name: getattr(self, name) for name in names}


@dataclass(frozen=True)
class Finding:
    """One avoidable-spend finding: its kind, run, step (and the earlier step it repeats),
    the tokens and USD it spent (None: unknown) and one line saying why."""

    kind: str
    run_id: str
    step: int | None
    ref_step: int | None
    tokens: int | None
    cost_usd: float | None
    detail: str | None
    amount: float | None
    explanation: str


@dataclass(frozen=True)
class RunSpend:
    """A run's avoidable spend: its findings (empty unless asked for), their number, tokens
    and known cost (each step counted once: ``n_counted`` steps, ``n_unknown`` of them of
    unknown cost), and the count per kind."""

    run_id: str
    findings: list[Finding]
    tokens: int
    cost_usd: float
    n_unknown: int
    by_kind: dict[str, int]
    n_findings: int = 0
    n_counted: int = 0

    @property
    def gate_value(self) -> float | None:
        """What ``--max-avoidable-cost`` compares: the known cost; None when no counted step's
        cost is known (the gate cannot judge it)."""
        if self.n_counted and self.n_unknown == self.n_counted:
            return None
        return self.cost_usd


@dataclass(frozen=True)
class SuiteSpend:
    """A suite's avoidable spend: the sums over its runs with findings."""

    suite: str
    n_runs: int
    n_findings: int
    tokens: int
    cost_usd: float
    n_unknown: int


@dataclass(frozen=True)
class SuiteCosts:
    """A suite's cost as its traces report it beside the cost recomputed at ingest, summed over
    the ``n_compared`` of its ``n_runs`` runs where both are known; ``recomputed_all`` sums
    the recomputed cost of its ``n_recomputed`` runs that have one."""

    suite: str
    n_runs: int
    n_compared: int
    reported_usd: float
    recomputed_usd: float
    n_recomputed: int
    recomputed_all_usd: float

    @property
    def difference_pct(self) -> float | None:
        """How far the recomputed sum is above (+) or below the reported one, in percent of the
        reported; None when nothing is compared or the reported sum is 0."""
        if not self.n_compared or not self.reported_usd:
            return None
        return (self.recomputed_usd - self.reported_usd) / self.reported_usd * 100.0

    def summary(self) -> str:
        """One line: ``recomputed $12.40 vs reported $12.10, +2.5 % (9 of 10 runs)``."""
        if self.n_compared:
            pct = self.difference_pct
            shown = "n/a %" if pct is None else f"{pct:+.1f} %"
            return (
                f"recomputed {_dollars(self.recomputed_usd)} vs reported "
                f"{_dollars(self.reported_usd)}, {shown} ({self.n_compared} of {self.n_runs}"
                " run(s) with both)"
            )
        if self.n_recomputed:
            return (
                f"recomputed {_dollars(self.recomputed_all_usd)} ({self.n_recomputed} of "
                f"{self.n_runs} run(s)); no reported cost to compare"
            )
        return f"no cost recomputed ({self.n_runs} run(s): no tokens, or unknown models)"


def _dollars(value: float) -> str:
    """$12.40; four decimals below a dollar ($0.0123)."""
    return f"${value:,.2f}" if abs(value) >= 1 else f"${value:.4f}"


@dataclass
class SpendReport:
    """Avoidable spend of the selected runs: per run (only runs with findings) and per suite."""

    runs: dict[str, RunSpend] = field(default_factory=dict)
    suites: dict[str, SuiteSpend] = field(default_factory=dict)
    options: SpendOptions = field(default_factory=SpendOptions)
    prices_as_of: str = ""
    selected: frozenset[str] = frozenset()  # the selected runs the archive holds
    costs: dict[str, SuiteCosts] = field(default_factory=dict)  # reported vs recomputed

    def run(self, run_id: str) -> RunSpend:
        """The spend of ``run_id`` (no findings: an empty one)."""
        return self.runs.get(run_id) or RunSpend(run_id, [], 0, 0.0, 0, {})

    def gate_value(self, run_id: str) -> float | None:
        """``--max-avoidable-cost``'s value for ``run_id``: None when the archive does not hold
        it or none of its findings has a known cost."""
        return self.run(run_id).gate_value if run_id in self.selected else None

    def to_json(self) -> dict[str, Any]:
        """The JSON contract of ``reportgen spend --json``: options, runs, suites, sorted."""
        return {
            "options": asdict(self.options),
            "prices_as_of": self.prices_as_of,
            "runs": [
                {**asdict(r), "findings": [asdict(f) for f in r.findings]}
                for _, r in sorted(self.runs.items())
            ],
            "suites": [asdict(s) for _, s in sorted(self.suites.items())],
            "cost_check": [
                {**asdict(c), "difference_pct": c.difference_pct}
                for _, c in sorted(self.costs.items())
            ],
            "total": {
                "n_findings": sum(r.n_findings for r in self.runs.values()),
                "tokens": sum(r.tokens for r in self.runs.values()),
                "cost_usd": sum(r.cost_usd for r in self.runs.values()),
            },
        }


_STAGED = "SELECT run_id FROM spend_runs ORDER BY run_id"
_EXPLAINED = ("ttl_s", "long_context", "subagent_share")
_PRICES = "spend_prices"
_PRICE_SCHEMA = pa.schema(
    [
        ("model", pa.string()),
        ("input", pa.float64()),
        ("output", pa.float64()),
        ("cache_write", pa.float64()),
        ("cache_read", pa.float64()),
    ]
)


def _register_prices(con: duckdb.DuckDBPyConnection) -> str:
    """Register ``spend_prices`` for the models the selected runs name (one lookup per distinct
    model, not per step); returns the price table's date."""
    table = load_table()
    models = [str(row[0]) for row in con.execute(load_sql("spend_models")).fetchall()]
    rows: dict[str, list[Any]] = {name: [] for name in _PRICE_SCHEMA.names}
    for model in models:
        price = table.price(model)
        if price is None:
            continue
        rows["model"].append(model)
        for rate in ("input", "output", "cache_write", "cache_read"):
            rows[rate].append(getattr(price, rate))
    columns = {"model": arrow.strings(rows["model"])} | {
        rate: arrow.numbers(rows[rate], pa.float64()) for rate in _PRICE_SCHEMA.names[1:]
    }
    con.register(_PRICES, arrow.table(columns, _PRICE_SCHEMA))
    return table.as_of


def avoidable_spend(
    con: duckdb.DuckDBPyConnection,
    run_ids: Sequence[str] | None = None,
    options: SpendOptions | None = None,
    *,
    suite: str | None = None,
    findings: bool = True,
) -> SpendReport:
    """The avoidable-spend findings of ``run_ids`` (None: every run of the archive), summed
    per run and per suite; ``suite`` keeps that suite's runs only. ``findings=False``: the sums only (what a gate needs; no finding
    rows reach Python). Read-only: it makes temp tables only."""
    chosen = options or SpendOptions()
    ids = sorted(set(run_ids or []))
    con.execute(
        load_sql("spend_runs"), {"all_runs": run_ids is None, "run_ids": ids, "suite": suite}
    )
    as_of = _register_prices(con)
    try:
        staged = [] if run_ids is None else [r[0] for r in con.execute(_STAGED).fetchall()]
        con.execute(load_sql("spend_steps"), {"all_runs": run_ids is None, "run_ids": staged})
        con.execute(load_sql("spend_found"))
        for name, params in KINDS.values():
            con.execute("INSERT INTO spend_found " + load_sql(name), chosen.params(params))
        con.execute(load_sql("spend_totals"))
        rows = (
            con.sql(load_sql("spend_explain"), params=chosen.params(_EXPLAINED))
            .to_arrow_table()
            .to_pylist()
            if findings
            else []
        )
        totals = con.sql("SELECT * FROM spend_run_totals").fetchall()
        suites = con.sql(load_sql("spend_suite_totals")).fetchall()
        costs = con.sql(load_sql("spend_cost_check")).fetchall() if findings else []
        selected = con.sql("SELECT run_id FROM spend_runs WHERE selected").fetchall()
    finally:
        con.unregister(_PRICES)
        for table in ("spend_found", "spend_run_totals", "spend_steps", "spend_runs"):
            con.execute(f"DROP TABLE IF EXISTS {table}")
    by_run: dict[str, list[Finding]] = {}
    for row in rows:
        by_run.setdefault(row["run_id"], []).append(_finding(row))
    report = SpendReport(
        options=chosen, prices_as_of=as_of, selected=frozenset(str(r[0]) for r in selected)
    )
    for run_id, n_findings, by_kind, tokens, cost, n_unknown, n_counted in totals:
        report.runs[run_id] = RunSpend(
            run_id, by_run.get(run_id, []), int(tokens or 0), float(cost or 0.0),
            int(n_unknown), {str(k): int(v) for k, v in dict(by_kind).items()},
            int(n_findings), int(n_counted),
        )  # fmt: skip
    for suite, n_runs, n_findings, tokens, cost, n_unknown in suites:
        report.suites[suite] = SuiteSpend(
            suite, int(n_runs), int(n_findings), int(tokens or 0), float(cost or 0.0),
            int(n_unknown),
        )  # fmt: skip
    for suite, n_runs, n_compared, reported, recomputed, n_recomputed, recomputed_all in costs:
        report.costs[suite] = SuiteCosts(
            suite, int(n_runs), int(n_compared), float(reported), float(recomputed),
            int(n_recomputed), float(recomputed_all),
        )  # fmt: skip
    return report


def _finding(row: dict[str, Any]) -> Finding:
    """A finding from its spend_explain row."""
    return Finding(
        kind=row["kind"],
        run_id=row["run_id"],
        step=row["idx"],
        ref_step=row["ref_idx"],
        tokens=row["tokens"],
        cost_usd=row["cost"],
        detail=row["detail"],
        amount=row["amount"],
        explanation=row["explanation"],
    )


#: Runs per avoidable_spend call when a gate reads many: the steps of one chunk are staged as
#: temp tables (about 400 bytes a step), so 10^7 steps at once held ~4 GB.
GATE_CHUNK_RUNS = 4000


def gate_values(
    con: duckdb.DuckDBPyConnection, run_ids: Sequence[str], chunk: int = GATE_CHUNK_RUNS
) -> dict[str, float | None]:
    """``--max-avoidable-cost``'s value of each run (``SpendReport.gate_value``), computed
    ``chunk`` runs at a time so memory holds one chunk's steps (each chunk reads the child
    runs its runs name, as one call over every run would)."""
    ids = sorted(set(run_ids))
    out: dict[str, float | None] = {}
    for start in range(0, len(ids), chunk):
        part = ids[start : start + chunk]
        report = avoidable_spend(con, part, findings=False)
        out.update((run_id, report.gate_value(run_id)) for run_id in part)
    return out
