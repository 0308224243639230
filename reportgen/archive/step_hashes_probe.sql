-- step_hashes_probe: the hashes of fixed values; stored in archive_info when the archive's
-- step hashes are computed, so a different hash function (a DuckDB upgrade) is noticed.
-- Grain: one row (column probe).
-- Needs: no table; macros rg_step_signature, rg_step_payload (step_hashes.sql, defined by
--   reportgen.archive.connection._open). Run by reportgen.archive.connection.step_hash_probe.
SELECT
    CAST(rg_step_signature('probe', 'probe', ['probe']) AS VARCHAR)
    || ':' || CAST(rg_step_payload('{"probe":1.0,"a":[2]}', NULL) AS VARCHAR) AS probe
