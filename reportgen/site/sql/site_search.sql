-- site_search: the search index's postings: every word of each step and run, with where it is.
-- Grain: one row per unit and word, ordered by unit and word; postings is the sorted list of
--   run_no * 1000000 + idx + 1 (run_no: the run's number within its unit; idx -1 for a match
--   in the run itself, so 0 means "the run").
-- Needs: temp table rg_search_runs (unit, run_no, run_id, steps: whether the run's steps are
--   indexed), made by reportgen.site.search from the runs of the units it indexes; temp
--   views rg_search_run_rows (those runs) and rg_search_steps (the steps of those whose
--   steps are indexed), as the session sees them (redacted: search.py).
-- Words are 2 to 40 characters of [a-z0-9_], lower-cased, from a step's action, input, output
-- and status, and from a run's task id, suite, label, batch, meta and output.
-- Long texts count by their first 4,000 characters; words of only digits longer than 6 are
-- left out (ids and timestamps would swell the index without helping anyone find a step).
WITH texts AS (
    SELECT r.unit, r.run_no, s.idx,
           lower(concat_ws(' ', s.action, s.status, left(CAST(s.input AS VARCHAR), 4000),
                           left(CAST(s.output AS VARCHAR), 4000), s.error)) AS text
    FROM rg_search_steps AS s JOIN rg_search_runs AS r USING (run_id)
    WHERE r.steps
    UNION ALL
    SELECT r.unit, r.run_no, -1 AS idx,
           lower(concat_ws(' ', x.task_id, x.suite, x.label, x.batch,
                           left(CAST(x.meta AS VARCHAR), 4000), left(x.output, 4000))) AS text
    FROM rg_search_run_rows AS x JOIN rg_search_runs AS r USING (run_id)
),

words AS (
    SELECT DISTINCT unit, run_no, idx, unnest(regexp_extract_all(text, '[a-z0-9_]{2,40}')) AS word
    FROM texts
)

SELECT unit, word, list(run_no * 1000000 + idx + 1 ORDER BY run_no, idx) AS postings
FROM words
WHERE NOT regexp_full_match(word, '[0-9]{7,}')
GROUP BY unit, word
ORDER BY unit, word
