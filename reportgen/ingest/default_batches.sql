-- default_batches: give each staged run that carries no batch the batch of the job it came
-- with (docs/formats.md, "Batches").
-- Grain: none: updates stage_runs.batch where it is NULL (one row per staged run).
-- Needs: temp table stage_runs (reportgen.ingest.loader._load; batch NULL = not given);
--   table runs; parameter $gap (INTERVAL, loader.BATCH_GAP). Session time zone UTC.
-- Rule: the runs without a batch of this load are grouped by the gaps between their start
-- times (a gap of $gap or more starts a new group, across every label). A group whose span,
-- widened by $gap either side, holds the start of a run that has a batch (archived and not
-- being replaced, or staged with one) joins the batch of the earliest such run; any other
-- group is named by the UTC date of its first start. Runs without a start time: 'undated'.
UPDATE stage_runs SET batch = named.batch
FROM (
    WITH todo AS (
        SELECT rowid AS rid, started_at FROM stage_runs WHERE batch IS NULL
    ),
    marked AS (
        SELECT rid, started_at,
               CASE WHEN started_at - lag(started_at) OVER (ORDER BY started_at, rid) < $gap
                    THEN 0 ELSE 1 END AS opens
        FROM todo WHERE started_at IS NOT NULL
    ),
    grouped AS (
        SELECT rid, started_at,
               sum(opens) OVER (ORDER BY started_at, rid ROWS UNBOUNDED PRECEDING) AS grp
        FROM marked
    ),
    spans AS (
        SELECT grp, min(started_at) AS first_start, max(started_at) AS last_start
        FROM grouped GROUP BY grp
    ),
    anchors AS (
        SELECT started_at, batch FROM runs
        WHERE started_at IS NOT NULL AND run_id NOT IN (SELECT run_id FROM stage_runs)
        UNION ALL
        SELECT started_at, batch FROM stage_runs
        WHERE started_at IS NOT NULL AND batch IS NOT NULL
    ),
    joined AS (
        SELECT s.grp, arg_min(a.batch, a.started_at) AS batch
        FROM spans AS s
        JOIN anchors AS a
          ON a.started_at >= s.first_start - $gap AND a.started_at <= s.last_start + $gap
        GROUP BY s.grp
    )
    SELECT t.rid,
           coalesce(j.batch, strftime(s.first_start, '%Y-%m-%d'), 'undated') AS batch
    FROM todo AS t
    LEFT JOIN grouped AS g USING (rid)
    LEFT JOIN spans AS s USING (grp)
    LEFT JOIN joined AS j USING (grp)
) AS named
WHERE stage_runs.rowid = named.rid
