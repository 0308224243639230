-- convergence_trajectory_pairs: LCS of the step paths of every pair of runs in a group.
-- Grain: one row per (gid, i, j) with i < j and both runs' paths known, ordered by gid, i, j.
-- Needs: Arrow view rg_convergence_paths (gid, i, sigs) (registered by
--   reportgen.convergence.trajectories._pairs, from the rows of convergence_paths.sql); UDF
--   rg_lcs_length (reportgen/divergence/udfs.py, registered there first by register_udfs).
-- TDI = 1 - 2 * lcs / (len_i + len_j) (0.0 for two empty paths) is taken by the caller.
SELECT
    a.gid,
    a.i,
    b.i AS j,
    len(a.sigs) AS len_i,
    len(b.sigs) AS len_j,
    rg_lcs_length(a.sigs, b.sigs) AS lcs
FROM rg_convergence_paths AS a
INNER JOIN rg_convergence_paths AS b ON b.gid = a.gid AND b.i > a.i
ORDER BY a.gid, a.i, b.i
