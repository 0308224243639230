-- macros: the validation macros shared by the native formats, and the typed readers used only
-- after the checks passed.
-- Grain: none: defines macros rg_absent, rg_bad_text, rg_bad_any_text, rg_bad_count,
--   rg_bad_int, rg_bad_number, rg_bad_amount, rg_bad_time, rg_bad_bool, rg_bad_object,
--   rg_bad_text_list, rg_text, rg_time, rg_text_list, rg_keys.
-- Needs: nothing (built-in JSON functions only). Executed by reportgen.ingest.loader._load at
--   the start of every load.
-- Each validation macro takes a JSON value as read_json gives it (SQL NULL when the key is
-- absent) and is true when the value breaks the rule, so checks read as
-- "WHERE rg_bad_count(tokens_in)". JSON null counts as absent for optional fields.
CREATE OR REPLACE TEMP MACRO rg_absent(j) AS (j IS NULL OR json_type(j) = 'NULL');
CREATE OR REPLACE TEMP MACRO rg_bad_text(j) AS
    (NOT rg_absent(j) AND (json_type(j) <> 'VARCHAR' OR (j ->> '$') = ''));
CREATE OR REPLACE TEMP MACRO rg_bad_any_text(j) AS (NOT rg_absent(j) AND json_type(j) <> 'VARCHAR');
CREATE OR REPLACE TEMP MACRO rg_bad_count(j) AS
    (NOT rg_absent(j) AND (json_type(j) NOT IN ('BIGINT', 'UBIGINT')
                           OR coalesce(TRY_CAST(j AS BIGINT) < 0, true)));
CREATE OR REPLACE TEMP MACRO rg_bad_int(j) AS
    (NOT rg_absent(j) AND (json_type(j) NOT IN ('BIGINT', 'UBIGINT')
                           OR TRY_CAST(j AS INTEGER) IS NULL));
CREATE OR REPLACE TEMP MACRO rg_bad_number(j) AS
    (NOT rg_absent(j) AND (json_type(j) NOT IN ('BIGINT', 'UBIGINT', 'DOUBLE')
                           OR NOT coalesce(isfinite(TRY_CAST(j AS DOUBLE)), false)));
CREATE OR REPLACE TEMP MACRO rg_bad_amount(j) AS
    (rg_bad_number(j) OR (NOT rg_absent(j) AND TRY_CAST(j AS DOUBLE) < 0));
-- a time up to the year 9000 (reportgen.limits.MAX_YEAR: later ones overflow date arithmetic)
CREATE OR REPLACE TEMP MACRO rg_bad_time(j) AS
    (NOT rg_absent(j) AND (json_type(j) <> 'VARCHAR'
                           OR coalesce(year(TRY_CAST(j ->> '$' AS TIMESTAMPTZ)) > 9000, true)));
CREATE OR REPLACE TEMP MACRO rg_bad_bool(j) AS (NOT rg_absent(j) AND json_type(j) <> 'BOOLEAN');
CREATE OR REPLACE TEMP MACRO rg_bad_object(j) AS (NOT rg_absent(j) AND json_type(j) <> 'OBJECT');
CREATE OR REPLACE TEMP MACRO rg_bad_text_list(j) AS
    (NOT rg_absent(j) AND (json_type(j) <> 'ARRAY'
                           OR len(list_filter(json_transform(j, '["JSON"]'),
                                              lambda x: json_type(x) <> 'VARCHAR')) > 0));
-- Typed readers, used only after the checks passed.
CREATE OR REPLACE TEMP MACRO rg_text(j) AS (CASE WHEN rg_absent(j) THEN NULL ELSE j ->> '$' END);
CREATE OR REPLACE TEMP MACRO rg_time(j) AS
    (CASE WHEN rg_absent(j) THEN NULL ELSE CAST(j ->> '$' AS TIMESTAMPTZ) END);
CREATE OR REPLACE TEMP MACRO rg_text_list(j) AS
    (CASE WHEN rg_absent(j) THEN NULL ELSE CAST(json_transform(j, '["VARCHAR"]') AS VARCHAR[]) END);
CREATE OR REPLACE TEMP MACRO rg_keys(j) AS
    (CASE WHEN json_type(j) = 'OBJECT' THEN list_sort(json_keys(j)) ELSE []::VARCHAR[] END);
