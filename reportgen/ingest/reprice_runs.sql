-- reprice_runs: set cost_recomputed_usd of each staged run whose every priced row has a cost.
-- Grain: none: updates stage_runs (runs with a row of unknown cost are left as they are).
--   A row costs its key's band of linear rates (the band its prompt falls in), or the cost
--   reportgen.ingest.reprice found for its usage (rg_reprice_costs); summed exactly (DECIMAL).
-- Needs: temp table stage_runs, temp view rg_reprice_calls (reprice_calls.sql); registered
--   Arrow tables rg_reprice_rates and rg_reprice_costs (reportgen.ingest.reprice: keyed by
--   (totals, action, model, day_us); rates and costs as decimal text; a key of unknown model
--   has no rates row).
WITH rates AS (
    SELECT totals, action, model, day_us, by_call, hourly, prompt_above, prompt_upto,
        CAST(input AS DECIMAL(38, 20)) AS input,
        CAST(output AS DECIMAL(38, 20)) AS output,
        CAST(cache_read AS DECIMAL(38, 20)) AS cache_read,
        CAST(cache_write AS DECIMAL(38, 20)) AS cache_write,
        CAST(per_call AS DECIMAL(38, 20)) AS per_call
    FROM rg_reprice_rates
),
costs AS (
    SELECT totals, action, model, day_us, prompt, output, cache_read, cache_write, at_us,
        CAST(cost AS DECIMAL(38, 20)) AS cost
    FROM rg_reprice_costs
),
priced AS (
    SELECT c.run_id,
        CASE WHEN k.by_call THEN u.cost
            ELSE c.fresh * k.input + c.output * k.output + c.cache_read * k.cache_read
                + c.cache_write * k.cache_write + k.per_call
        END AS cost
    FROM rg_reprice_calls AS c
    LEFT JOIN rates AS k
        ON k.totals = c.totals AND k.action IS NOT DISTINCT FROM c.action
        AND k.model IS NOT DISTINCT FROM c.model AND k.day_us = c.day_us
        AND c.prompt > k.prompt_above AND c.prompt <= k.prompt_upto
    LEFT JOIN costs AS u
        ON k.by_call AND u.totals = c.totals AND u.action IS NOT DISTINCT FROM c.action
        AND u.model IS NOT DISTINCT FROM c.model AND u.day_us = c.day_us
        AND u.prompt = c.prompt AND u.output = c.output AND u.cache_read = c.cache_read
        AND u.cache_write = c.cache_write
        AND u.at_us = CASE WHEN k.hourly THEN c.at_us ELSE c.day_us END
),
totals AS (
    SELECT run_id, sum(cost) AS cost
    FROM priced
    GROUP BY run_id
    HAVING count(cost) = count(*)
)
UPDATE stage_runs SET cost_recomputed_usd = CAST(t.cost AS DOUBLE)
FROM totals AS t
WHERE stage_runs.run_id = t.run_id
