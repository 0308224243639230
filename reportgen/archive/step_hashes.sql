-- step_hashes: defines the two per-step hashes the pair metrics compare, as macros for every
-- connection.
-- Grain: none: defines macros rg_step_signature, rg_step_canonical, rg_step_payload.
-- Needs: the function rg_canonical_json (registered first by define_step_hashes). Executed by
--   reportgen.archive.connection.define_step_hashes on every connection connect() opens, and
--   again before use by the pair metrics, insert_runs and the convergence trajectories.
-- Ingest stores them in steps.signature and steps.payload; metric queries use the stored
-- values and compute them only where a row lacks them.
--   rg_step_signature  the step signature (type, action, sorted top-level input keys): steps
--                      match in the LCS exactly when these are equal
--   rg_step_payload    the input and output as canonical JSON texts (absent = JSON null; keys
--                      sorted, a float equal to an integer written as that integer, by the
--                      Python function rg_canonical_json of reportgen/archive/canonical.py):
--                      a matched step is "modified" and a loop repeat not stagnant when these
--                      differ, so payloads compare as values, as AgentDiff compares them
-- 64-bit hashes stand for the values: two different signatures or payloads share one with
-- probability about 2^-64 per compared pair. DuckDB's hash() may change between DuckDB
-- releases, so connect() checks a probe value and recomputes stored hashes when it changed.
CREATE OR REPLACE TEMP MACRO rg_step_signature(type, action, input_keys) AS
    hash(type, action, input_keys);
-- rg_step_canonical: a JSON string literal without escapes is canonical as it is (the common
-- tool output), so only other payloads go through the Python function.
CREATE OR REPLACE TEMP MACRO rg_step_canonical(json_text) AS
    CASE
        WHEN json_text IS NULL THEN 'null'
        WHEN starts_with(json_text, '"') AND NOT contains(json_text, '\') THEN json_text
        ELSE coalesce(rg_canonical_json(json_text), 'null')
    END;
CREATE OR REPLACE TEMP MACRO rg_step_payload(input, output) AS
    hash(
        rg_step_canonical(CAST(input AS VARCHAR)),
        rg_step_canonical(CAST(output AS VARCHAR))
    );
