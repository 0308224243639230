-- step_signatures: one row per step of every run in `pair_runs` (grain: run_id, idx).
--   sig_id     dense integer id of the step signature (type, action, sorted top-level input
--              keys): equal ids <=> equivalent steps, the match rule of the LCS (TDI, alignment).
--   payload_id dense integer id of the (input, output) JSON text, absent = JSON null: equal ids
--              <=> same input and output (stagnant loops; matched vs modified diffs).
--   wasted     status is error, retry or abandoned (WEI; opens a recovery window).
-- Ids are numbered over the distinct values (a hash aggregate and a join): only equality
-- matters, and this is several times faster than dense_rank() over a sort of every step.
WITH scoped AS (
    SELECT
        s.run_id,
        s.idx,
        s.type,
        s.action,
        s.input_keys,
        CASE WHEN s.status = 'success' THEN 'ok' ELSE s.status END AS status,
        coalesce(CAST(s.input AS VARCHAR), 'null') AS input_text,
        coalesce(CAST(s.output AS VARCHAR), 'null') AS output_text
    FROM steps AS s
    INNER JOIN pair_runs AS pr ON pr.run_id = s.run_id
),

signatures AS (
    SELECT
        d.type,
        d.action,
        d.input_keys,
        CAST(row_number() OVER () AS INTEGER) AS sig_id
    FROM (SELECT DISTINCT type, action, input_keys FROM scoped) AS d
),

payloads AS (
    SELECT
        d.input_text,
        d.output_text,
        CAST(row_number() OVER () AS INTEGER) AS payload_id
    FROM (SELECT DISTINCT input_text, output_text FROM scoped) AS d
)

SELECT
    sc.run_id,
    sc.idx,
    sc.action,
    sc.status,
    sc.status IN ('error', 'retry', 'abandoned') AS wasted,
    sg.sig_id,
    pl.payload_id
FROM scoped AS sc
INNER JOIN signatures AS sg
    ON sg.type = sc.type AND sg.action = sc.action AND sg.input_keys = sc.input_keys
INNER JOIN payloads AS pl
    ON pl.input_text = sc.input_text AND pl.output_text = sc.output_text
