-- run_texts: what each given run says in words, for the "why" of a pair (compare --explain):
-- its meta (goal, title, scorer's reason), final answer and outcome.
-- Grain: one row per run_id of $run_ids found in runs, ordered by run_id.
-- Needs: archive table runs; parameter $run_ids (a list of run ids, passed by
--   reportgen.divergence.why.run_texts).
-- meta is JSON text; output, success and reward are NULL where the run does not give them.
SELECT
    run_id,
    CAST(meta AS VARCHAR) AS meta,
    output,
    success,
    reward
FROM runs
WHERE run_id IN (SELECT unnest($run_ids))
ORDER BY run_id
