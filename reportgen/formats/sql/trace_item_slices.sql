-- trace_item_slices: the rowid ranges of untyped trace records that trace_steps.sql types one
-- at a time, each holding about $steps steps, so that its Arrow copy stays bounded.
-- Grain: one row per slice (lo, hi: the first and last rowid of stage_trace_raw in it), in order.
-- Needs: temp table stage_trace_raw (trace_read.sql rows, its rowid the run's rid); parameter
--   $steps (steps per slice, reportgen.formats.native.trace.SLICE_STEPS).
SELECT min(rid) AS lo, max(rid) AS hi
FROM (
    SELECT rowid AS rid,
        (sum(coalesce(len(steps), 0) + 1) OVER (ORDER BY rowid) - 1) // $steps AS slice
    FROM stage_trace_raw
    WHERE NOT typed
)
GROUP BY slice
ORDER BY lo
