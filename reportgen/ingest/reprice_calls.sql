-- reprice_calls: the rows the recomputed cost of each staged run is priced from, as temp view
--   rg_reprice_calls: its model calls with tokens, or (a run whose calls carry none) its totals.
-- Grain: none: creates temp view rg_reprice_calls (one row per step with tokens of a staged
--   run: a model call; mini-swe-agent's steps are a call and its action in one; plus one row,
--   totals true, per staged run with token totals and no such step).
-- Needs: temp tables stage_runs and stage_steps (reportgen.ingest.loader._load); parameters
--   none. Read by reportgen.ingest.reprice (reprice_keys, reprice_usages, reprice_runs.sql).
-- model: an llm step's action (a model call's action is its model in the session formats), and
--   the run's meta.model (else the first of meta.models, else meta.agent_llm: tau2-bench) to
--   try when the action is no known model.
-- Tokens as reportgen.formats.pricing.Usage.split counts them: prompt is tokens_in, plus the
--   cache parts when they exceed it; fresh is the prompt less its cache parts. at_us and day_us:
--   the call's time and its UTC day's start in epoch microseconds (no time: -2^63).
-- A view, not a table: its two readers cost less than writing 100k rows once.
CREATE OR REPLACE TEMP VIEW rg_reprice_calls AS
WITH calls AS (
    SELECT s.run_id, CASE WHEN s.type = 'llm' THEN s.action END AS action,
        s.tokens_in, s.tokens_out, s.cache_read_tokens, s.cache_write_tokens, s.started_at
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
),
rows AS (
    SELECT c.run_id, false AS totals, c.action, r.model, c.tokens_in, c.tokens_out,
        c.cache_read_tokens, c.cache_write_tokens,
        epoch_us(coalesce(c.started_at, r.started_at)) AS at_us
    FROM calls AS c
    JOIN runs AS r USING (run_id)
    UNION ALL
    SELECT r.run_id, true, NULL, r.model, r.tokens_in, r.tokens_out, r.cache_read_tokens,
        r.cache_write_tokens, epoch_us(r.started_at)
    FROM runs AS r
    WHERE (r.tokens_in IS NOT NULL OR r.tokens_out IS NOT NULL)
        AND r.run_id NOT IN (SELECT run_id FROM calls)
),
counted AS (
    SELECT run_id, totals, action, model,
        coalesce(tokens_in, 0)::BIGINT AS tokens_in,
        coalesce(tokens_out, 0)::BIGINT AS output,
        coalesce(cache_read_tokens, 0)::BIGINT AS cache_read,
        coalesce(cache_write_tokens, 0)::BIGINT AS cache_write,
        coalesce(at_us, -9223372036854775808) AS at_us,
        -- the day's start: floor division (% keeps the sign of a time before 1970)
        coalesce(
            at_us - ((at_us % 86400000000) + 86400000000) % 86400000000, -9223372036854775808
        ) AS day_us
    FROM rows
)
SELECT run_id, totals, action, model, prompt, prompt - cache_read - cache_write AS fresh,
    output, cache_read, cache_write, at_us, day_us
FROM (
    SELECT *, CASE WHEN tokens_in < cache_read + cache_write
        THEN tokens_in + cache_read + cache_write ELSE tokens_in END AS prompt
    FROM counted
)
