-- convergence_outcomes: the outcome fields of every member run of a convergence group.
-- Reads rg_convergence_members (gid, i, run_id), registered by the caller.
-- Grain: one row per member (gid, i) whose run_id is in `runs`; success and reward may be
-- NULL (not given by the trace).
SELECT m.gid, m.i, r.success, r.reward
FROM rg_convergence_members AS m
INNER JOIN runs AS r ON r.run_id = m.run_id
ORDER BY m.gid, m.i
