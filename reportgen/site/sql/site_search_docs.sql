-- site_search_docs: the text a search hit's snippet is cut from (as site_search indexes it).
-- Grain: one row per run (idx -1) and per indexed step, ordered by run_no, idx: a step's
--   action, status and text, a run's own text, cut as site_search cuts them, original case.
-- Needs: temp table rg_search_runs (run_no, run_id, steps), made by reportgen.site.search;
--   archive tables steps, runs (or the redacted views shadowing them).
SELECT r.run_no, s.idx, s.action, s.status,
       concat_ws(' ', left(CAST(s.input AS VARCHAR), 4000), left(CAST(s.output AS VARCHAR), 4000),
                 s.error) AS text
FROM steps AS s JOIN rg_search_runs AS r USING (run_id)
WHERE r.steps
UNION ALL
SELECT r.run_no, -1 AS idx, NULL AS action, NULL AS status,
       concat_ws(' ', x.task_id, x.suite, x.label, x.batch, left(CAST(x.meta AS VARCHAR), 4000),
                 left(x.output, 4000)) AS text
FROM runs AS x JOIN rg_search_runs AS r USING (run_id)
ORDER BY run_no, idx
