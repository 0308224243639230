-- schema: the reportgen archive schema, version 2 (SCHEMA_VERSION in
-- reportgen/archive/connection.py; version 2 added steps.signature and steps.payload).
-- Grain: none: creates tables archive_info, loads, files, runs, steps, iterations, outputs and
--   suite_notes where they are missing (CREATE TABLE IF NOT EXISTS).
-- Needs: nothing (executed by reportgen.archive.connection.connect on every writable
--   connection; connect adds the two step hash columns to an older archive's steps table).
-- One DuckDB file holds every run ever ingested. Tables keep real column types so metric SQL
-- can work on them directly; free-form payloads (meta, step input/output) stay JSON.

CREATE TABLE IF NOT EXISTS archive_info (
    key   VARCHAR PRIMARY KEY,
    value VARCHAR NOT NULL
);

-- One row per ingest invocation that changed the archive.
CREATE TABLE IF NOT EXISTS loads (
    load_id      VARCHAR PRIMARY KEY,
    started_at   TIMESTAMPTZ NOT NULL,
    finished_at  TIMESTAMPTZ NOT NULL,
    n_files      INTEGER NOT NULL,
    n_runs       BIGINT NOT NULL,
    n_steps      BIGINT NOT NULL,
    n_iterations BIGINT NOT NULL,
    n_outputs    BIGINT NOT NULL,
    replaced     BIGINT NOT NULL
);

-- One row per file loaded. content_hash is its key (reportgen/ingest/duplicates.py): the
-- content hash (after a run-id prefix, with a digest of the call's identity when given), and
-- for a second path loaded with the same bytes '<that>@<digest of the path>'.
CREATE TABLE IF NOT EXISTS files (
    content_hash VARCHAR PRIMARY KEY,
    path         VARCHAR NOT NULL,
    format       VARCHAR NOT NULL,
    size_bytes   BIGINT NOT NULL,
    load_id      VARCHAR NOT NULL,
    loaded_at    TIMESTAMPTZ NOT NULL,
    n_runs       BIGINT NOT NULL,
    n_steps      BIGINT NOT NULL,
    n_iterations BIGINT NOT NULL,
    n_outputs    BIGINT NOT NULL
);

-- One row per agent run (one trace).
CREATE TABLE IF NOT EXISTS runs (
    run_id       VARCHAR PRIMARY KEY,
    suite        VARCHAR NOT NULL,
    label        VARCHAR NOT NULL,
    task_id      VARCHAR NOT NULL,
    batch        VARCHAR NOT NULL,
    trial        INTEGER NOT NULL,
    started_at   TIMESTAMPTZ,
    meta         JSON,
    output       VARCHAR,
    success      BOOLEAN,
    reward       DOUBLE,
    -- run totals as the trace gives them; NULL means "not given" (metrics then sum the steps)
    tokens_in    BIGINT,
    tokens_out   BIGINT,
    cost_usd     DOUBLE,
    latency_ms   DOUBLE,
    n_steps      INTEGER NOT NULL,
    format       VARCHAR NOT NULL,
    source_file  VARCHAR NOT NULL,
    source_line  INTEGER,
    content_hash VARCHAR NOT NULL,
    -- set when the run ended on an infrastructure error, not the agent's failure (success is
    -- then NULL): environment, sandbox, timeout, rate_limit, quota, auth, network, harness,
    -- other (reportgen/ingest/error_outcomes.sql); error_reason is the tool's words, one line
    error_kind   VARCHAR,
    error_reason VARCHAR,
    -- prompt-cache and reasoning tokens as the trace gives them (NULL = not given; included in
    -- tokens_in / tokens_out, never added to them)
    cache_read_tokens  BIGINT,
    cache_write_tokens BIGINT,
    reasoning_tokens   BIGINT,
    -- the run's cost recomputed at ingest from its model calls' tokens and the model's price
    -- (reportgen/formats/pricing.py), beside cost_usd as the trace gives it; NULL = unpriced
    cost_recomputed_usd DOUBLE
);

-- One row per step of a run, in trajectory order (idx is 0-based). No index: (run_id, idx) is
-- unique by construction, and an index would slow bulk loads.
CREATE TABLE IF NOT EXISTS steps (
    run_id      VARCHAR NOT NULL,
    idx         INTEGER NOT NULL,
    type        VARCHAR NOT NULL,
    action      VARCHAR NOT NULL,
    input       JSON,
    input_keys  VARCHAR[] NOT NULL,  -- sorted top-level keys of input; [] when not an object
    output      JSON,
    status      VARCHAR NOT NULL,    -- ok | error | retry | abandoned ('success' stored as ok)
    tokens_in   BIGINT,              -- NULL = not given (counts as 0 in sums, unknown in deltas)
    tokens_out  BIGINT,
    cost_usd    DOUBLE,
    latency_ms  DOUBLE,
    started_at  TIMESTAMPTZ,
    parent      INTEGER,
    signature   UBIGINT,             -- rg_step_signature(type, action, input_keys), at ingest
    payload     UBIGINT,             -- rg_step_payload(input, output), at ingest
    error       VARCHAR,             -- the error message, when the trace gives one
    cache_read_tokens  BIGINT,       -- of tokens_in, read from the prompt cache (NULL = not given)
    cache_write_tokens BIGINT,       -- of tokens_in, written to the prompt cache
    reasoning_tokens   BIGINT        -- of tokens_out, the model's reasoning (thinking)
);

-- One row per attempt of a long-running coding loop (iteration record v1); (run_id, iter) is
-- checked unique at ingest.
CREATE TABLE IF NOT EXISTS iterations (
    run_id         VARCHAR NOT NULL,
    iter           INTEGER NOT NULL,
    step           VARCHAR NOT NULL,
    attempt        INTEGER NOT NULL,
    "check"        VARCHAR,
    exit_code      INTEGER,
    secs           DOUBLE,
    failing        VARCHAR[],
    resolved       VARCHAR[],
    persisting     VARCHAR[],
    new            VARCHAR[],
    check_output   VARCHAR,
    normaliser     VARCHAR,
    patch_lines    INTEGER,
    patch_distance DOUBLE,
    patch          VARCHAR,
    tool_calls     INTEGER,
    tool_errors    INTEGER,
    tokens_in      BIGINT,
    tokens_out     BIGINT,
    usd            DOUBLE,
    certified      BOOLEAN,
    backlog_steps  INTEGER,            -- the run's backlog size, when the record gives it
    source_file    VARCHAR NOT NULL,
    source_line    INTEGER,
    content_hash   VARCHAR NOT NULL
);

-- One row per final output of a run, for convergence across repeated runs.
CREATE TABLE IF NOT EXISTS outputs (
    run_id       VARCHAR,
    suite        VARCHAR NOT NULL,
    label        VARCHAR NOT NULL,
    task_id      VARCHAR NOT NULL,
    batch        VARCHAR NOT NULL,
    trial        INTEGER NOT NULL,
    output       VARCHAR NOT NULL,
    source_file  VARCHAR NOT NULL,
    content_hash VARCHAR NOT NULL
);

-- One row per (suite, README.md) found in an ingested folder: Markdown notes about a suite,
-- shown on its pages. A folder's README applies to the suites of the runs loaded from it.
CREATE TABLE IF NOT EXISTS suite_notes (
    suite        VARCHAR NOT NULL,
    path         VARCHAR NOT NULL,
    text         VARCHAR NOT NULL,
    content_hash VARCHAR NOT NULL
);
