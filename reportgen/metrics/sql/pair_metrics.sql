-- pair_metrics: the per-step facts of every run in `pair_runs` that the pair metrics read
-- besides signatures (grain: run_id, idx), in no particular order (pair_metrics places each
-- row by rn and idx). The per-pair work (alignment, RSR, loops, diffs) then runs vectorised in
-- numpy over all pairs at once (reportgen/metrics/udfs.py).
--   status_text  with $spell = true, each step's status spelled out (pair_metrics asks only
--                when step_signatures.sql gives a status_code of 4: a status other than ok,
--                success, error, retry and abandoned)
--   tokens_*, cost_usd, latency_ms   the step's numbers, summed into run totals where the run
--                does not give them (run_totals.sql)
SELECT
    pr.rn,
    s.idx,
    CASE WHEN $spell THEN CASE WHEN s.status = 'success' THEN 'ok' ELSE s.status END END
        AS status_text,
    s.tokens_in,
    s.tokens_out,
    s.cost_usd,
    s.latency_ms
FROM steps AS s
INNER JOIN pair_runs AS pr ON pr.run_id = s.run_id
