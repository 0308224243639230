-- finding_flaps: the trajectory findings of each compared pair, each with how many of the
-- baseline's own repeat pairs (same task, same night) show the same finding.
-- Grain: one row per finding (pid, kind, key) of a pair in rg_flap_pairs, ordered by pid,
--   kind, key.
-- Needs: archive table steps; Arrow views rg_flap_pairs (pid, grp, b, c: the pairs judged)
--   and rg_flap_runs (run_id, grp: every baseline run of each group), registered by
--   reportgen.divergence.findings.pair_findings.
-- A finding's identity is (kind, key), from multisets of each run's steps, never from the
-- step alignment:
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
-- The judged pairs' findings are found pair by pair; the repeat pairs are never listed: each
-- kind's count over a group follows from counting its runs (e.g. new_tool a: the runs that
-- never call a times the runs that do), so the cost grows with the runs, not their pairs.
WITH groups AS (  -- each group judged, as a number (narrower join keys than its text)
    SELECT grp, row_number() OVER () AS gid FROM (SELECT DISTINCT grp FROM rg_flap_pairs)
),
judged_pairs AS (
    SELECT p.pid, g.gid, p.b, p.c FROM rg_flap_pairs AS p INNER JOIN groups AS g USING (grp)
),
grp_runs AS (
    SELECT DISTINCT r.run_id, g.gid FROM rg_flap_runs AS r INNER JOIN groups AS g USING (grp)
),
sizes AS (
    SELECT gid, count(*) AS m FROM grp_runs GROUP BY gid
),
runs AS (
    SELECT b AS run_id FROM judged_pairs
    UNION
    SELECT c FROM judged_pairs
    UNION
    SELECT run_id FROM grp_runs
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
    SELECT run_id, action, count(*) AS calls, min(idx) AS first,
        coalesce(bool_or(repeated), FALSE) AS looped
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
    SELECT p.pid, p.gid, p.b, p.c, x.action, x.first AS b_first, y.first AS c_first
    FROM judged_pairs AS p
    INNER JOIN acts AS x ON x.run_id = p.b
    INNER JOIN acts AS y ON y.run_id = p.c AND y.action = x.action
),
-- the judged pairs' findings: (kind, action, other) with other the argument, the signed
-- status or the action called first ('' for the kinds keyed by the action alone)
found AS (
    SELECT p.pid, p.gid, CASE WHEN x.action IS NULL THEN 'new_tool' ELSE 'step_added' END
        AS kind, y.action, '' AS other
    FROM judged_pairs AS p
    INNER JOIN acts AS y ON y.run_id = p.c
    LEFT JOIN acts AS x ON x.run_id = p.b AND x.action = y.action
    WHERE x.action IS NULL OR y.calls > x.calls
    UNION ALL
    SELECT p.pid, p.gid, 'step_removed', x.action, ''
    FROM judged_pairs AS p
    INNER JOIN acts AS x ON x.run_id = p.b
    LEFT JOIN acts AS y ON y.run_id = p.c AND y.action = x.action
    WHERE y.action IS NULL OR y.calls < x.calls
    UNION ALL
    SELECT p.pid, p.gid, 'new_loop', y.action, ''
    FROM judged_pairs AS p
    INNER JOIN acts AS y ON y.run_id = p.c AND y.looped
    LEFT JOIN acts AS x ON x.run_id = p.b AND x.action = y.action AND x.looped
    WHERE x.action IS NULL
    UNION ALL
    SELECT x.pid, x.gid, 'reordered', x.action, y.action
    FROM both_acts AS x
    INNER JOIN both_acts AS y
        ON y.pid = x.pid AND x.b_first < y.b_first AND y.c_first < x.c_first
    UNION ALL
    SELECT DISTINCT coalesce(x.pid, y.pid), coalesce(x.gid, y.gid), 'arg_changed',
        coalesce(x.action, y.action), coalesce(x.arg, y.arg)
    FROM (SELECT a.pid, a.gid, g.* FROM both_acts AS a INNER JOIN args AS g
            ON g.run_id = a.b AND g.action = a.action) AS x
    FULL JOIN (SELECT a.pid, a.gid, g.* FROM both_acts AS a INNER JOIN args AS g
            ON g.run_id = a.c AND g.action = a.action) AS y
        ON y.pid = x.pid AND y.action = x.action AND y.arg = x.arg
    WHERE x.vals IS DISTINCT FROM y.vals
    UNION ALL
    SELECT coalesce(x.pid, y.pid), coalesce(x.gid, y.gid), 'status_flipped',
        coalesce(x.action, y.action),
        CASE WHEN x.status IS NULL THEN '+' || y.status ELSE '-' || x.status END
    FROM (SELECT a.pid, a.gid, f.* FROM both_acts AS a INNER JOIN fails AS f
            ON f.run_id = a.b AND f.action = a.action) AS x
    FULL JOIN (SELECT a.pid, a.gid, f.* FROM both_acts AS a INNER JOIN fails AS f
            ON f.run_id = a.c AND f.action = a.action) AS y
        ON y.pid = x.pid AND y.action = x.action AND y.status = x.status
    WHERE x.status IS NULL OR y.status IS NULL
),
judged AS (
    SELECT DISTINCT pid, gid, kind, action, other FROM found
),
-- each group's runs per action they call (k of its m runs call it); only groups of two runs
-- or more: a group of one has no repeat pair (n = 0), and its seen, 0 whatever the kind, is
-- never read (the one-run-a-task folders of a compare skip this part so)
g_acts AS (
    SELECT r.gid, a.run_id, a.action, a.calls, a.first, a.looped
    FROM grp_runs AS r
    INNER JOIN sizes AS z ON z.gid = r.gid AND z.m >= 2
    INNER JOIN acts AS a ON a.run_id = r.run_id
),
per_action AS (
    SELECT gid, action, count(*) AS k, count(*) FILTER (WHERE looped) AS loops
    FROM g_acts
    GROUP BY gid, action
),
-- runs of a group calling an action so many times, and how many call it more and fewer times
calls AS (
    SELECT
        gid,
        action,
        n,
        coalesce(sum(n) OVER (PARTITION BY gid, action ORDER BY calls DESC
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS more,
        coalesce(sum(n) OVER (PARTITION BY gid, action ORDER BY calls
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS fewer
    FROM (SELECT gid, action, calls, count(*) AS n FROM g_acts GROUP BY gid, action, calls)
),
-- the orders and values the judged reorders and argument changes ask about
need_order AS (
    SELECT DISTINCT gid, action, other FROM judged WHERE kind = 'reordered'
),
need_arg AS (
    SELECT DISTINCT gid, action, other AS arg FROM judged WHERE kind = 'arg_changed'
),
need_fail AS (
    SELECT DISTINCT gid, action, other[2:] AS status FROM judged WHERE kind = 'status_flipped'
),
-- the group's runs asked about, joined first: joined to args on (action, arg) alone, the
-- planner may pair every run's values with every group's question before it filters
need_arg_runs AS MATERIALIZED (
    SELECT n.gid, n.action, n.arg, a.run_id
    FROM need_arg AS n
    INNER JOIN g_acts AS a ON a.gid = n.gid AND a.action = n.action
),
arg_classes AS (
    SELECT n.gid, n.action, n.arg, count(*) AS k
    FROM need_arg_runs AS n
    INNER JOIN args AS g ON g.run_id = n.run_id AND g.action = n.action AND g.arg = n.arg
    GROUP BY n.gid, n.action, n.arg, g.vals
),
seen AS (
    -- new_tool: a run never calling it, then one calling it
    SELECT s.gid, 'new_tool' AS kind, p.action, '' AS other, (s.m - p.k) * p.k AS seen
    FROM per_action AS p
    INNER JOIN sizes AS s ON s.gid = p.gid
    UNION ALL
    -- new_loop: a run never repeating it back to back, then one repeating it
    SELECT s.gid, 'new_loop', p.action, '', (s.m - p.loops) * p.loops
    FROM per_action AS p
    INNER JOIN sizes AS s ON s.gid = p.gid
    UNION ALL
    -- step_added: a run calling it c > 0 times, then one calling it more often
    SELECT gid, 'step_added', action, '', sum(n * more)
    FROM calls
    GROUP BY gid, action
    UNION ALL
    -- step_removed: a run calling it c > 0 times, then one calling it fewer times (or never)
    SELECT c.gid, 'step_removed', c.action, '', sum(c.n * (c.fewer + s.m - p.k))
    FROM calls AS c
    INNER JOIN per_action AS p ON p.gid = c.gid AND p.action = c.action
    INNER JOIN sizes AS s ON s.gid = c.gid
    GROUP BY c.gid, c.action
    UNION ALL
    -- reordered (action, other): a run calling action first, then one calling other first
    SELECT n.gid, 'reordered', n.action, n.other,
        count(*) FILTER (WHERE x.first < y.first) * count(*) FILTER (WHERE y.first < x.first)
    FROM need_order AS n
    INNER JOIN g_acts AS x ON x.gid = n.gid AND x.action = n.action
    INNER JOIN g_acts AS y ON y.run_id = x.run_id AND y.action = n.other
    GROUP BY n.gid, n.action, n.other
    UNION ALL
    -- arg_changed: two runs calling the action whose values (or none) for it differ
    SELECT c.gid, 'arg_changed', c.action, c.arg,
        p.k * p.k - sum(c.k * c.k) - (p.k - sum(c.k)) * (p.k - sum(c.k))
    FROM arg_classes AS c
    INNER JOIN per_action AS p ON p.gid = c.gid AND p.action = c.action
    GROUP BY c.gid, c.action, c.arg, p.k
    UNION ALL
    -- status_flipped (either sign): two runs calling the action, one with the status
    SELECT n.gid, 'status_flipped', n.action, sign || n.status,
        count(*) * (any_value(p.k) - count(*))
    FROM need_fail AS n
    INNER JOIN g_acts AS a ON a.gid = n.gid AND a.action = n.action
    SEMI JOIN fails AS f ON f.run_id = a.run_id AND f.action = n.action AND f.status = n.status
    INNER JOIN per_action AS p ON p.gid = n.gid AND p.action = n.action
    CROSS JOIN (VALUES ('+'), ('-')) AS signs (sign)
    GROUP BY n.gid, n.action, n.status, sign
)
SELECT
    j.pid,
    j.kind,
    CASE j.kind
        WHEN 'reordered' THEN j.other || ' before ' || j.action
        WHEN 'arg_changed' THEN j.action || '.' || j.other
        WHEN 'status_flipped' THEN j.action || ':' || j.other
        ELSE j.action
    END AS key,
    CAST(coalesce(s.seen, 0) AS BIGINT) AS seen,
    CAST(coalesce(z.m * (z.m - 1), 0) AS BIGINT) AS n
FROM judged AS j
LEFT JOIN seen AS s
    ON s.gid = j.gid AND s.kind = j.kind AND s.action = j.action AND s.other = j.other
LEFT JOIN sizes AS z ON z.gid = j.gid
ORDER BY j.pid, j.kind, key
