-- pair_metrics: every divergence metric of every pair in `pairs` (grain: pair_id).
-- Reads pairs(pair_id, task_id, baseline_run_id, candidate_run_id), step_signatures and
-- run_totals; per-pair sequence work runs in the rg_* UDFs (reportgen/metrics/udfs.py).
--   trajectory_divergence_index  1 - 2 * LCS / (|baseline| + |candidate|); 0.0 for two empty runs
--   *_wei                        wasted steps / steps; 0.0 for an empty run
--   *_recovery_steps, *_unrecovered_steps, recovery_step_ratio   RSR window walk (DESIGN.md)
--   *_delta_percentage           (candidate - baseline) / baseline * 100; NULL with a
--                                *_delta_reason when a side is unknown or the baseline is 0
--   loops_detected               loops of both runs, baseline first, by start index
--   step_diffs                   the aligned diff: matched / modified / added / removed
--   *_totals                     the numbers the WEI and the deltas were computed from
WITH run_lists AS (
    SELECT
        run_id,
        list(sig_id ORDER BY idx) AS sigs,
        list(payload_id ORDER BY idx) AS payloads,
        list(wasted ORDER BY idx) AS wasted,
        list(status ORDER BY idx) AS statuses,
        list(action ORDER BY idx) AS actions
    FROM step_signatures
    GROUP BY run_id
),

-- loops depend on one run only: found once per run, however many pairs it is in
run_steps AS MATERIALIZED (
    SELECT
        *,
        list_transform(
            rg_loops(sigs, payloads),
            lambda l: {
                'start_index': l.start_index,
                'length': l.length,
                'iterations': l.iterations,
                'steps': actions[l.start_index + 1:l.start_index + l.length],
                'stagnant': l.stagnant
            }
        ) AS loops
    FROM run_lists
),

sides AS (
    SELECT
        p.pair_id,
        p.task_id,
        p.baseline_run_id,
        p.candidate_run_id,
        coalesce(b.sigs, CAST([] AS INTEGER[])) AS b_sigs,
        coalesce(c.sigs, CAST([] AS INTEGER[])) AS c_sigs,
        coalesce(b.payloads, CAST([] AS INTEGER[])) AS b_payloads,
        coalesce(c.payloads, CAST([] AS INTEGER[])) AS c_payloads,
        coalesce(b.wasted, CAST([] AS BOOLEAN[])) AS b_wasted,
        coalesce(c.wasted, CAST([] AS BOOLEAN[])) AS c_wasted,
        coalesce(b.statuses, CAST([] AS VARCHAR[])) AS b_statuses,
        coalesce(c.statuses, CAST([] AS VARCHAR[])) AS c_statuses,
        coalesce(b.actions, CAST([] AS VARCHAR[])) AS b_actions,
        coalesce(c.actions, CAST([] AS VARCHAR[])) AS c_actions,
        coalesce(b.loops, []) AS b_loops,
        coalesce(c.loops, []) AS c_loops,
        bt.n_steps AS b_n,
        ct.n_steps AS c_n,
        bt.n_wasted AS b_n_wasted,
        ct.n_wasted AS c_n_wasted,
        bt.tokens AS b_tokens,
        ct.tokens AS c_tokens,
        bt.cost_usd AS b_cost,
        ct.cost_usd AS c_cost,
        bt.latency_ms AS b_latency,
        ct.latency_ms AS c_latency
    FROM pairs AS p
    LEFT JOIN run_steps AS b ON b.run_id = p.baseline_run_id
    LEFT JOIN run_steps AS c ON c.run_id = p.candidate_run_id
    LEFT JOIN run_totals AS bt ON bt.run_id = p.baseline_run_id
    LEFT JOIN run_totals AS ct ON ct.run_id = p.candidate_run_id
),

aligned AS (
    SELECT
        *,
        rg_lcs_length(b_sigs, c_sigs) AS lcs,
        rg_align(b_sigs, c_sigs) AS alignment
    FROM sides
),

matched AS (
    SELECT
        *,
        list_filter(alignment, lambda x: x.b IS NOT NULL AND x.c IS NOT NULL) AS matches
    FROM aligned
),

walked AS (
    SELECT
        *,
        rg_recovery(b_wasted, list_transform(matches, lambda x: x.b)) AS b_rec,
        rg_recovery(c_wasted, list_transform(matches, lambda x: x.c)) AS c_rec
    FROM matched
)

SELECT
    pair_id,
    task_id,
    baseline_run_id,
    candidate_run_id,
    CASE
        WHEN b_n + c_n = 0 THEN CAST(0 AS DOUBLE)
        ELSE CAST(1 AS DOUBLE) - (CAST(2 AS DOUBLE) * lcs) / CAST(b_n + c_n AS DOUBLE)
    END AS trajectory_divergence_index,
    CASE
        WHEN b_n = 0 THEN CAST(0 AS DOUBLE)
        ELSE CAST(b_n_wasted AS DOUBLE) / CAST(b_n AS DOUBLE)
    END AS baseline_wei,
    CASE
        WHEN c_n = 0 THEN CAST(0 AS DOUBLE)
        ELSE CAST(c_n_wasted AS DOUBLE) / CAST(c_n AS DOUBLE)
    END AS candidate_wei,
    list_concat(
        list_transform(
            b_loops,
            lambda l: {
                'side': 'baseline',
                'start_index': l.start_index,
                'length': l.length,
                'iterations': l.iterations,
                'steps': l.steps,
                'stagnant': l.stagnant
            }
        ),
        list_transform(
            c_loops,
            lambda l: {
                'side': 'candidate',
                'start_index': l.start_index,
                'length': l.length,
                'iterations': l.iterations,
                'steps': l.steps,
                'stagnant': l.stagnant
            }
        )
    ) AS loops_detected,
    b_rec.recovery_steps AS baseline_recovery_steps,
    c_rec.recovery_steps AS candidate_recovery_steps,
    b_rec.unrecovered_steps AS baseline_unrecovered_steps,
    c_rec.unrecovered_steps AS candidate_unrecovered_steps,
    CASE
        WHEN b_rec.recovery_steps <= 0 AND c_rec.recovery_steps <= 0 THEN CAST(0 AS DOUBLE)
        WHEN b_rec.recovery_steps > 0
            THEN CAST(c_rec.recovery_steps AS DOUBLE) / CAST(b_rec.recovery_steps AS DOUBLE)
        ELSE CAST(c_rec.recovery_steps AS DOUBLE)
    END AS recovery_step_ratio,
    CASE
        WHEN b_cost IS NULL OR c_cost IS NULL OR b_cost = 0 THEN NULL
        ELSE ((c_cost - b_cost) / b_cost) * CAST(100 AS DOUBLE)
    END AS cost_delta_percentage,
    CASE
        WHEN b_cost IS NULL THEN 'baseline_unknown'
        WHEN c_cost IS NULL THEN 'candidate_unknown'
        WHEN b_cost = 0 THEN 'baseline_zero'
    END AS cost_delta_reason,
    CASE
        WHEN b_tokens IS NULL OR c_tokens IS NULL OR b_tokens = 0 THEN NULL
        ELSE (CAST(c_tokens - b_tokens AS DOUBLE) / CAST(b_tokens AS DOUBLE)) * CAST(100 AS DOUBLE)
    END AS token_delta_percentage,
    CASE
        WHEN b_tokens IS NULL THEN 'baseline_unknown'
        WHEN c_tokens IS NULL THEN 'candidate_unknown'
        WHEN b_tokens = 0 THEN 'baseline_zero'
    END AS token_delta_reason,
    CASE
        WHEN b_latency IS NULL OR c_latency IS NULL OR b_latency = 0 THEN NULL
        ELSE ((c_latency - b_latency) / b_latency) * CAST(100 AS DOUBLE)
    END AS latency_delta_percentage,
    CASE
        WHEN b_latency IS NULL THEN 'baseline_unknown'
        WHEN c_latency IS NULL THEN 'candidate_unknown'
        WHEN b_latency = 0 THEN 'baseline_zero'
    END AS latency_delta_reason,
    list_transform(
        alignment,
        lambda x: {
            'status': CASE
                WHEN x.b IS NULL THEN 'added'
                WHEN x.c IS NULL THEN 'removed'
                WHEN b_statuses[x.b + 1] = c_statuses[x.c + 1]
                    AND b_payloads[x.b + 1] = c_payloads[x.c + 1] THEN 'matched'
                ELSE 'modified'
            END,
            'baseline_index': x.b,
            'candidate_index': x.c,
            'action': coalesce(b_actions[x.b + 1], c_actions[x.c + 1])
        }
    ) AS step_diffs,
    {'steps': b_n, 'wasted_steps': b_n_wasted, 'tokens': b_tokens, 'cost_usd': b_cost,
     'latency_ms': b_latency} AS baseline_totals,
    {'steps': c_n, 'wasted_steps': c_n_wasted, 'tokens': c_tokens, 'cost_usd': c_cost,
     'latency_ms': c_latency} AS candidate_totals
FROM walked
ORDER BY pair_id
