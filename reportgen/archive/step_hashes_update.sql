-- step_hashes_update: (re)compute the stored hashes of every step; run by connect() when the
-- archive predates them or the probe shows that hash() changed.
UPDATE steps
SET
    signature = rg_step_signature(type, action, input_keys),
    payload = rg_step_payload(input, output)
