-- finding_flaps: the trajectory findings of each compared pair, each with how many of the
-- baseline's own repeat pairs (same task, same night) show the same finding.
-- Grain: one row per finding (pid, kind, key) of a pair in rg_flap_pairs, ordered by pid,
--   kind, key.
-- Needs: archive table steps; Arrow views rg_flap_pairs (pid, grp, b, c: the pairs judged)
--   and rg_flap_runs (run_id, grp: every baseline run of each group), registered by
--   reportgen.divergence.findings.pair_findings.
-- A finding's identity is (kind, key), from multisets of each run's steps, never from the
-- step alignment, so that it is computed for every ordered pair of runs at once:
--   new_tool        key action: the candidate calls an action the baseline never calls
--   step_added      key action: the candidate calls an action the baseline calls, more often
--   step_removed    key action: the candidate calls an action fewer times (or never)
--   arg_changed     key action.argument: for an action both call, the set of values given
--                   to that argument differs (an argument given on one side only included)
--   status_flipped  key action:+status (a failed status the candidate has for an action both
--                   call and the baseline has not) or action:-status (the other way round)
--   reordered       key "x before y": both runs call x and y; the candidate first calls x
--                   before y, the baseline y before x
--   new_loop        key action: the candidate repeats a call back to back (same action and
--                   input) and the baseline never repeats that action so
-- Repeat pairs: every ordered pair of distinct runs of one group (rg_flap_runs.grp).
--   seen  repeat pairs of the judged pair's group that show the same finding
--   n     repeat pairs of that group (m runs: m x (m - 1))
WITH pairs AS (
    SELECT pid, grp, b, c, FALSE AS is_repeat FROM rg_flap_pairs
    UNION ALL
    SELECT -1 - row_number() OVER (ORDER BY x.run_id, y.run_id), x.grp, x.run_id, y.run_id, TRUE
    FROM rg_flap_runs AS x
    INNER JOIN rg_flap_runs AS y ON x.grp = y.grp AND x.run_id <> y.run_id
    WHERE x.grp IN (SELECT grp FROM rg_flap_pairs)
),
runs AS (
    SELECT b AS run_id FROM pairs
    UNION
    SELECT c FROM pairs
),
st AS (
    SELECT
        s.run_id,
        s.idx,
        s.action,
        s.status,
        s.input,
        s.input_keys,
        lag(s.action) OVER w = s.action
        AND lag(CAST(s.input AS VARCHAR)) OVER w IS NOT DISTINCT FROM CAST(s.input AS VARCHAR)
            AS repeated
    FROM steps AS s
    SEMI JOIN runs AS r ON r.run_id = s.run_id
    WINDOW w AS (PARTITION BY s.run_id ORDER BY s.idx)
),
acts AS (
    SELECT run_id, action, count(*) AS calls, min(idx) AS first, bool_or(repeated) AS looped
    FROM st
    GROUP BY run_id, action
),
args AS (
    SELECT
        run_id,
        action,
        arg,
        list_sort(list_distinct(list(hash(CAST(json_extract(
            input, '/' || replace(replace(arg, '~', '~0'), '/', '~1')
        ) AS VARCHAR))))) AS vals
    FROM (SELECT run_id, action, input, unnest(input_keys) AS arg FROM st)
    GROUP BY run_id, action, arg
),
fails AS (
    SELECT DISTINCT run_id, action, status FROM st WHERE status <> 'ok'
),
both_acts AS (
    SELECT p.pid, p.b, p.c, x.action, x.calls AS b_calls, y.calls AS c_calls,
        x.first AS b_first, y.first AS c_first
    FROM pairs AS p
    INNER JOIN acts AS x ON x.run_id = p.b
    INNER JOIN acts AS y ON y.run_id = p.c AND y.action = x.action
),
found AS (
    SELECT p.pid, CASE WHEN x.action IS NULL THEN 'new_tool' ELSE 'step_added' END AS kind,
        y.action AS key
    FROM pairs AS p
    INNER JOIN acts AS y ON y.run_id = p.c
    LEFT JOIN acts AS x ON x.run_id = p.b AND x.action = y.action
    WHERE x.action IS NULL OR y.calls > x.calls
    UNION ALL
    SELECT p.pid, 'step_removed', x.action
    FROM pairs AS p
    INNER JOIN acts AS x ON x.run_id = p.b
    LEFT JOIN acts AS y ON y.run_id = p.c AND y.action = x.action
    WHERE y.action IS NULL OR y.calls < x.calls
    UNION ALL
    SELECT p.pid, 'new_loop', y.action
    FROM pairs AS p
    INNER JOIN acts AS y ON y.run_id = p.c AND y.looped
    LEFT JOIN acts AS x ON x.run_id = p.b AND x.action = y.action AND x.looped
    WHERE x.action IS NULL
    UNION ALL
    SELECT x.pid, 'reordered', y.action || ' before ' || x.action
    FROM both_acts AS x
    INNER JOIN both_acts AS y
        ON y.pid = x.pid AND x.b_first < y.b_first AND y.c_first < x.c_first
    UNION ALL
    SELECT DISTINCT coalesce(x.pid, y.pid), 'arg_changed',
        coalesce(x.action, y.action) || '.' || coalesce(x.arg, y.arg)
    FROM (SELECT a.pid, g.* FROM both_acts AS a INNER JOIN args AS g
            ON g.run_id = a.b AND g.action = a.action) AS x
    FULL JOIN (SELECT a.pid, g.* FROM both_acts AS a INNER JOIN args AS g
            ON g.run_id = a.c AND g.action = a.action) AS y
        ON y.pid = x.pid AND y.action = x.action AND y.arg = x.arg
    WHERE x.vals IS DISTINCT FROM y.vals
    UNION ALL
    SELECT coalesce(x.pid, y.pid), 'status_flipped', coalesce(x.action, y.action) || ':'
        || CASE WHEN x.status IS NULL THEN '+' || y.status ELSE '-' || x.status END
    FROM (SELECT a.pid, f.* FROM both_acts AS a INNER JOIN fails AS f
            ON f.run_id = a.b AND f.action = a.action) AS x
    FULL JOIN (SELECT a.pid, f.* FROM both_acts AS a INNER JOIN fails AS f
            ON f.run_id = a.c AND f.action = a.action) AS y
        ON y.pid = x.pid AND y.action = x.action AND y.status = x.status
    WHERE x.status IS NULL OR y.status IS NULL
),
judged AS (
    SELECT DISTINCT f.pid, p.grp, f.kind, f.key
    FROM found AS f
    INNER JOIN pairs AS p ON p.pid = f.pid AND NOT p.is_repeat
),
seen AS (
    SELECT p.grp, f.kind, f.key, count(DISTINCT f.pid) AS seen
    FROM found AS f
    INNER JOIN pairs AS p ON p.pid = f.pid AND p.is_repeat
    GROUP BY p.grp, f.kind, f.key
),
sizes AS (
    SELECT grp, count(*) * (count(*) - 1) AS n FROM rg_flap_runs GROUP BY grp
)
SELECT
    j.pid,
    j.kind,
    j.key,
    CAST(coalesce(s.seen, 0) AS BIGINT) AS seen,
    CAST(coalesce(z.n, 0) AS BIGINT) AS n
FROM judged AS j
LEFT JOIN seen AS s ON s.grp = j.grp AND s.kind = j.kind AND s.key = j.key
LEFT JOIN sizes AS z ON z.grp = j.grp
ORDER BY j.pid, j.kind, j.key
