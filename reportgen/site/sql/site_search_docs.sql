-- site_search_docs: the text a run's search hit shows a snippet of (as site_search indexes it);
-- Grain: one row per run (unit, run_no), ordered by unit and run_no: the run's own text, cut as site_search
--   cuts it, original case, idx -1. A step's snippet comes from its run's step data script
--   (reportgen/site/stepdata.py), so steps are not repeated here.
-- Needs: temp table rg_search_runs (unit, run_no, run_id, steps) and temp view
--   rg_search_run_rows (those runs as the session sees them), made by reportgen.site.search.
SELECT r.unit, r.run_no, -1 AS idx, NULL AS action, NULL AS status,
       concat_ws(' ', x.task_id, x.suite, x.label, x.batch, left(CAST(x.meta AS VARCHAR), 4000),
                 left(x.output, 4000)) AS text
FROM rg_search_run_rows AS x JOIN rg_search_runs AS r USING (run_id)
ORDER BY unit, run_no, idx
