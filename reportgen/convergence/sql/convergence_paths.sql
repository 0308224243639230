-- convergence_paths: the step path of every member run of a convergence group.
-- Grain: one row per member (gid, i) whose run_id is in runs, ordered by gid, i; members
--   without a trace (outputs loaded on their own) get no row, as their path is unknown.
-- Needs: archive tables runs, steps; Arrow view rg_convergence_members (gid, i, run_id)
--   (registered by reportgen.convergence.trajectories.trajectory_convergence); macro
--   rg_step_signature (step_hashes.sql, defined there first by define_step_hashes; used only
--   for steps without a stored signature).
-- Columns:
--   sigs     the run's step signatures in step order, as dense integer ids: equal ids <=>
--            equal stored signature hashes (type, action, sorted top-level input keys; see
--            reportgen/archive/step_hashes.sql), the step match rule of TDI in pair_metrics.
--            A run without steps has [].
--   path_id  dense id of the whole sequence: equal ids <=> the same path.
WITH member_runs AS (
    SELECT m.gid, m.i, m.run_id
    FROM rg_convergence_members AS m
    WHERE m.run_id IN (SELECT r.run_id FROM runs AS r)
),

member_steps AS (
    SELECT
        s.run_id,
        s.idx,
        coalesce(s.signature, rg_step_signature(s.type, s.action, s.input_keys)) AS signature
    FROM steps AS s
    WHERE s.run_id IN (SELECT mr.run_id FROM member_runs AS mr)
),

signatures AS (
    SELECT d.signature, CAST(row_number() OVER () AS INTEGER) AS sig_id
    FROM (SELECT DISTINCT signature FROM member_steps) AS d
),

run_paths AS (
    SELECT ms.run_id, list(sg.sig_id ORDER BY ms.idx) AS sigs
    FROM member_steps AS ms
    INNER JOIN signatures AS sg ON sg.signature = ms.signature
    GROUP BY ms.run_id
),

member_paths AS (
    SELECT mr.gid, mr.i, coalesce(rp.sigs, []::INTEGER[]) AS sigs
    FROM member_runs AS mr
    LEFT JOIN run_paths AS rp ON rp.run_id = mr.run_id
),

path_ids AS (
    SELECT d.sigs, CAST(row_number() OVER () AS INTEGER) AS path_id
    FROM (SELECT DISTINCT sigs FROM member_paths) AS d
)

SELECT mp.gid, mp.i, mp.sigs, pi.path_id
FROM member_paths AS mp
INNER JOIN path_ids AS pi ON pi.sigs = mp.sigs
ORDER BY mp.gid, mp.i
