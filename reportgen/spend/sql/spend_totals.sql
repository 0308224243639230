-- spend_totals: avoidable spend per selected run: findings, tokens and cost, each step counted
--   once (at its costliest finding: a repeated read can also be an identical call).
-- Grain: one row per selected run that has a finding, ordered by run_id.
-- Needs: temp tables spend_found, spend_runs (spend_found.sql, spend_runs.sql); parameters none.
-- cost sums the known costs of the counted findings; n_unknown counts those whose cost is not
-- known (an unpriced model, a log without usage); n_counted the steps counted. Kept as temp table spend_run_totals for
-- spend_suite_totals.sql.
CREATE OR REPLACE TEMP TABLE spend_run_totals AS
WITH found AS (
    SELECT * FROM spend_found WHERE run_id IN (SELECT run_id FROM spend_runs WHERE selected)
),

per_step AS (
    SELECT run_id, idx, tokens, cost
    FROM found
    QUALIFY row_number() OVER (
        PARTITION BY run_id, idx, CASE WHEN idx IS NULL THEN detail END
        ORDER BY cost DESC NULLS LAST, tokens DESC NULLS LAST, kind
    ) = 1
),

kinds AS (
    SELECT
        run_id,
        CAST(sum(n) AS BIGINT) AS n_findings,
        map_from_entries(list((kind, n) ORDER BY kind)) AS by_kind
    FROM (SELECT run_id, kind, count(*) AS n FROM found GROUP BY run_id, kind)
    GROUP BY run_id
)

SELECT
    p.run_id,
    any_value(k.n_findings) AS n_findings,
    any_value(k.by_kind) AS by_kind,
    CAST(sum(p.tokens) AS BIGINT) AS tokens,
    sum(p.cost ORDER BY p.idx) AS cost,
    count(*) FILTER (WHERE p.cost IS NULL) AS n_unknown,
    count(*) AS n_counted
FROM per_step AS p
JOIN kinds AS k ON k.run_id = p.run_id
GROUP BY p.run_id
ORDER BY p.run_id
