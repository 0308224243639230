"""``runs.cost_recomputed_usd``: each staged run's cost recomputed from its tokens and the
model's price (reportgen.formats.pricing: genai-prices, with the ``[prices]`` override),
stored beside ``cost_usd``, the cost the trace gives (kept as it is).

A run with model calls that carry tokens costs the sum of its calls, each priced on its own
(so a price's tiers apply per call, as providers bill) at the price of its date; the model of
a call is its action when that names a known model, else the run's ``meta.model``. A run
whose calls carry no tokens but which gives totals is priced from the totals at the model's
base rates (no tiers: a total is not one call). NULL when any priced row's model is unknown:
a part-priced sum would read as a full one."""

from __future__ import annotations

from datetime import datetime

import duckdb
import pyarrow as pa

from reportgen._sql import load_sql
from reportgen.archive import arrow
from reportgen.formats.pricing import PriceTable, Usage, load_table

_VIEW = "rg_recomputed"


def reprice_staged(con: duckdb.DuckDBPyConnection, table: PriceTable | None = None) -> None:
    """Set ``cost_recomputed_usd`` of every staged run (reprice_calls.sql rows priced here)."""
    rows = con.execute(load_sql("reprice_calls")).fetchall()
    if not rows:
        return
    prices = table or load_table()
    totals: dict[str, float | None] = {}
    memo: dict[tuple[object, ...], float | None] = {}
    for run_id, idx, action, model, t_in, t_out, read, write, started in rows:
        usage = Usage(t_in, t_out, read, write)
        key = (idx is None, action, model, usage, started.date() if started else None)
        if key not in memo:
            memo[key] = _price(prices, idx is None, action, model, usage, started)
        cost = memo[key]
        if run_id in totals and totals[run_id] is None:
            continue
        totals[run_id] = None if cost is None else (totals.get(run_id) or 0.0) + cost
    priced = {run_id: cost for run_id, cost in totals.items() if cost is not None}
    if not priced:
        return
    ids = sorted(priced)
    view = arrow.table(
        {
            "run_id": arrow.strings(ids),
            "cost": arrow.numbers([priced[i] for i in ids], pa.float64()),
        }
    )
    con.register(_VIEW, view)
    try:
        con.execute(
            f"UPDATE stage_runs SET cost_recomputed_usd = v.cost FROM {_VIEW} AS v"
            " WHERE stage_runs.run_id = v.run_id"
        )
    finally:
        con.unregister(_VIEW)


def _price(
    prices: PriceTable,
    totals: bool,
    action: str | None,
    model: str | None,
    usage: Usage,
    when: datetime | None,
) -> float | None:
    for name in (action, model):
        if not name or prices.price(name) is None:
            continue
        if totals:
            rates = prices.price(name)
            assert rates is not None
            prompt, out, read, write = usage.split()
            return rates.cost(prompt - read - write, out, write, read)
        return prices.cost(name, usage, when)
    return None
