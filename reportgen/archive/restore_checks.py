"""What ``restore`` checks in the rows it loaded before the archive appears: the limits
``ingest`` enforces on files (reportgen.limits), so a snapshot cannot smuggle in what a trace could not
(an int64-max token count, a NaN cost, a step that is its own parent, a payload nested 5,000
deep), each of which would break ``build``, ``gate`` or ``compare`` later."""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence

import duckdb

from reportgen._sql import load_sql
from reportgen.errors import InputError
from reportgen.limits import MAX_AMOUNT, MAX_COUNT, MAX_DEPTH


def check_restored(
    con: duckdb.DuckDBPyConnection,
    where: str,
    origins: Mapping[str, Sequence[tuple[int, str]]] | None = None,
) -> None:
    """Raise an InputError naming the snapshot file, the row and the column of the first
    value ingest would have refused. ``origins``: of each table, the snapshot files its rows
    were appended from, in order, each with the rowid of its first row (without it, or for a
    table not in it, the file is ``<table>.parquet``)."""

    def file_of(table: str, row_id: int) -> str:
        files = (origins or {}).get(table) or [(0, f"{table}.parquet")]
        at = bisect.bisect_right([first for first, _file in files], row_id) - 1
        return f"{where.rstrip('/')}/{files[max(at, 0)][1]}"

    row = con.execute(
        load_sql("restore_numbers"), {"max_count": MAX_COUNT, "max_amount": MAX_AMOUNT}
    ).fetchone()
    if row is not None:
        table, key, column, value, row_id = row
        raise InputError(
            file_of(table, row_id),
            f"{str(value)[:40]} is out of range (row {str(key)[:80]})",
            field=column,
        )
    candidates = con.execute(load_sql("restore_deep_payloads"), {"max_depth": MAX_DEPTH})
    while batch := candidates.fetchmany(64):
        for table, key, column, text, row_id in batch:
            if _deeper_than(text, MAX_DEPTH):
                raise InputError(
                    file_of(table, row_id),
                    f"nested more than {MAX_DEPTH} levels deep (row {str(key)[:80]})",
                    field=column,
                )


def _deeper_than(text: str, limit: int) -> bool:
    """Whether the JSON ``text`` nests objects and arrays deeper than ``limit`` (brackets
    inside strings not counted). A loop over characters: it runs only on the few payloads
    with more opening brackets than ``limit`` (restore_deep_payloads.sql)."""
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False
