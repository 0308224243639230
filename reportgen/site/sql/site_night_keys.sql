-- site_night_keys: a hash of what each night's evaluation of two labels reads.
-- Grain: one row per batch holding a run of either label (NULL: the runs without one).
-- Needs: archive tables runs, steps, outputs (the redacted views shadowing them: a key is of
--   what the evaluation reads); parameter $labels: the two labels (reportgen.site.evalcache).
-- Hashed: the night's runs of the two labels (every column), their steps and their outputs.
-- Of a step, every column but its run id, input keys and input and output text, which its
-- run's row (content_hash, n_steps), the join and the stored step hashes (signature,
-- payload) stand for: through the redacted views that text costs more to hash than a night
-- costs to evaluate. DuckDB's hash of each row, combined with bit_xor, so the order rows are
-- stored in does not matter.
WITH chosen AS (
    SELECT r.run_id, r.batch, hash(r) AS row_hash
    FROM runs AS r
    WHERE list_contains($labels, r.label)
),

step_hashes AS (
    SELECT
        c.batch,
        bit_xor(hash(
            s.idx, s.type, s.action, s.status, s.tokens_in, s.tokens_out, s.cost_usd,
            s.latency_ms, s.started_at, s.parent, s.signature, s.payload, s.error,
            s.cache_read_tokens, s.cache_write_tokens, s.reasoning_tokens
        )) AS steps_hash,
        count(*) AS n_steps
    FROM steps AS s JOIN chosen AS c USING (run_id)
    GROUP BY c.batch
),

output_hashes AS (
    SELECT c.batch, bit_xor(hash(o)) AS outputs_hash, count(*) AS n_outputs
    FROM outputs AS o JOIN chosen AS c USING (run_id)
    GROUP BY c.batch
)

SELECT
    c.batch,
    CAST(bit_xor(c.row_hash) AS VARCHAR) AS runs_hash,
    count(*) AS n_runs,
    CAST(any_value(s.steps_hash) AS VARCHAR) AS steps_hash,
    any_value(s.n_steps) AS n_steps,
    CAST(any_value(o.outputs_hash) AS VARCHAR) AS outputs_hash,
    any_value(o.n_outputs) AS n_outputs
FROM chosen AS c
LEFT JOIN step_hashes AS s ON s.batch IS NOT DISTINCT FROM c.batch
LEFT JOIN output_hashes AS o ON o.batch IS NOT DISTINCT FROM c.batch
GROUP BY c.batch
ORDER BY c.batch NULLS FIRST
