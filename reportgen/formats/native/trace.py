"""Native trace v1: one run per .json file, or one run per line of a .jsonl file."""

from __future__ import annotations

from functools import cache

import duckdb

from reportgen._sql import load_sql
from reportgen.errors import InputError
from reportgen.formats.base import Marked, StageOptions, first_record
from reportgen.formats.diagnose import first_problem, load_schema
from reportgen.formats.diagnose import parents_precede as _parents_precede
from reportgen.formats.duck import execute_over, parse_records, run_checks
from reportgen.formats.source import SourceFile

_STEPS_KEY = Marked(rb'"steps"\s*:\s*\[')
ITEM_BATCH_ROWS = 64
"""Runs per Arrow record batch of the steps trace_steps.sql types: DuckDB's threads share
batches, while a temp table of a few thousand runs is one row group (one thread's scan)."""
SLICE_STEPS = 1 << 17
"""About how many untyped steps (plus one per run) trace_steps.sql types at a time: the Arrow
copy of a slice lives outside DuckDB's memory limit, so it is bounded by this, not by the
input (trace_item_slices.sql; a few tens of MB for steps of a few hundred bytes)."""


class NativeTrace:
    name = "trace-v1"
    description = "reportgen trace v1 (.json: one run; .jsonl: one run per line)"
    schema = "trace-v1"
    maps = "a run object -> a run; steps[] -> steps (type, action, status as given; parent kept)"

    def detect(self, source: SourceFile) -> bool:
        record = first_record(source)
        if isinstance(record, list) and record:
            record = record[0]
        if isinstance(record, dict):
            return "steps" in record
        return bool(_STEPS_KEY.search(source.head))

    def certain(self, source: SourceFile) -> bool:
        """True when the first record holds only the schema's run and step fields (a steps
        list included), as the byte scan of ``measure`` saw its keys: no other format's file
        looks like that, so detection stops here rather than asking every adapter whether it
        recognises the file (and nothing is parsed)."""
        if source.first_keys is None or source.step_keys is None:
            return False
        run_fields, step_fields = _fields()
        return source.first_keys <= run_fields and source.step_keys <= step_fields

    def stage(
        self, con: duckdb.DuckDBPyConnection, sources: list[SourceFile], options: StageOptions
    ) -> None:
        _refuse_duplicate_keys(sources, self.schema)
        parse_records(
            con,
            "stage_trace_raw",
            load_sql("trace_read"),
            sources,
            self.schema,
            _parents_precede,
            also=[load_sql("trace_typed_steps")],
        )
        self._check(con, "trace_check_runs", sources)
        con.execute(load_sql("trace_runs"))
        if not all(s.typed_steps for s in sources):  # else trace_typed_steps read them all
            self._untyped_steps(con)
        self._check(con, "trace_check_steps", sources)
        con.execute("INSERT INTO stage_runs BY NAME SELECT * EXCLUDE (rid) FROM stage_trace_runs")
        con.execute(
            "INSERT INTO stage_outputs BY NAME SELECT run_id, suite, label, task_id, batch, trial,"
            " output, source_file, content_hash FROM stage_trace_runs WHERE output IS NOT NULL"
        )
        for table in (
            "stage_trace_raw",
            "stage_trace_runs",
        ):
            con.execute(f"DROP TABLE {table}")

    def _untyped_steps(self, con: duckdb.DuckDBPyConnection) -> None:
        """Type the steps of the records the byte scan did not find typed (trace_steps.sql)."""
        slices = con.execute(load_sql("trace_item_slices"), {"steps": SLICE_STEPS}).fetchall()
        for lo, hi in slices:  # a slice at a time: memory bounded whatever the input's size
            items = con.sql(
                "SELECT rowid AS rid, steps FROM stage_trace_raw"
                f" WHERE NOT typed AND rowid BETWEEN {int(lo)} AND {int(hi)}"
            )
            arrow = items.to_arrow_reader(ITEM_BATCH_ROWS).read_all()
            execute_over(con, load_sql("trace_steps"), "stage_trace_items", arrow)

    def _check(self, con: duckdb.DuckDBPyConnection, check: str, sources: list[SourceFile]) -> None:
        run_checks(con, load_sql(check), sources, self.schema, _parents_precede)


def _refuse_duplicate_keys(sources: list[SourceFile], schema: str) -> None:
    """A record may not repeat a top-level key (DuckDB's parser would keep the first)."""
    for source in sources:
        if source.duplicate_key is not None:
            problem = first_problem(source.path, source.display, source.lines, schema)
            line, key = source.duplicate_key
            raise problem or InputError(
                source.display, f'invalid JSON: duplicate key "{key}"', line=line
            )


@cache
def _fields() -> tuple[frozenset[str], frozenset[str]]:
    """The run fields and the step fields of the trace schema."""
    schema = load_schema("trace-v1")
    run = schema["properties"]
    steps = run["steps"]["items"]
    if "$ref" in steps:
        steps = schema["$defs"][steps["$ref"].rsplit("/", 1)[-1]]
    return frozenset(run), frozenset(steps["properties"])
