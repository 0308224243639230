-- spend_found: the table every avoidable-spend finding goes into (empty when created).
-- Grain: one row per finding: (run_id, kind, idx, detail) is unique.
-- Needs: nothing; reportgen.spend.findings inserts the rows of spend_identical,
--   spend_reread, spend_retry, spend_cache_rebuild, spend_long_context and spend_subagents.
-- Columns: idx, the step the finding is about; ref_idx, the earlier step it repeats (NULL
-- when none); tokens and cost, what it spent that could have been avoided (NULL: unknown);
-- detail, the tool, path, model or child run; amount, a kind's own number (repeat count,
-- pause seconds, prompt tokens, child's cost share).
CREATE OR REPLACE TEMP TABLE spend_found (
    run_id  VARCHAR NOT NULL,
    kind    VARCHAR NOT NULL,
    idx     INTEGER,
    ref_idx INTEGER,
    tokens  BIGINT,
    cost    DOUBLE,
    detail  VARCHAR,
    amount  DOUBLE
)
