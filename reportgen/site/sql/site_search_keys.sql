-- site_search_keys: a hash of what each part of the search index is made from (search.py).
-- Grain: one row per unit of temp table rg_search_runs (a night, or a block of older nights).
-- Needs: temp table rg_search_runs (unit, run_no, run_id, steps) and temp views
--   rg_search_run_rows (its runs) and rg_search_steps (the steps of its runs whose steps are
--   indexed), as the session sees them (redacted), made by reportgen.site.search.
-- Hashed: every column of the unit's runs, and of the steps every column but the input and
-- output text and the input keys, which the stored step hashes (signature, payload) and the
-- run's row (content_hash, n_steps) stand for, as in site_night_keys.sql: hashing that text
-- costs more than indexing the night's words. DuckDB's hash of each row, combined with
-- bit_xor, so the order rows are stored in does not matter.
WITH run_hashes AS (
    SELECT r.unit, bit_xor(hash(r.run_no, r.steps, x)) AS runs_hash, count(*) AS n_runs
    FROM rg_search_run_rows AS x JOIN rg_search_runs AS r USING (run_id)
    GROUP BY r.unit
),

step_hashes AS (
    SELECT
        r.unit,
        bit_xor(hash(
            r.run_no, s.idx, s.type, s.action, s.status, s.error, s.signature, s.payload
        )) AS steps_hash,
        count(*) AS n_steps
    FROM rg_search_steps AS s JOIN rg_search_runs AS r USING (run_id)
    WHERE r.steps
    GROUP BY r.unit
)

SELECT
    u.unit,
    CAST(u.runs_hash AS VARCHAR) AS runs_hash,
    u.n_runs,
    CAST(s.steps_hash AS VARCHAR) AS steps_hash,
    coalesce(s.n_steps, 0) AS n_steps
FROM run_hashes AS u
LEFT JOIN step_hashes AS s USING (unit)
ORDER BY u.unit
