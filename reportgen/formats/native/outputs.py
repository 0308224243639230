"""Native outputs v1: final outputs of repeated runs, for convergence.

A .json file holds the agent-convergence-scorer input (a list of strings, or an object with a
``runs`` list and optional task_id/label/suite/batch); a .jsonl file holds output records."""

from __future__ import annotations

import duckdb

from reportgen._sql import load_sql
from reportgen.formats.base import StageOptions, first_record
from reportgen.formats.duck import read_or_explain, run_checks
from reportgen.formats.source import SourceFile


class NativeOutputs:
    name = "outputs-v1"
    description = "reportgen outputs v1 (a scorer-style list of outputs, or output records)"
    schema = "outputs-v1"
    maps = "each output -> an outputs row (for convergence); no runs or steps"

    def detect(self, source: SourceFile) -> bool:
        record = first_record(source)
        if isinstance(record, list):
            return all(isinstance(item, str) for item in record)
        if isinstance(record, dict):
            return isinstance(record.get("runs"), list) or (
                "output" in record and "steps" not in record
            )
        return False

    def stage(
        self, con: duckdb.DuckDBPyConnection, sources: list[SourceFile], options: StageOptions
    ) -> None:
        read_or_explain(
            con,
            "stage_outputs_raw",
            load_sql("outputs_read"),
            sources,
            options,
            self.schema,
            document_format="unstructured",
        )
        run_checks(con, load_sql("outputs_check"), sources, self.schema)
        con.execute(load_sql("outputs_typed"))
        con.execute("INSERT INTO stage_outputs BY NAME SELECT * FROM stage_outputs_typed")
        con.execute("DROP TABLE stage_outputs_raw")
        con.execute("DROP TABLE stage_outputs_typed")
