"""Native iteration record v1: one attempt of a long-running coding loop per JSONL line."""

from __future__ import annotations

import duckdb

from reportgen.formats.base import StageOptions, first_record
from reportgen.formats.duck import read_or_explain, run_checks
from reportgen.formats.source import SourceFile
from reportgen.formats.sql import load_sql


class NativeIterations:
    name = "iteration-v1"
    description = "reportgen iteration record v1 (.jsonl: one attempt per line)"
    schema = "iteration-v1"

    def detect(self, source: SourceFile) -> bool:
        record = first_record(source)
        return isinstance(record, dict) and {"run", "iter", "attempt"} <= record.keys()

    def stage(
        self, con: duckdb.DuckDBPyConnection, sources: list[SourceFile], options: StageOptions
    ) -> None:
        read_or_explain(
            con, "stage_iter_raw", load_sql("iterations_read"), sources, options, self.schema
        )
        run_checks(con, load_sql("iterations_check"), sources, self.schema)
        con.execute(load_sql("iterations_typed"))
        con.execute("INSERT INTO stage_iterations BY NAME SELECT * FROM stage_iter_typed")
        con.execute("DROP TABLE stage_iter_raw")
        con.execute("DROP TABLE stage_iter_typed")
