-- spend_steps: the selected runs' steps with what the avoidable-spend findings read (a known
--   or priced cost, cache-write tokens, end time, file path, tool kind, attributed tokens/cost).
-- Grain: one row per step (run_id, idx) of the selected runs that a finding can read: the
--   tool and llm steps (the kinds' own), and every step of a run that names sub-agents or is
--   one (spend_subagents.sql sums their costs); a tool call's parent step is read whatever
--   its type.
-- Needs: archive table steps; temp table spend_runs(run_id, linked) (the selection) and the
--   registered table spend_prices(model, input, output, cache_write, cache_read), dollars per
--   million tokens, both made by reportgen.spend.findings; parameters $all_runs (every run
--   is selected) and $run_ids (else: spend_runs' run ids, as a list).
-- cost: the stored cost, else (a model call of a priced model) tokens_in at the input rate
-- plus tokens_out at the output rate. A tool call stores no tokens of its own: its
-- attributed tokens and cost are its own when given, else the issuing step's (parent) divided
-- by the tool calls that step issued. kind: 'read' / 'write' for file tools (by lower-cased
-- action) and for a shell command that only reads one file (cat, nl, head, tail, sed -n
-- 'a,bp': Codex reads files so), 'shell' for other shell and patch tools (their input may
-- write any file it names). lo, hi: the lines a read reads (offset and limit, sed's range,
-- head's count; the whole file 1..inf; tail inf..inf), for spend_reread.sql.
CREATE OR REPLACE TEMP TABLE spend_steps AS
WITH kinds AS (
    SELECT
        s.run_id,
        sel.linked,
        s.idx,
        s.type,
        s.action,
        s.status,
        s.parent,
        s.tokens_in,
        s.tokens_out,
        s.started_at,
        -- NULL past DuckDB's range of times (a latency of 1e16 ms is valid input)
        TRY(s.started_at + to_milliseconds(coalesce(s.latency_ms, 0))) AS ended_at,
        coalesce(
            s.cost_usd,
            CASE WHEN s.type = 'llm' AND (s.tokens_in IS NOT NULL OR s.tokens_out IS NOT NULL)
                THEN (coalesce(s.tokens_in, 0) * p.input + coalesce(s.tokens_out, 0) * p.output)
                    / 1e6
            END
        ) AS cost,
        CASE WHEN s.tokens_in IS NOT NULL OR s.tokens_out IS NOT NULL
            THEN coalesce(s.tokens_in, 0) + coalesce(s.tokens_out, 0)
        END AS tokens,
        CASE WHEN s.type = 'llm' THEN coalesce(  -- the output's usage: archives before the column
            s.cache_write_tokens,
            TRY_CAST(json_extract_string(s.output, '$.usage.cache_write') AS BIGINT)
        ) END AS cache_write,
        p.cache_write AS cache_write_rate,
        p.cache_read AS cache_read_rate,
        CASE WHEN s.signature IS NULL THEN hash(s.type, s.action, list_sort(s.input_keys))
            ELSE s.signature
        END AS signature,
        CASE WHEN s.payload IS NULL
            THEN hash(CAST(s.input AS VARCHAR), CAST(s.output AS VARCHAR))
            ELSE s.payload
        END AS payload,
        CASE WHEN s.type = 'tool' THEN hash(s.action, CAST(s.input AS VARCHAR)) END AS input_hash,
        s.input,
        CASE
            WHEN s.type <> 'tool' THEN NULL
            WHEN lower(s.action) IN ('read', 'read_file', 'readfile', 'view', 'view_file',
                                     'open_file', 'notebookread')
                THEN 'read'
            WHEN lower(s.action) IN ('write', 'edit', 'multiedit', 'notebookedit', 'write_file',
                                     'writefile', 'replace', 'edit_file', 'create_file',
                                     'str_replace', 'str_replace_editor', 'insert')
                THEN 'write'
            WHEN lower(s.action) IN ('bash', 'shell', 'exec_command', 'run_shell_command',
                                     'local_shell', 'container.exec', 'apply_patch')
                THEN 'shell'
        END AS tool_kind
    FROM steps AS s
    JOIN spend_runs AS sel ON sel.run_id = s.run_id
    LEFT JOIN spend_prices AS p ON s.type = 'llm' AND p.model = s.action
    -- the same runs as a list, a filter that reaches the table: a join alone would run the
    -- site's redaction (a view's regular expressions) over every step of the archive first
    WHERE $all_runs OR list_contains($run_ids, s.run_id)
),

commands AS (  -- a shell step's command line: cmd, command, or the script of [sh, -lc, X]
    SELECT
        *,
        CASE WHEN tool_kind = 'shell' THEN coalesce(
            json_extract_string(input, '$.cmd'),
            CASE WHEN json_type(input, '$.command') = 'ARRAY'
                THEN CASE WHEN json_array_length(input, '$.command') = 3
                          AND json_extract_string(input, '$.command[1]') IN ('-lc', '-c')
                    THEN json_extract_string(input, '$.command[2]')
                    ELSE array_to_string(
                        CAST(json_extract(input, '$.command') AS VARCHAR[]), ' ')
                END
                ELSE json_extract_string(input, '$.command')
            END
        ) END AS command
    FROM kinds
),

shell_reads AS (  -- a command that only reads one file: cat, nl, head, tail, sed -n 'a,bp'
    SELECT
        *,
        -- the regex only where there is a command: on every other step's '' it cost a third
        -- of this query
        CASE WHEN command IS NULL THEN {'how': '', 'path': ''} ELSE regexp_extract(
            command,
            '^\s*(cat|nl(?:\s+-ba)?|head(?:\s+-n\s*\d+|\s+-\d+)?|tail(?:\s+-n\s*\d+|\s+-\d+)?'
            || '|sed\s+-n\s+''?\d+(?:,\d+)?p''?)\s+([^\s;&|<>$`''"]+)\s*$',
            ['how', 'path']
        ) END AS shell_read
    FROM commands
),

base AS (  -- kind, file path and read key of file tools, the input text of shell tools
    SELECT
        * EXCLUDE (input, tool_kind, command, shell_read),
        CASE WHEN tool_kind = 'shell' AND shell_read.path <> '' THEN 'read' ELSE tool_kind END
            AS kind,
        CASE
            WHEN tool_kind IN ('read', 'write') THEN coalesce(
                json_extract_string(input, '$.file_path'),
                json_extract_string(input, '$.absolute_path'),
                json_extract_string(input, '$.path'),
                json_extract_string(input, '$.filePath'),
                json_extract_string(input, '$.notebook_path'),
                json_extract_string(input, '$.target_file')
            )
            WHEN tool_kind = 'shell' AND shell_read.path <> '' THEN shell_read.path
        END AS path,
        CASE  -- the first line read (1: from the start; inf: the end, tail)
            WHEN tool_kind = 'read'
                THEN coalesce(TRY_CAST(json_extract_string(input, '$.offset') AS DOUBLE), 1)
            WHEN shell_read.how LIKE 'sed%'
                THEN CAST(regexp_extract(shell_read.how, '(\d+)', 1) AS DOUBLE)
            WHEN shell_read.how LIKE 'tail%' THEN 'inf'::DOUBLE
            WHEN shell_read.path <> '' THEN 1
        END AS lo,
        coalesce(CASE  -- the last line read (inf: to the end)
            WHEN tool_kind = 'read'
                THEN coalesce(TRY_CAST(json_extract_string(input, '$.offset') AS DOUBLE), 1)
                    + TRY_CAST(json_extract_string(input, '$.limit') AS DOUBLE) - 1
            WHEN shell_read.how LIKE 'sed%'
                THEN CAST(regexp_extract(shell_read.how, '(\d+)p', 1) AS DOUBLE)
            WHEN shell_read.how LIKE 'head%'
                THEN CAST(regexp_extract(shell_read.how, '(\d+)', 1) AS DOUBLE)
        END, 'inf'::DOUBLE) AS hi,
        CASE WHEN tool_kind = 'shell' AND shell_read.path = '' THEN CAST(input AS VARCHAR) END
            AS input_text
    FROM shell_reads
),

issued AS (  -- the tool calls each step issued (its children of type tool)
    SELECT run_id, parent AS idx, count(*) AS n_calls
    FROM base
    WHERE type = 'tool' AND parent IS NOT NULL
    GROUP BY run_id, parent
)

SELECT
    b.* EXCLUDE (linked),
    CASE WHEN b.tokens IS NOT NULL OR b.cost IS NOT NULL OR b.type <> 'tool' THEN b.tokens
        ELSE CAST(round(p.tokens / i.n_calls) AS BIGINT)
    END AS attr_tokens,
    CASE WHEN b.tokens IS NOT NULL OR b.cost IS NOT NULL OR b.type <> 'tool' THEN b.cost
        ELSE p.cost / i.n_calls
    END AS attr_cost
FROM base AS b
LEFT JOIN base AS p ON p.run_id = b.run_id AND p.idx = b.parent
LEFT JOIN issued AS i ON i.run_id = b.run_id AND i.idx = b.parent
WHERE b.type IN ('tool', 'llm') OR b.linked
