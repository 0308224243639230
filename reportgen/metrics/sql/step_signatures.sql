-- step_signatures: the steps of every run in `pair_runs`, grouped by step signature and then by
-- payload (grain: distinct signature). Grouping numbers the values exactly (no hash stands
-- for a signature or a payload; see payload_groups for the one derived column):
--   action    the signature's action (labels diff rows and loops)
--   payloads  per distinct (input, output) JSON text under this signature (absent = JSON
--             null), the steps that carry it, each as rn * 2^35 + status_code * 2^32 + idx
--             (status_code as in pair_metrics.sql: 0 ok/success, 1 error, 2 retry,
--             3 abandoned, 4 any other status)
-- The signature is (type, action, sorted top-level input keys): steps match in the LCS (TDI,
-- alignment) exactly when they share a row here. Two steps are in the same payload group
-- exactly when they have the same signature and payload; the metrics only ever compare the
-- payloads of steps with equal signatures (matched diff rows, repeats of a loop), so the group
-- serves as the payload's id.
WITH scoped AS (
    SELECT
        s.type,
        s.action,
        s.input_keys,
        coalesce(CAST(s.input AS VARCHAR), 'null') AS input_text,
        coalesce(CAST(s.output AS VARCHAR), 'null') AS output_text,
        CAST(pr.rn AS BIGINT) * 34359738368
        + CAST(CASE s.status
            WHEN 'ok' THEN 0
            WHEN 'success' THEN 0
            WHEN 'error' THEN 1
            WHEN 'retry' THEN 2
            WHEN 'abandoned' THEN 3
            ELSE 4
        END AS BIGINT) * 4294967296
        + s.idx AS step
    FROM steps AS s
    INNER JOIN pair_runs AS pr ON pr.run_id = s.run_id
),

-- input_keys is derived from input (its sorted top-level keys), so within one payload group
-- it is one list; grouping by its hash rather than the list itself halves the cost of this
-- query (list comparisons are slow), and still separates two different key lists unless the
-- archive is inconsistent and their 64-bit hashes collide as well.
payload_groups AS (
    SELECT
        type,
        action,
        any_value(input_keys) AS input_keys,
        list(step) AS steps
    FROM scoped
    GROUP BY type, action, hash(input_keys), input_text, output_text
)

SELECT
    any_value(action) AS action,
    list(steps) AS payloads
FROM payload_groups
GROUP BY type, action, input_keys
