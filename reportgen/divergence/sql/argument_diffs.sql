-- argument_diffs: AgentDiff's per-key input diff of each modified step_diffs row, as the JSON
-- text compare --json writes (reportgen.divergence.reference.argument_diff is the definition).
-- Grain: one row per modified row whose two inputs differ in some top-level key (m); a row
--   with no differing key has none (its argument_diff is null).
-- Needs: view rg_modified (m, b_input, c_input: the two steps' input JSON texts, NULL: none),
--   registered by reportgen.divergence.step_json; the function rg_canonical_json
--   (reportgen.archive.canonical, registered by define_step_hashes).
-- An input that is not an object counts as {}; of a key given twice the last value counts,
-- as Python's json reads it. Two values are the same when their compact texts are equal, or,
-- where equal values may be written differently (objects, arrays, numbers of two kinds),
-- when their canonical texts are. Keys sorted; each entry {new_value, old_value, status}
-- with the values as stored (compact, nested keys in their own order).
WITH differing AS (
    SELECT m, b_input, c_input
    FROM rg_modified
    WHERE b_input IS DISTINCT FROM c_input
),
old_all AS (
    SELECT d.m, e.key, e.value, e.type, e.id
    FROM differing AS d,
        json_each(CASE WHEN json_type(d.b_input) = 'OBJECT' THEN d.b_input ELSE '{}' END) AS e
),
new_all AS (
    SELECT d.m, e.key, e.value, e.type, e.id
    FROM differing AS d,
        json_each(CASE WHEN json_type(d.c_input) = 'OBJECT' THEN d.c_input ELSE '{}' END) AS e
),
old AS (
    SELECT * FROM old_all QUALIFY row_number() OVER (PARTITION BY m, key ORDER BY id DESC) = 1
),
new AS (
    SELECT * FROM new_all QUALIFY row_number() OVER (PARTITION BY m, key ORDER BY id DESC) = 1
),
keyed AS (
    SELECT
        coalesce(o.m, n.m) AS m,
        coalesce(o.key, n.key) AS key,
        o.value AS ov, o.type AS ot, n.value AS nv, n.type AS nt
    FROM old AS o FULL OUTER JOIN new AS n ON o.m = n.m AND o.key = n.key
),
changed AS (
    SELECT m, key,
        CASE
            WHEN ov IS NULL THEN '{"new_value":' || nv || ',"status":"added"}'
            WHEN nv IS NULL THEN '{"old_value":' || ov || ',"status":"removed"}'
            ELSE '{"new_value":' || nv || ',"old_value":' || ov || ',"status":"changed"}'
        END AS entry
    FROM keyed
    WHERE CASE  -- CASE, so that rg_canonical_json runs on the rows that need it only
        WHEN ov IS NULL OR nv IS NULL THEN true
        WHEN ov = nv THEN false
        WHEN ot = nt AND ot IN ('VARCHAR', 'BIGINT', 'UBIGINT', 'BOOLEAN', 'NULL') THEN true
        ELSE rg_canonical_json(ov) <> rg_canonical_json(nv)
    END
),
diffs AS (
    SELECT m, '{' || string_agg(to_json(key) || ':' || entry, ',' ORDER BY key) || '}' AS diff
    FROM changed
    GROUP BY m
)
-- unusual: as in diff_steps.sql (a value strict JSON has no text for: encoded again)
SELECT
    m,
    diff,
    contains(diff, 'NaN') OR contains(diff, 'Infinity')
    OR regexp_matches(diff, '[eE]\+?[0-9]{3}') AS unusual
FROM diffs
