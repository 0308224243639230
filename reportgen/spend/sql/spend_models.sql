-- spend_models: the model names of the model calls of the runs in spend_runs, to be priced.
-- Grain: one row per distinct action of an llm step.
-- Needs: archive table steps; temp table spend_runs (spend_runs.sql); parameters none.
SELECT DISTINCT s.action
FROM steps AS s
JOIN spend_runs AS sel ON sel.run_id = s.run_id
WHERE s.type = 'llm'
ORDER BY s.action
