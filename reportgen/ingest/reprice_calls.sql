-- reprice_calls: what the recomputed cost of each staged run is priced from: its model calls
--   with tokens, or (a run whose calls carry none) the run's own token totals.
-- Grain: one row per step with tokens of a staged run (a model call; mini-swe-agent's steps
--   are a call and its action in one), plus one row per staged run with token totals and no
--   such step (idx NULL).
-- Needs: temp tables stage_runs and stage_steps (reportgen.ingest.loader._load); parameters
--   none. Read by reportgen.ingest.reprice, which prices the rows in Python (genai-prices).
-- model: an llm step's action (a model call's action is its model in the session formats), and
--   the run's meta.model (else the first of meta.models, else meta.agent_llm: tau2-bench) to
--   try when the action is no known model.
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
