-- step_hashes_update: (re)compute the stored hashes of every step; run by connect() when the
-- archive predates them or the probe shows that hash() changed.
-- Grain: none: updates steps (signature and payload of every row).
-- Needs: archive table steps with columns signature, payload (added first, when missing, by
--   reportgen.archive.connection._refresh_step_hashes); macros rg_step_signature,
--   rg_step_payload (step_hashes.sql, defined by reportgen.archive.connection._open).
UPDATE steps
SET
    signature = rg_step_signature(type, action, input_keys),
    payload = rg_step_payload(input, output)
