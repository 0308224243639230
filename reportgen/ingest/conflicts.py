"""Run ids must be unique: within one load, and against the archive unless --replace."""

from __future__ import annotations

from collections.abc import Iterable

import duckdb

from reportgen.archive.connection import first_row
from reportgen.errors import InputError
from reportgen.formats.base import Format, growing
from reportgen.formats.diagnose import find_line
from reportgen.formats.source import SourceFile


def check_conflicts(
    con: duckdb.DuckDBPyConnection,
    sources: list[SourceFile],
    replace: bool,
    staged: Iterable[Format] = (),
) -> int:
    """Raise on a run id staged twice, or already archived (unless ``replace``, which deletes
    the archived run first); ``staged``: the formats of the load (its append-only session
    logs replace their earlier runs, see _replace_grown). Returns how many archived runs were
    replaced."""
    by_display = {s.display: s for s in sources}
    twice = first_row(
        con,
        "SELECT run_id, list(source_file ORDER BY source_file) FROM stage_runs"
        " GROUP BY run_id HAVING count(*) > 1 ORDER BY run_id LIMIT 1",
    )
    if twice:
        run_id, files = twice
        source = by_display[files[1]]
        also = "earlier in the same file" if files[0] == files[1] else f"also in {files[0]}"
        line = find_line(source, "run_id", run_id, occurrence=2 if files[0] == files[1] else 1)
        raise InputError(
            source.display,
            f"{run_id!r} appears twice in this load ({also})",
            line=line,
            field="run_id",
        )
    twice = first_row(
        con,
        "SELECT run_id, iter, min(source_file) FROM stage_iterations"
        " GROUP BY run_id, iter HAVING count(*) > 1 ORDER BY ALL LIMIT 1",
    )
    if twice:
        run_id, iteration, display = twice
        source = by_display[display]
        line = find_line(source, "iter", iteration, occurrence=2, also=("run", run_id))
        raise InputError(
            display, f"run {run_id!r} has iteration {iteration} twice", line=line, field="iter"
        )
    grown = _replace_grown(con, staged)
    clash = first_row(
        con,
        "SELECT s.run_id, s.source_file, r.source_file FROM stage_runs s JOIN runs r USING (run_id)"
        " ORDER BY s.source_file, s.run_id LIMIT 1",
    )
    iter_clash = first_row(
        con,
        "SELECT s.run_id, s.source_file, i.source_file FROM stage_iterations s"
        " JOIN iterations i USING (run_id, iter) ORDER BY s.source_file, s.run_id LIMIT 1",
    )
    for found, key, field in ((clash, "run_id", "run_id"), (iter_clash, "run", "run")):
        if found and not replace:
            run_id, display, old = found
            line = find_line(by_display[display], key, run_id)
            raise InputError(
                display,
                f"{run_id!r} is already in the archive (from {old}) with other content; "
                "use --replace to overwrite it",
                line=line,
                field=field,
            )
    if not replace:
        return grown
    replaced = first_row(
        con, "SELECT count(*) FROM runs WHERE run_id IN (SELECT run_id FROM stage_runs)"
    )
    for table in ("steps", "outputs", "runs"):
        con.execute(f"DELETE FROM {table} WHERE run_id IN (SELECT run_id FROM stage_runs)")
    con.execute("DELETE FROM iterations WHERE run_id IN (SELECT run_id FROM stage_iterations)")
    return grown + (int(replaced[0]) if replaced else 0)


def _replace_grown(con: duckdb.DuckDBPyConnection, staged: Iterable[Format]) -> int:
    """Delete the archived runs a grown session log now holds again: same run id, same
    format, same source file, and the format is an append-only session log (see
    ``reportgen.formats.base.growing``). Such a file changed content (so its hash is new) because the tool
    appended to it; its runs are the same runs, longer."""
    formats = growing(staged)
    if not formats:
        return 0
    con.execute(
        "CREATE OR REPLACE TEMP TABLE rg_grown AS SELECT r.run_id FROM runs r"
        " JOIN stage_runs s USING (run_id) WHERE s.format IN (SELECT unnest($f))"
        " AND r.format = s.format AND r.source_file = s.source_file",
        {"f": formats},
    )
    found = first_row(con, "SELECT count(*) FROM rg_grown")
    for table in ("steps", "outputs", "runs"):
        con.execute(f"DELETE FROM {table} WHERE run_id IN (SELECT run_id FROM rg_grown)")
    con.execute("DROP TABLE rg_grown")
    return int(found[0]) if found else 0
