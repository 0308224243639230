"""Run ids must be unique: within one load, and against the archive unless --replace."""

from __future__ import annotations

import duckdb

from reportgen.archive.connection import first_row
from reportgen.errors import InputError
from reportgen.formats.diagnose import find_line
from reportgen.formats.source import SourceFile


def check_conflicts(
    con: duckdb.DuckDBPyConnection, sources: list[SourceFile], replace: bool
) -> int:
    """Raise on a run id staged twice, or already archived (unless ``replace``, which deletes
    the archived run first). Returns how many archived runs were replaced."""
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
        return 0
    replaced = first_row(
        con, "SELECT count(*) FROM runs WHERE run_id IN (SELECT run_id FROM stage_runs)"
    )
    for table in ("steps", "outputs", "runs"):
        con.execute(f"DELETE FROM {table} WHERE run_id IN (SELECT run_id FROM stage_runs)")
    con.execute("DELETE FROM iterations WHERE run_id IN (SELECT run_id FROM stage_iterations)")
    return int(replaced[0]) if replaced else 0
