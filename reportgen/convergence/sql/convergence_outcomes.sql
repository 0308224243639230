-- convergence_outcomes: the outcome fields (success, reward) of every member run of a
-- convergence group.
-- Grain: one row per member (gid, i) whose run_id is in runs, ordered by gid, i; success and
--   reward may be NULL (not given by the trace).
-- Needs: archive table runs; Arrow view rg_convergence_members (gid, i, run_id) (registered
--   by reportgen.convergence.report._outcomes, from trajectories.member_table).
SELECT m.gid, m.i, r.success, r.reward
FROM rg_convergence_members AS m
INNER JOIN runs AS r ON r.run_id = m.run_id
ORDER BY m.gid, m.i
