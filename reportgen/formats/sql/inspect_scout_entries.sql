-- inspect_scout_entries: what each scanner of the staged Inspect Scout scans said about each
--   transcript, as the JSON object a run keeps in meta.scanners.<scanner>.
-- Grain: one row per transcript_id x scanner (the scan staged with the greatest scan_id where
--   two scans of one load ran the same scanner on the same transcript).
-- Needs: temp tables rg_scout_results (one row per Parquet result row, every column text) and
--   rg_scout_errors (one row per _errors.jsonl line), staged by
--   reportgen.formats.adapters.inspect_scout.
-- The entry: value typed by value_type (number, boolean, string, null, JSON array or object;
-- a list of them when the scanner returned several results), results (how many), answer and
-- explanation (one line each result), error (the scanner's errors on it, from the result rows
-- and _errors.jsonl) and scan_id. A key without a value is NULL: json_merge_patch then leaves
-- it out, and removes what an earlier scan said there.
CREATE OR REPLACE TEMP TABLE rg_scout_entries AS
WITH cleaned AS (
    SELECT
        scan_id, scanner, transcript_id, ord, value, lower(trim(value_type)) AS value_type,
        nullif(nullif(trim(answer), ''), 'None') AS answer,
        nullif(nullif(trim(explanation), ''), 'None') AS explanation,
        nullif(nullif(trim(scan_error), ''), 'None') AS error,
        TRY_CAST(value AS DOUBLE) AS number
    FROM rg_scout_results
    WHERE transcript_id IS NOT NULL
),
typed AS (
    SELECT
        *,
        CASE
            WHEN value IS NULL OR value_type = 'null' THEN CAST('null' AS JSON)
            WHEN value_type IN ('number', 'boolean') AND lower(trim(value)) IN ('true', 'false')
                THEN to_json(lower(trim(value)) = 'true')
            WHEN value_type = 'number' AND isfinite(number) AND number = trunc(number)
                AND abs(number) < 9007199254740992 THEN to_json(CAST(number AS BIGINT))
            WHEN value_type = 'number' AND isfinite(number) THEN to_json(number)
            WHEN value_type IN ('array', 'object') AND json_valid(value) THEN CAST(value AS JSON)
            ELSE to_json(value)
        END AS typed
    FROM cleaned
),
said AS (
    SELECT
        scan_id, scanner, transcript_id,
        count(*) FILTER (WHERE error IS NULL) AS results,
        list(typed ORDER BY ord) FILTER (WHERE error IS NULL) AS "values",
        string_agg(answer, chr(10) ORDER BY ord) AS answer,
        string_agg(explanation, chr(10) ORDER BY ord) AS explanation,
        list(error ORDER BY ord) FILTER (WHERE error IS NOT NULL) AS errors
    FROM typed
    GROUP BY ALL
),
failed AS (
    SELECT scan_id, scanner, transcript_id, list(error ORDER BY ord) AS errors
    FROM rg_scout_errors
    WHERE transcript_id IS NOT NULL AND nullif(trim(error), '') IS NOT NULL
    GROUP BY ALL
),
joined AS (
    SELECT
        coalesce(s.scan_id, f.scan_id) AS scan_id,
        coalesce(s.scanner, f.scanner) AS scanner,
        coalesce(s.transcript_id, f.transcript_id) AS transcript_id,
        coalesce(s.results, 0) AS results,
        s."values", s.answer, s.explanation,
        list_distinct(list_concat(coalesce(s.errors, []), coalesce(f.errors, []))) AS errors
    FROM said AS s
    FULL JOIN failed AS f USING (scan_id, scanner, transcript_id)
)
SELECT
    scan_id, scanner, transcript_id, results, len(errors) AS n_errors,
    json_object(
        'value', CASE WHEN results = 1 THEN "values"[1]
                      WHEN results > 1 THEN to_json("values") END,
        'results', results,
        'answer', answer,
        'explanation', explanation,
        'error', nullif(array_to_string(list_sort(errors), chr(10)), ''),
        'scan_id', scan_id
    ) AS entry
FROM joined
QUALIFY row_number() OVER (PARTITION BY transcript_id, scanner ORDER BY scan_id DESC) = 1
