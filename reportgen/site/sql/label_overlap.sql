-- label_overlap: how much each two labels could pair, for a site that picks its comparisons
-- itself (reportgen.site.choose).
-- Grain: one row per ordered pair of distinct labels (a, b) that share at least one
--   (suite, task, trial, batch): a, b, and the number of such keys they share.
-- Needs: archive table runs.
WITH keys AS (SELECT DISTINCT label, suite, task_id, trial, batch FROM runs)
SELECT a.label AS a, b.label AS b, count(*) AS shared
FROM keys AS a
JOIN keys AS b USING (suite, task_id, trial, batch)
WHERE a.label <> b.label
GROUP BY ALL
