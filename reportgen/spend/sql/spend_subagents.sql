-- spend_subagents: expensive sub-agents: a child run (listed in its parent's meta.children)
--   whose own cost is above $subagent_share of its parent's own cost.
-- Grain: one row per (selected parent run, child run), at the step that started the child.
-- Needs: archive table runs; temp tables spend_runs (selected runs and their children) and
--   spend_steps (spend_steps.sql); parameter $subagent_share (0..).
-- A run's cost is the sum of its steps' known or priced costs (spend_steps' rule); the child
-- need not be selected itself. amount: the child's cost as a share of the parent's.
WITH links AS (
    SELECT
        r.run_id,
        json_extract_string(c.value, '$.run_id') AS child_id,
        TRY_CAST(json_extract(c.value, '$.step') AS INTEGER) AS idx
    FROM runs AS r
    JOIN spend_runs AS sel ON sel.run_id = r.run_id AND sel.selected,
        json_each(json_extract(r.meta, '$.children')) AS c
),

totals AS (
    SELECT run_id, sum(cost) AS cost, CAST(sum(tokens) AS BIGINT) AS tokens
    FROM spend_steps
    GROUP BY run_id
)

SELECT
    l.run_id,
    'expensive_subagent' AS kind,
    l.idx,
    CAST(NULL AS INTEGER) AS ref_idx,
    c.tokens,
    c.cost,
    l.child_id AS detail,
    c.cost / o.cost AS amount
FROM links AS l
JOIN totals AS c ON c.run_id = l.child_id
JOIN totals AS o ON o.run_id = l.run_id
WHERE c.cost > $subagent_share * o.cost
