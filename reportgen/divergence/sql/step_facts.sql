-- step_facts: every step of every run in pair_runs, with what the pair metrics read.
-- Grain: one row per step (run_id, idx; given as rn, idx), in no particular order
--   (pair_metrics places each row by rn and idx).
-- Needs: archive table steps; temp table pair_runs (pair_runs.sql, made by
--   reportgen.divergence.metrics._read); macros rg_step_signature, rg_step_payload
--   (step_hashes.sql, defined there first by define_step_hashes); parameter $computed (the
--   answer of step_hashes_missing.sql, passed by reportgen.divergence.metrics._facts).
-- Both hashes are stored at ingest. With $computed (some step of the archive lacks them: rows
-- written by other means) they are computed here instead, for every step.
-- Columns:
--   status_code   0 ok/success, 1 error, 2 retry, 3 abandoned, 4 any other status (spelled
--                 out by step_statuses.sql when one occurs)
--   signature     rg_step_signature (reportgen/archive/step_hashes.sql): steps match in the
--                 LCS exactly when their signatures are equal
--   payload       rg_step_payload: a loop repeat is not stagnant, and a repeat not an
--                 identical call, when their payloads differ
--   state         the payload and the error message: a matched step is "modified" when the
--                 states differ (AgentDiff compares error_message there, not in loops)
--   action        labels diff rows and loop steps
--   parent        the enclosing step's index (NULL: none): orders the steps for the alignment
--   tokens_*, cost_usd, latency_ms   summed into run totals where the run gives none
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
    CASE
        WHEN $computed THEN rg_step_signature(s.type, s.action, s.input_keys) ELSE s.signature
    END AS signature,
    CASE WHEN $computed THEN rg_step_payload(s.input, s.output) ELSE s.payload END AS payload,
    CASE
        WHEN s.error IS NULL THEN
            CASE WHEN $computed THEN rg_step_payload(s.input, s.output) ELSE s.payload END
        ELSE hash(CASE WHEN $computed THEN rg_step_payload(s.input, s.output) ELSE s.payload END, s.error)
    END AS state,
    s.action,
    s.parent,
    s.tokens_in,
    s.tokens_out,
    s.cost_usd,
    s.latency_ms
FROM steps AS s
INNER JOIN pair_runs AS pr ON pr.run_id = s.run_id
