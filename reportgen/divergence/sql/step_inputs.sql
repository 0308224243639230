-- step_inputs: the input JSON text of chosen steps (the modified rows of a comparison, for
-- their per-key argument_diff), each named by its run and its position in the run (the step
-- index the pair records report: 0.. in idx order, whatever gaps idx has).
-- Grain: one row per distinct (run_id, pos) of rg_wanted_inputs found in steps.
-- Needs: archive table steps; Arrow view rg_wanted_inputs (run_id, pos), registered by
--   reportgen.divergence.metrics._argument_diffs.
WITH placed AS (
    SELECT
        s.run_id,
        CAST(row_number() OVER (PARTITION BY s.run_id ORDER BY s.idx) - 1 AS INTEGER) AS pos,
        CAST(s.input AS VARCHAR) AS input
    FROM steps AS s
    WHERE s.run_id IN (SELECT DISTINCT run_id FROM rg_wanted_inputs)
)
SELECT p.run_id, p.pos, p.input
FROM placed AS p
SEMI JOIN (SELECT DISTINCT run_id, pos FROM rg_wanted_inputs) AS w
    ON w.run_id = p.run_id AND w.pos = p.pos
