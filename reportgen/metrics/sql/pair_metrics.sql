-- pair_metrics: the per-step facts of every run in `pair_runs` that the pair metrics read
-- besides signatures (grain: run_id, idx), in no particular order (pair_metrics places each
-- row by rn and idx). The per-pair work (alignment, RSR, loops, diffs) then runs vectorised in
-- numpy over all pairs at once (reportgen/metrics/udfs.py).
--   status_code  0 ok (or success), 1 error, 2 retry, 3 abandoned (1-3: wasted: WEI, RSR),
--                4 any other status; with $spell = true, status_text spells each one out
--                (pair_metrics asks only when a 4 appears)
--   tokens_*, cost_usd, latency_ms   the step's numbers, summed into run totals where the run
--                does not give them (run_totals.sql)
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
    CASE WHEN $spell THEN CASE WHEN s.status = 'success' THEN 'ok' ELSE s.status END END
        AS status_text,
    s.tokens_in,
    s.tokens_out,
    s.cost_usd,
    s.latency_ms
FROM steps AS s
INNER JOIN pair_runs AS pr ON pr.run_id = s.run_id
