-- The steps of the given runs as JSON-ready structs, for diff views and explanations.
-- Grain: one row per step.
SELECT run_id, idx,
       {'type': type, 'action': action, 'status': status,
        'input': CAST(input AS VARCHAR), 'output': CAST(output AS VARCHAR),
        'tokens_in': tokens_in, 'tokens_out': tokens_out, 'cost_usd': cost_usd,
        'latency_ms': latency_ms} AS step
FROM steps
WHERE run_id IN (SELECT unnest($run_ids))
ORDER BY run_id, idx
