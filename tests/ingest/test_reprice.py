"""The recomputed run cost (reportgen.ingest.reprice: prices resolved once per model and day,
calls priced in SQL) agrees with the slow reference: every model call priced one by one with
PriceTable.cost, as ingest did before (the reference below keeps that loop and its query).
Drawn over flat, tiered, date-changing, hourly (off-peak) and override prices, unknown models,
placeholders and NULL tokens."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen.archive import connect
from reportgen.formats.base import STAGE_TABLES
from reportgen.formats.pricing import Price, PriceTable, Usage
from reportgen.ingest.reprice import reprice_staged

HOUSE = Price(input=10.0, output=20.0, cache_write=12.5, cache_read=1.0)
TABLE = PriceTable({"house-model-7": HOUSE, "gpt-4o": Price(1.0, 3.0, 1.0, 0.25)})
MODELS = [
    "claude-sonnet-4-5",  # tiered at 200k
    "gemini-2.5-pro",  # tiered at 200k, no cache-write rate
    "gpt-5.5",  # tiered at 272k
    "claude-sonnet-4-6",  # tiered until 2026-03-13, flat from then
    "gpt-5",  # flat
    "claude-opus-4-5",  # flat, with cache-write rates
    "gemini-3-flash-preview",  # flat, audio rates besides (never used here)
    "deepseek-chat",  # off-peak hours: priced call by call
    "deepseek-v4-flash",  # date and hour prices
    "converse/jp.anthropic.claude-haiku-4-5-20251001-v1:0",  # a Bedrock name
    "house-model-7",  # the override's own model
    "gpt-4o",  # an override of a genai-prices model
    "house-model-8",  # unknown
    "reply",  # an adapter's placeholder
]
TIMES = [
    datetime(2026, 3, 12, 23, 59, 59, tzinfo=UTC),
    datetime(2026, 3, 13, 1, 0, tzinfo=timezone(timedelta(hours=2))),  # 12 March in UTC
    datetime(2026, 3, 13, 0, 0, tzinfo=UTC),
    datetime(2026, 8, 17, 2, 30, tzinfo=UTC),
    datetime(2026, 9, 10, 8, 0, tzinfo=UTC),
    datetime(2026, 11, 1, 0, 45, tzinfo=UTC),
    datetime(2026, 11, 1, 17, 0, tzinfo=UTC),
    datetime(2025, 6, 1, 12, 0, tzinfo=UTC),
]
# around the tier thresholds (a prompt above 200k / 272k takes the tier)
EDGES = [0, 1, 199_999, 200_000, 200_001, 271_999, 272_000, 272_001]
tokens = st.one_of(
    st.none(),
    st.sampled_from(EDGES),
    st.integers(0, 400_000),
)
small = st.one_of(st.none(), st.integers(0, 5_000), st.integers(0, 300_000))
times = st.one_of(st.none(), st.sampled_from(TIMES))
model_names = st.one_of(st.none(), st.sampled_from(MODELS))

steps = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["llm", "llm", "tool"]),
        "action": st.one_of(model_names, st.just("think")),
        "tokens_in": tokens,
        "tokens_out": small,
        "cache_read_tokens": small,
        "cache_write_tokens": small,
        "started_at": times,
    }
)
runs = st.fixed_dictionaries(
    {
        "meta_key": st.sampled_from(["model", "models", "agent_llm", None]),
        "model": model_names,
        "tokens_in": tokens,
        "tokens_out": small,
        "cache_read_tokens": small,
        "cache_write_tokens": small,
        "started_at": st.one_of(st.none(), st.sampled_from(TIMES)),
        "steps": st.lists(steps, max_size=6),
    }
)

# The query the per-call loop read (reprice_calls.sql before the SQL pricing), kept verbatim.
OLD_CALLS = """
WITH calls AS (
    SELECT s.run_id, s.idx, CASE WHEN s.type = 'llm' THEN s.action END AS action,
        s.tokens_in, s.tokens_out, s.cache_read_tokens,
        s.cache_write_tokens, s.started_at
    FROM stage_steps AS s
    WHERE s.tokens_in IS NOT NULL OR s.tokens_out IS NOT NULL
),
runs AS (
    SELECT run_id, tokens_in, tokens_out, cache_read_tokens, cache_write_tokens, started_at,
        coalesce(
            json_extract_string(meta, '$.model'), json_extract_string(meta, '$.models[0]'),
            json_extract_string(meta, '$.agent_llm')
        ) AS model
    FROM stage_runs
)
SELECT c.run_id, c.idx, c.action, r.model, c.tokens_in, c.tokens_out, c.cache_read_tokens,
    c.cache_write_tokens, coalesce(c.started_at, r.started_at) AS started_at
FROM calls AS c
JOIN runs AS r USING (run_id)
UNION ALL
SELECT r.run_id, NULL, NULL, r.model, r.tokens_in, r.tokens_out, r.cache_read_tokens,
    r.cache_write_tokens, r.started_at
FROM runs AS r
WHERE (r.tokens_in IS NOT NULL OR r.tokens_out IS NOT NULL)
    AND r.run_id NOT IN (SELECT run_id FROM calls)
ORDER BY 1, 2
"""


def reference(con: duckdb.DuckDBPyConnection, prices: PriceTable) -> dict[str, float]:
    """The slow reference: each row priced on its own (a call at its time with
    PriceTable.cost, totals at base rates), summed per run; runs with an unknown row left out."""
    totals: dict[str, float | None] = {}
    for run_id, idx, action, model, t_in, t_out, read, write, when in con.execute(
        OLD_CALLS
    ).fetchall():
        usage = Usage(t_in, t_out, read, write)
        cost: float | None = None
        for name in (action, model):
            if not name or prices.price(name) is None:
                continue
            if idx is None:
                base = prices.price(name)
                assert base is not None
                prompt, out, cache_read, cache_write = usage.split()
                cost = base.cost(prompt - cache_read - cache_write, out, cache_write, cache_read)
            else:
                cost = prices.cost(name, usage, when)
            break
        if run_id in totals and totals[run_id] is None:
            continue
        totals[run_id] = None if cost is None else (totals.get(run_id) or 0.0) + cost
    return {run_id: cost for run_id, cost in totals.items() if cost is not None}


@pytest.fixture(scope="module")
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    con = connect(None)
    yield con
    con.close()


def stage(con: duckdb.DuckDBPyConnection, drawn: list[dict[str, Any]]) -> None:
    for table in STAGE_TABLES:
        con.execute(f"CREATE OR REPLACE TEMP TABLE stage_{table} AS SELECT * FROM {table} LIMIT 0")
    counts = ("tokens_in", "tokens_out", "cache_read_tokens", "cache_write_tokens")
    timed = (*counts, "started_at")
    for n, run in enumerate(drawn):
        key, model = run["meta_key"], run["model"]
        meta = {} if key is None else {str(key): [model] if key == "models" else model}
        con.execute(
            "INSERT INTO stage_runs (run_id, meta, tokens_in, tokens_out, cache_read_tokens,"
            " cache_write_tokens, started_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [f"r{n}", json.dumps(meta), *(run[c] for c in timed)],
        )
        for idx, step in enumerate(run["steps"]):
            con.execute(
                "INSERT INTO stage_steps (run_id, idx, type, action, tokens_in, tokens_out,"
                " cache_read_tokens, cache_write_tokens, started_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [f"r{n}", idx, step["type"], step["action"], *(step[c] for c in timed)],
            )


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(runs, min_size=1, max_size=6))
def test_sql_pricing_agrees_with_the_per_call_loop(
    con: duckdb.DuckDBPyConnection, drawn: list[dict[str, Any]]
) -> None:
    stage(con, drawn)
    expected = reference(con, TABLE)
    reprice_staged(con, TABLE)
    got = dict(
        con.execute(
            "SELECT run_id, cost_recomputed_usd FROM stage_runs"
            " WHERE cost_recomputed_usd IS NOT NULL"
        ).fetchall()
    )
    assert got.keys() == expected.keys()
    for run_id, cost in expected.items():
        assert got[run_id] == pytest.approx(cost, rel=1e-12, abs=1e-15), run_id
    # the temp view and the registered tables are gone
    left = con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name LIKE 'rg_%'")
    assert left.fetchone() == (0,)
    for name in ("rg_reprice_calls", "rg_reprice_rates", "rg_reprice_costs"):
        with pytest.raises(duckdb.CatalogException):
            con.execute(f"SELECT 1 FROM {name}")


def test_tiered_bands_cut_at_the_threshold() -> None:
    """Claude Sonnet 4.5 on 2026-11-01: a 200,000-token prompt at base rates, one more token
    and the whole call at the long-context tier (genai-prices' own tiers, read as bands)."""
    day = TABLE.day_price("claude-sonnet-4-5", datetime(2026, 11, 1, tzinfo=UTC))
    assert day is not None and not day.hourly
    assert [(b.prompt_above, b.prompt_upto) for b in day.bands][1:] == [(200_000, 2**63 - 1)]
    assert [float(b.input) * 1e6 for b in day.bands] == [3.0, 6.0]
    assert [float(b.cache_read) * 1e6 for b in day.bands] == [0.3, 0.6]


def test_an_off_peak_price_is_priced_call_by_call() -> None:
    day = TABLE.day_price("deepseek-chat", datetime(2026, 11, 1, tzinfo=UTC))
    assert day is not None and day.bands == () and day.hourly
    assert TABLE.day_price("house-model-8", None) is None
