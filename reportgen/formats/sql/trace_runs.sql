-- trace_runs: creates the temp table stage_trace_runs: typed runs from staged traces, with
-- defaults applied.
-- Grain: none: creates temp table stage_trace_runs (one row per run).
-- Needs: temp tables stage_trace_raw (trace_read.sql rows, made by
--   reportgen.formats.duck.read_or_explain), stage_files (made by
--   reportgen.ingest.loader._stage_files), stage_steps (holding the steps of typed records,
--   trace_typed_steps.sql, whose count is their run's n_steps); macros rg_text, rg_time,
--   rg_absent (macros.sql).
-- Defaults: label = the file's folder name, suite = 'default', trial = 0, run_id = task id
-- plus a hash of the file name and the run's content. batch stays NULL when not given: the
-- loader assigns it over the whole load (reportgen/ingest/default_batches.sql).
CREATE OR REPLACE TEMP TABLE stage_trace_runs AS
SELECT
    r.rowid AS rid,
    coalesce(rg_text(r.run_id),
             rg_text(r.task_id) || '-' || substr(md5(concat_ws('|',
                 parse_filename(r.source_file), r.task_id, r.label, r.suite, r.batch, r.trial,
                 r.started_at, r.meta, r.output, CAST(r.steps AS VARCHAR))), 1, 12)) AS run_id,
    coalesce(rg_text(r.suite), 'default') AS suite,
    coalesce(rg_text(r.label), f.default_label) AS label,
    rg_text(r.task_id) AS task_id,
    rg_text(r.batch) AS batch,
    coalesce(CAST(r.trial AS INTEGER), 0) AS trial,
    rg_time(r.started_at) AS started_at,
    CASE WHEN rg_absent(r.meta) THEN NULL ELSE r.meta END AS meta,
    rg_text(r.output) AS output,
    CASE WHEN rg_absent(r.success) THEN NULL ELSE CAST(r.success AS BOOLEAN) END AS success,
    CASE WHEN rg_absent(r.reward) THEN NULL ELSE CAST(r.reward AS DOUBLE) END AS reward,
    CASE WHEN rg_absent(r.tokens_in) THEN NULL ELSE CAST(r.tokens_in AS BIGINT) END AS tokens_in,
    CASE WHEN rg_absent(r.tokens_out) THEN NULL ELSE CAST(r.tokens_out AS BIGINT) END AS tokens_out,
    CASE WHEN rg_absent(r.cost_usd) THEN NULL ELSE CAST(r.cost_usd AS DOUBLE) END AS cost_usd,
    CASE WHEN rg_absent(r.latency_ms) THEN NULL ELSE CAST(r.latency_ms AS DOUBLE) END AS latency_ms,
    CASE WHEN rg_absent(r.cache_read_tokens) THEN NULL
        ELSE CAST(r.cache_read_tokens AS BIGINT) END AS cache_read_tokens,
    CASE WHEN rg_absent(r.cache_write_tokens) THEN NULL
        ELSE CAST(r.cache_write_tokens AS BIGINT) END AS cache_write_tokens,
    CASE WHEN rg_absent(r.reasoning_tokens) THEN NULL
        ELSE CAST(r.reasoning_tokens AS BIGINT) END AS reasoning_tokens,
    CAST(CASE WHEN r.typed THEN coalesce(t.n, 0) ELSE len(r.steps) END AS INTEGER) AS n_steps,
    'trace-v1' AS format,
    f.display_path AS source_file,
    f.content_hash
FROM stage_trace_raw AS r
JOIN stage_files AS f ON f.source_file = r.source_file
LEFT JOIN (SELECT run_id, count(*) AS n FROM stage_steps GROUP BY run_id) AS t
    ON r.typed AND t.run_id = rg_text(r.run_id)
