"""Model prices (reportgen.formats.pricing) and the recomputed run cost
(runs.cost_recomputed_usd): costs pinned by hand against genai-prices' published per-million
prices, the [prices] override, and every model of the shared data genai-prices knows priced."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from reportgen.archive import connect
from reportgen.errors import UsageError
from reportgen.formats.pricing import PriceTable, Usage, load_table, read_overrides
from reportgen.ingest import ingest

from ..site.shared_data import DATA, read_folders

WHEN = datetime(2026, 11, 1, tzinfo=UTC)
M = 1e6

# (model, usage, dollars): genai-prices' per-million prices, written out.
PINNED = [
    # Claude Sonnet 4.5: $3 input, $15 output, $3.75 cache write, $0.30 cache read (prompt up
    # to 200k). A 10,000-token prompt: 6,000 read from the cache, 2,000 written, 2,000 fresh.
    (
        "claude-sonnet-4-5-20250929",
        Usage(10_000, 1_000, cache_read=6_000, cache_write=2_000),
        (2_000 * 3 + 2_000 * 3.75 + 6_000 * 0.30 + 1_000 * 15) / M,
    ),
    # Over 200k prompt tokens the whole call is at the long-context tier: $6 / $22.5 / $7.5 /
    # $0.6.
    (
        "claude-sonnet-4-5",
        Usage(300_000, 1_000, cache_read=100_000, cache_write=0),
        (200_000 * 6 + 100_000 * 0.6 + 1_000 * 22.5) / M,
    ),
    # Claude Haiku 4.5 by its Bedrock name: $1 input, $5 output, $1.25 write, $0.10 read.
    (
        "converse/jp.anthropic.claude-haiku-4-5-20251001-v1:0",
        Usage(5_000, 500, cache_read=3_000, cache_write=1_000),
        (1_000 * 1 + 1_000 * 1.25 + 3_000 * 0.10 + 500 * 5) / M,
    ),
    # GPT-5: $1.25 input, $10 output, $0.125 cached input (no cache-write charge: written
    # tokens are input).
    (
        "gpt-5",
        Usage(100_000, 5_000, cache_read=80_000),
        (20_000 * 1.25 + 80_000 * 0.125 + 5_000 * 10) / M,
    ),
    # Codex's spelling gpt-5-1-codex-<date> is GPT-5.1: the same rates as GPT-5.
    (
        "gpt-5-1-codex-2025-11-13",
        Usage(100_000, 5_000, cache_read=80_000),
        (20_000 * 1.25 + 80_000 * 0.125 + 5_000 * 10) / M,
    ),
    # Gemini 2.5 Pro: $1.25 input, $10 output, $0.125 cached (prompt up to 200k).
    (
        "gemini-2.5-pro",
        Usage(40_000, 2_000, cache_read=30_000),
        (10_000 * 1.25 + 30_000 * 0.125 + 2_000 * 10) / M,
    ),
]


@pytest.mark.parametrize(("model", "usage", "dollars"), PINNED, ids=[p[0] for p in PINNED])
def test_pinned_costs(model: str, usage: Usage, dollars: float) -> None:
    assert PriceTable({}).cost(model, usage, WHEN) == pytest.approx(dollars)


def test_unknown_model_is_unknown_cost() -> None:
    table = PriceTable({})
    assert table.cost("house-model-7", Usage(10, 10), WHEN) is None
    assert table.price("house-model-7") is None


def test_cache_counts_above_the_prompt_are_added_to_it() -> None:
    """A format counting fresh input apart (tokens_in below its cache parts)."""
    apart = PriceTable({}).cost("gpt-5", Usage(20_000, 0, cache_read=80_000), WHEN)
    assert apart == pytest.approx((20_000 * 1.25 + 80_000 * 0.125) / M)


def _trace(folder: Path, model: str) -> Path:
    folder.mkdir()
    run = {
        "run_id": "r1",
        "task_id": "t",
        "meta": {"model": model},
        "steps": [
            {
                "type": "llm",
                "action": "think",
                "status": "ok",
                "tokens_in": 10_000,
                "tokens_out": 1_000,
                "cache_read_tokens": 6_000,
                "cache_write_tokens": 2_000,
                "started_at": "2026-11-01T00:00:00Z",
            },
            {"type": "llm", "action": "think", "status": "ok", "tokens_in": 1_000},
        ],
        "cost_usd": 0.5,
    }
    (folder / "runs.jsonl").write_text(json.dumps(run) + "\n")
    return folder


def _costs(db: Path) -> tuple[float | None, float | None]:
    con = connect(db, read_only=True)
    try:
        row = con.execute("SELECT cost_usd, cost_recomputed_usd FROM runs").fetchone()
    finally:
        con.close()
    assert row is not None
    return row[0], row[1]


def test_ingest_recomputes_beside_the_reported_cost(tmp_path: Path) -> None:
    """Each model call priced (the model from meta.model, the step's action being none), the
    trace's own cost kept."""
    ingest([_trace(tmp_path / "c", "claude-sonnet-4-5")], db=tmp_path / "a.duckdb")
    first = (2_000 * 3 + 2_000 * 3.75 + 6_000 * 0.30 + 1_000 * 15) / M
    assert _costs(tmp_path / "a.duckdb") == (0.5, pytest.approx(first + 1_000 * 3 / M))


def test_the_override_changes_a_price(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """[prices] in reportgen.toml wins over genai-prices, and prices a private model."""
    (tmp_path / "reportgen.toml").write_text(
        '[prices."claude-sonnet-4-5"]\ninput = 1\noutput = 2\ncache_read = 0.5\n'
        'cache_write = 4\n\n[prices."house-model-7"]\ninput = 10\noutput = 20\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    ingest([_trace(tmp_path / "c", "claude-sonnet-4-5")], db=tmp_path / "a.duckdb")
    first = (2_000 * 1 + 2_000 * 4 + 6_000 * 0.5 + 1_000 * 2) / M
    assert _costs(tmp_path / "a.duckdb") == (0.5, pytest.approx(first + 1_000 * 1 / M))
    ingest([_trace(tmp_path / "d", "house-model-7")], db=tmp_path / "b.duckdb")
    # cache rates default to the input rate
    house = (10_000 * 10 + 1_000 * 20 + 1_000 * 10) / M
    assert _costs(tmp_path / "b.duckdb") == (0.5, pytest.approx(house))
    assert load_table().source.endswith("reportgen.toml [prices]")


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[prices.m]\noutput = 2\n", "m.input: expected a non-negative number"),
        ("[prices.m]\ninput = 1\noutput = -2\n", "m.output: expected a non-negative number"),
        ("[prices.m]\ninput = 1\noutput = 2\nfresh = 1\n", "unknown key 'fresh'"),
    ],
)
def test_a_bad_override_is_a_usage_error(tmp_path: Path, text: str, says: str) -> None:
    config = tmp_path / "reportgen.toml"
    config.write_text(text, encoding="utf-8")
    with pytest.raises(UsageError, match=says):
        read_overrides(config)


# Models the shared data names, on runs with tokens, that genai-prices does not know:
UNPRICED = {
    # Harbor's scripted mock model (a test double, no price): the run's name and its steps'
    "openai/mock-scripted-model",
    "mock-scripted-model",
    "ollama/gemma3",  # local Ollama models: no list price
    "ollama/llama3.1",
    "azureai/Meta-Llama-3-1-405B-Instruct-jqf",  # an Azure AI deployment's own name
}
# Run model names: meta.model, else the first of meta.models, else meta.agent_llm; and the
# action of each llm step with tokens (reprice_calls.sql tries both).
NAMES = """
WITH priced AS (
    SELECT run_id, coalesce(json_extract_string(meta, '$.model'),
        json_extract_string(meta, '$.models[0]'), json_extract_string(meta, '$.agent_llm'))
        AS model
    FROM runs WHERE cost_recomputed_usd IS NULL
),
with_tokens AS (
    SELECT run_id, list(DISTINCT action) FILTER (type = 'llm') AS actions
    FROM steps WHERE tokens_in IS NOT NULL OR tokens_out IS NOT NULL GROUP BY run_id
    UNION ALL
    SELECT run_id, [] FROM runs WHERE (tokens_in IS NOT NULL OR tokens_out IS NOT NULL)
        AND run_id NOT IN (SELECT run_id FROM steps WHERE tokens_in IS NOT NULL
                           OR tokens_out IS NOT NULL)
)
SELECT DISTINCT unnest(list_append(coalesce(t.actions, []), p.model)) AS name
FROM priced AS p JOIN with_tokens AS t USING (run_id)
ORDER BY name
"""


@pytest.mark.skipif(not DATA.is_dir(), reason="the shared data is not beside")
def test_every_known_model_of_the_shared_data_is_priced(tmp_path: Path) -> None:
    db = tmp_path / "all.duckdb"
    ingest(read_folders(DATA), db=db)
    con = connect(db, read_only=True)
    try:
        names = {str(r[0]) for r in con.execute(NAMES).fetchall() if r[0] is not None}
    finally:
        con.close()
    table = PriceTable({})
    # names on unpriced runs that are models genai-prices knows: must be none
    assert {n for n in names if table.price(n) is not None} == set()
    # and the unknown names that look like models are the allow-list (the others are the
    # adapters' placeholders for a call that names no model)
    placeholders = {"assistant", "model", "response", "openhands", "<synthetic>", "reply"}
    assert names - placeholders == UNPRICED
