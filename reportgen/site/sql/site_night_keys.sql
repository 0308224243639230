-- site_night_keys: what each night's evaluation of two labels reads, hashed: its runs of the
--   two labels (every column), their steps and their outputs (DuckDB's hash of each row,
--   combined with bit_xor, so the order rows are stored in does not matter).
-- Grain: one row per batch holding a run of either label (NULL: the runs without one).
-- Needs: archive tables main.runs, main.steps, main.outputs (the stored rows, not the redacted
--   views shadowing them: the redaction policy is part of the key); parameter
--   $labels: the two labels (read by reportgen.site.evalcache).
WITH chosen AS (
    SELECT r.run_id, r.batch, hash(r) AS row_hash
    FROM main.runs AS r
    WHERE list_contains($labels, r.label)
),

step_hashes AS (
    SELECT c.batch, bit_xor(hash(s)) AS steps_hash, count(*) AS n_steps
    FROM main.steps AS s JOIN chosen AS c USING (run_id)
    GROUP BY c.batch
),

output_hashes AS (
    SELECT c.batch, bit_xor(hash(o)) AS outputs_hash, count(*) AS n_outputs
    FROM main.outputs AS o JOIN chosen AS c USING (run_id)
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
