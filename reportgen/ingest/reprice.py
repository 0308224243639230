"""``runs.cost_recomputed_usd``: each staged run's cost recomputed from its tokens and the
model's price (reportgen.formats.pricing: genai-prices, with the ``[prices]`` override),
stored beside ``cost_usd``, the cost the trace gives (kept as it is).

A run with model calls that carry tokens costs the sum of its calls, each priced on its own
(so a price's tiers apply per call, as providers bill) at the price of its date; the model of
a call is its action when that names a known model, else the run's ``meta.model``. A run
whose calls carry no tokens but which gives totals is priced from the totals at the model's
base rates (no tiers: a total is not one call). NULL when any priced row's model is unknown:
a part-priced sum would read as a full one.

How, without a Python step per call:

1. reprice_calls.sql stages the rows to price (``rg_reprice_calls``), each with a ``key_no``
   for its distinct (totals, action, model, UTC day); reprice_keys.sql lists the keys.
2. Each key is resolved here once: the call's model is chosen as above, and its price on that
   day read through :meth:`PriceTable.day_price` as bands of linear per-token rates (one band
   for a flat price or an override; one per range between tier thresholds for a genai-prices
   ``TieredPrices``, whose tier applies to the whole call by its prompt size); a totals key
   gets its model's base rates as one band. A key of unknown model gets no rates.
3. A price that cannot be bands (it changes within a day, as deepseek's off-peak hours do; or
   a kind of rate genai-prices may add) is priced per call with :meth:`PriceTable.cost`, each
   distinct usage once (reprice_usages.sql: the same tokens on the same day, or at the same
   time for a price that changes within a day, are one lookup).
4. reprice_runs.sql prices every call (its band's rates, or its usage's cost) and sums each
   run exactly (DECIMAL) in one statement that updates ``stage_runs``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import duckdb
import pyarrow as pa

from reportgen._sql import load_sql
from reportgen.archive import arrow
from reportgen.formats.pricing import PROMPT_MAX, PROMPT_MIN, Band, PriceTable, Usage, load_table

_CALLS = "rg_reprice_calls"
_RATES = "rg_reprice_rates"
_COSTS = "rg_reprice_costs"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: the rows of a key priced per call (a row with no rates)
_BY_CALL = Band(PROMPT_MIN, PROMPT_MAX, *(Decimal(0),) * 5)
#: a key: (totals, action, model, day_us), as reprice_keys.sql gives it
Key = tuple[bool, str | None, str | None, int]
_KEY = [
    ("totals", pa.bool_()),
    ("action", pa.string()),
    ("model", pa.string()),
    ("day_us", pa.int64()),
]
_RATES_SCHEMA = pa.schema(
    [
        *_KEY,
        ("by_call", pa.bool_()),
        ("hourly", pa.bool_()),
        ("prompt_above", pa.int64()),
        ("prompt_upto", pa.int64()),
        ("input", pa.string()),
        ("output", pa.string()),
        ("cache_read", pa.string()),
        ("cache_write", pa.string()),
        ("per_call", pa.string()),
    ]
)
_COSTS_SCHEMA = pa.schema(
    [
        *_KEY,
        ("prompt", pa.int64()),
        ("output", pa.int64()),
        ("cache_read", pa.int64()),
        ("cache_write", pa.int64()),
        ("at_us", pa.int64()),
        ("cost", pa.string()),
    ]
)


def reprice_staged(con: duckdb.DuckDBPyConnection, table: PriceTable | None = None) -> None:
    """Set ``cost_recomputed_usd`` of every staged run that has rows to price and a known
    model for each (see the module docstring)."""
    con.execute(load_sql("reprice_calls"))
    try:
        keys = con.execute(load_sql("reprice_keys")).fetchall()
        if keys:
            _reprice(con, table or load_table(), keys)
    finally:
        con.execute(f"DROP VIEW IF EXISTS {_CALLS}")


def _reprice(con: duckdb.DuckDBPyConnection, prices: PriceTable, keys: list[Key]) -> None:
    rates: list[tuple[Key, bool, bool, Band]] = []
    by_call: dict[Key, str] = {}
    for key in keys:
        totals, action, model, day_us = key
        name = next((n for n in (action, model) if n and prices.price(n) is not None), None)
        if name is None:
            continue
        if totals:
            base = prices.price(name)
            assert base is not None
            rates.append((key, False, False, Band.of(base)))
            continue
        found = prices.day_price(name, _when(day_us))
        assert found is not None
        if found.bands:
            rates.extend((key, False, False, band) for band in found.bands)
        else:
            by_call[key] = name
            rates.append((key, True, found.hourly, _BY_CALL))
    con.register(_RATES, _rates_table(rates))
    try:
        usages: list[tuple[bool, str | None, str | None, int, int, int, int, int, int]] = []
        costs: list[float | None] = []
        if by_call:
            usages = con.execute(load_sql("reprice_usages")).fetchall()
            for totals, action, model, day_us, prompt, out, read, write, at_us in usages:
                name = by_call[(totals, action, model, day_us)]
                costs.append(prices.cost(name, Usage(prompt, out, read, write), _when(at_us)))
        con.register(_COSTS, _costs_table(usages, costs))
        try:
            con.execute(load_sql("reprice_runs"))
        finally:
            con.unregister(_COSTS)
    finally:
        con.unregister(_RATES)


def _when(us: int) -> datetime | None:
    """The time of epoch microseconds ``us`` (-2^63: none, priced at today's price)."""
    return None if us == PROMPT_MIN else _EPOCH + timedelta(microseconds=us)


def _decimal(value: Decimal) -> str:
    return format(value, "f")


def _key_columns(keys: list[Key]) -> dict[str, pa.Array]:
    return {
        "totals": arrow.numbers([k[0] for k in keys], pa.bool_()),
        "action": arrow.strings([k[1] for k in keys]),
        "model": arrow.strings([k[2] for k in keys]),
        "day_us": arrow.numbers([k[3] for k in keys], pa.int64()),
    }


def _rates_table(rows: list[tuple[Key, bool, bool, Band]]) -> pa.Table:
    bands = [band for *_, band in rows]
    columns = _key_columns([r[0] for r in rows]) | {
        "by_call": arrow.numbers([r[1] for r in rows], pa.bool_()),
        "hourly": arrow.numbers([r[2] for r in rows], pa.bool_()),
        "prompt_above": arrow.numbers([b.prompt_above for b in bands], pa.int64()),
        "prompt_upto": arrow.numbers([b.prompt_upto for b in bands], pa.int64()),
    }
    for rate in ("input", "output", "cache_read", "cache_write", "per_call"):
        columns[rate] = arrow.strings(
            [None if by else _decimal(getattr(b, rate)) for (_, by, _, b) in rows]
        )
    return arrow.table(columns, _RATES_SCHEMA)


def _costs_table(
    usages: list[tuple[bool, str | None, str | None, int, int, int, int, int, int]],
    costs: list[float | None],
) -> pa.Table:
    columns = _key_columns([(u[0], u[1], u[2], u[3]) for u in usages])
    counts = [u[4:] for u in usages]
    for k, name in enumerate(("prompt", "output", "cache_read", "cache_write", "at_us")):
        columns[name] = arrow.numbers([c[k] for c in counts], pa.int64())
    columns["cost"] = arrow.strings(
        [None if c is None else _decimal(Decimal(repr(c))) for c in costs]
    )
    return arrow.table(columns, _COSTS_SCHEMA)
