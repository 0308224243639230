"""Redaction of published output: secrets in agent text replaced by a marker before any page
or ``data/`` file is written.

The site reads the archive only through a read-only connection; here every archive table is
shadowed, in that connection, by a temporary view whose text columns have each secret shape
replaced (DuckDB's RE2 ``regexp_replace``, vectorised), so every page and the Parquet
snapshot see the redacted text and nothing else. ``--no-payloads`` blanks the free text
(step input and output, run and final outputs, check output, patches) as well."""

from __future__ import annotations

import contextlib
import html
import re
from dataclasses import dataclass, field
from urllib.parse import unquote

import duckdb
from duckdb.func import FunctionNullHandling

from reportgen.errors import UsageError
from reportgen.secrets import MARKER, SECRET_PATTERNS, ZERO_WIDTH, redact_text

#: Columns never redacted: hashes and ids reportgen makes itself, and fixed vocabularies
#: (a step's ``type`` is free text in trace v1: redacted like any text).
_KEEP = {"content_hash", "load_id", "format", "status", "normaliser", "error_kind"}
#: Column types whose text is redacted: text, JSON, and lists of text (input keys, the
#: failing / resolved / new check ids of iterations).
_TEXT = ("VARCHAR", "JSON")
_LISTS = ("VARCHAR[]",)
#: Identifiers: a redacted one keeps a short hash of the original, so two runs or tasks that
#: differ only inside a secret stay two (pages and pairs are keyed by these).
_IDS = {"run_id", "task_id", "suite", "label", "batch"}
#: Free text blanked by ``--no-payloads``: table -> columns.
PAYLOADS = {
    "steps": ("input", "output", "error"),
    "runs": ("output",),
    "outputs": ("output",),
    "iterations": ("check_output", "patch"),
}


@dataclass(frozen=True)
class Redaction:
    """What to hide when publishing: secret shapes (RE2 patterns) and whether payload text
    is published at all."""

    patterns: tuple[str, ...] = tuple(SECRET_PATTERNS.values())
    payloads: bool = True
    extra: tuple[str, ...] = field(default=())

    @classmethod
    def from_options(
        cls, redact: bool = True, patterns: tuple[str, ...] = (), payloads: bool = True
    ) -> Redaction:
        """The policy of ``build``'s options: built-ins unless ``--no-redact``, plus each
        ``--redact REGEX``."""
        built_in = tuple(SECRET_PATTERNS.values()) if redact else ()
        return cls(built_in, payloads, tuple(patterns))

    @property
    def pattern(self) -> str | None:
        """All patterns as one alternation, or None when nothing is redacted."""
        every = (*self.patterns, *self.extra)
        return "|".join(f"(?:{p})" for p in every) if every else None

    @property
    def active(self) -> bool:
        return self.pattern is not None or not self.payloads


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def check_patterns(con: duckdb.DuckDBPyConnection, patterns: tuple[str, ...]) -> None:
    """A usage error naming the first ``--redact`` pattern RE2 cannot compile."""
    for pattern in patterns:
        try:
            con.execute("SELECT regexp_replace('', ?, '')", [pattern]).fetchall()
        except duckdb.Error as exc:
            first = str(exc).splitlines()[0]
            raise UsageError(
                f"--redact {pattern!r}: not a valid RE2 regular expression ({first})"
            ) from None


def redact_archive(con: duckdb.DuckDBPyConnection, policy: Redaction) -> int:
    """Shadow every archive table by a redacted view in ``con``; return how many secrets
    were replaced. A no-op (0) for a policy that hides nothing."""
    check_patterns(con, policy.extra)
    if not policy.active:
        return 0
    database = _one(con, "SELECT current_database()")
    columns: dict[str, list[tuple[str, str]]] = {}
    rows = con.execute(
        "SELECT table_name, column_name, data_type FROM information_schema.columns "
        "WHERE table_catalog = ? AND table_schema = 'main' ORDER BY table_name, ordinal_position",
        [database],
    ).fetchall()
    for table, column, kind in rows:
        columns.setdefault(table, []).append((column, kind))
    pattern = policy.pattern
    clean_ids = pattern is not None and not _ids_hold_secrets(con, database, columns, pattern)
    keep = _KEEP | _IDS if clean_ids else _KEEP
    replaced = 0
    for table, cols in columns.items():
        source = f'"{database}".main."{table}"'
        texts = [(c, k) for c, k in cols if k in (*_TEXT, *_LISTS) and c not in keep]
        blanks = set() if policy.payloads else set(PAYLOADS.get(table, ()))
        swaps = [s for c, k in texts if (s := _swap(c, k, pattern, c in blanks))]
        if table == "suite_notes" and policy.patterns:
            _register_note_check(con)
            named = ' AS "text"'
            swaps = [
                f"rg_note_redact({s.removesuffix(named)}){named}" if s.endswith(named) else s
                for s in swaps
            ]
        if pattern and texts:
            found = " + ".join(_count(c, k, pattern) for c, k in texts if c not in blanks)
            if found:
                replaced += int(_one(con, f"SELECT coalesce(sum({found}), 0) FROM {source}"))
        body = f"SELECT * REPLACE ({', '.join(swaps)}) FROM {source}" if swaps else None
        con.execute(f'CREATE OR REPLACE TEMP VIEW "{table}" AS {body or f"SELECT * FROM {source}"}')
    return replaced


def _ids_hold_secrets(
    con: duckdb.DuckDBPyConnection,
    database: str,
    columns: dict[str, list[tuple[str, str]]],
    pattern: str,
) -> bool:
    """Whether any stored id (run, task, suite, label, night) holds a secret. Most archives'
    ids hold none: their views then keep the id columns as stored, so a query's filter and
    join on a run id or a night reach the table (a regular expression over every step's run
    id would stop them there), and the ids, matching nothing, come out the same."""
    selects = [
        f'SELECT DISTINCT "{c}" AS id FROM "{database}".main."{t}"'
        for t, cols in columns.items()
        for c, k in cols
        if c in _IDS and k == "VARCHAR"
    ]
    if not selects:
        return False
    found = _one(
        con,
        f"SELECT count(*) FROM ({' UNION '.join(selects)}) "
        f"WHERE regexp_matches({_visible('id')}, {_literal(pattern)})",
    )
    return found != "0"


_MD_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def _note_redact(text: str | None) -> str | None:
    """A README note whose secret only shows once Markdown is rendered (``sk\\-ant\\-…``,
    ``&#45;``, ``%2D``): its decoded text, redacted; any other note as it is."""
    if text is None:
        return None
    decoded = unquote(html.unescape(_MD_ESCAPE.sub(r"\1", text)))
    redacted = redact_text(decoded)
    return redacted if redacted != decoded else text


def _register_note_check(con: duckdb.DuckDBPyConnection) -> None:
    """Make ``rg_note_redact`` (:func:`_note_redact`) callable in ``con``'s SQL (notes are
    few: a Python function per note is cheap)."""
    with contextlib.suppress(duckdb.InvalidInputException):
        con.remove_function("rg_note_redact")
    con.create_function(
        "rg_note_redact",
        _note_redact,
        ["varchar"],
        "varchar",
        null_handling=FunctionNullHandling.SPECIAL,
    )


def _q(column: str) -> str:
    return '"' + column.replace('"', '""') + '"'


def _visible(text: str) -> str:
    """SQL: ``text`` without zero-width characters (a key split by U+200B is still a key)."""
    return f"regexp_replace({text}, {_literal(ZERO_WIDTH)}, '', 'g')"


def _count(column: str, kind: str, pattern: str) -> str:
    """SQL: how many secrets one column's value holds."""
    if kind in _LISTS:
        each = f"len(regexp_extract_all({_visible('x')}, {_literal(pattern)}))"
        return f"coalesce(list_sum(list_transform({_q(column)}, lambda x: {each})), 0)"
    text = _visible(f"CAST({_q(column)} AS VARCHAR)")
    return f"coalesce(len(regexp_extract_all({text}, {_literal(pattern)})), 0)"


def _swap(column: str, kind: str, pattern: str | None, blank: bool) -> str | None:
    """The replacement expression of one text column, or None to keep it as stored."""
    if blank:
        empty = "NULL::JSON" if kind == "JSON" else "''"
        return f"{empty} AS {_q(column)}"
    if pattern is None:
        return None
    if kind in _LISTS:
        each = f"regexp_replace({_visible('x')}, {_literal(pattern)}, '{MARKER}', 'g')"
        found = f"regexp_matches({_visible('x')}, {_literal(pattern)})"
        return (
            f"list_transform({_q(column)}, lambda x: CASE WHEN {found} THEN {each} ELSE x END)"
            f" AS {_q(column)}"
        )
    visible = _visible(f"CAST({_q(column)} AS VARCHAR)")
    redacted = f"regexp_replace({visible}, {_literal(pattern)}, '{MARKER}', 'g')"
    text = f"CASE WHEN regexp_matches({visible}, {_literal(pattern)}) THEN {redacted} "
    if column in _IDS:
        text += f"|| '~' || left(md5({_q(column)}), 8) "
    text += f"ELSE CAST({_q(column)} AS VARCHAR) END"
    if kind == "JSON":  # a user pattern may cut JSON apart: then keep the text as a JSON string
        text = (
            f"CASE WHEN {_q(column)} IS NULL THEN NULL "
            f"ELSE coalesce(TRY_CAST({text} AS JSON), to_json({text})) END"
        )
    return f"{text} AS {_q(column)}"


def _one(con: duckdb.DuckDBPyConnection, sql: str) -> str:
    rows = con.execute(sql).fetchall()
    return str(rows[0][0]) if rows else ""
