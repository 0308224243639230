-- stale_identity: archived runs whose suite and label an older reportgen derived.
-- Grain: one row per format with such runs: format, run count, one example source file.
-- Needs: archive table runs.
-- Before the identity table of docs/formats.md, tau2-bench and tau-bench put the agent model in
-- the suite and the domain in the label, and swe-agent and mini-swe-agent put the agent in the
-- suite. Such runs never pair with runs loaded now: ingest tells the user to re-ingest them.
SELECT format, count(*) AS runs, min(source_file) AS example
FROM runs
WHERE (format = 'tau2-bench'
       AND suite = 'tau2-bench/'
                   || coalesce(json_extract_string(meta, '$.agent_llm'), 'unknown-model'))
   OR (format = 'tau-bench'
       AND json_extract_string(meta, '$.file')
           = substr(suite, length('tau-bench/') + 1) || '-' || label)
   OR (format IN ('swe-agent', 'mini-swe-agent') AND suite = 'swe-agent')
GROUP BY format
ORDER BY format
