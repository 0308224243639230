-- step_facts: every step of every run in `pair_runs`, with what the pair metrics read (grain:
-- run_id, idx), in no particular order (pair_metrics places each row by rn and idx).
--   status_code   0 ok/success, 1 error, 2 retry, 3 abandoned, 4 any other status (spelled
--                 out by step_statuses.sql when one occurs)
--   signature     64-bit hash of the step signature (type, action, sorted top-level input
--                 keys): steps match in the LCS exactly when their signatures are equal
--   payload       64-bit hash of the input and output JSON texts (absent = JSON null): a
--                 matched step is "modified" and a loop repeat not stagnant when they differ
--   action        labels diff rows and loop steps
--   tokens_*, cost_usd, latency_ms   summed into run totals where the run gives none
-- Hashes stand for the values: computed here on every read (never stored, so a DuckDB upgrade
-- cannot mix two hash functions), and two different signatures or payloads share one with
-- probability about 2^-64 per compared pair, far below any other error in a trace.
SELECT
    pr.rn,
    s.idx,
    CAST(CASE s.status
        WHEN 'ok' THEN 0
        WHEN 'success' THEN 0
        WHEN 'error' THEN 1
        WHEN 'retry' THEN 2
        WHEN 'abandoned' THEN 3
        ELSE 4
    END AS TINYINT) AS status_code,
    hash(s.type, s.action, s.input_keys) AS signature,
    hash(
        coalesce(CAST(s.input AS VARCHAR), 'null'), coalesce(CAST(s.output AS VARCHAR), 'null')
    ) AS payload,
    s.action,
    s.tokens_in,
    s.tokens_out,
    s.cost_usd,
    s.latency_ms
FROM steps AS s
INNER JOIN pair_runs AS pr ON pr.run_id = s.run_id
