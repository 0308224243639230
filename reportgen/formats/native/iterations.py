"""Native iteration record v1: one attempt of a long-running coding loop per JSONL line."""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa

from reportgen._sql import load_sql
from reportgen.archive import arrow
from reportgen.formats.base import StageOptions, first_record
from reportgen.formats.duck import read_or_explain, run_checks
from reportgen.formats.source import SourceFile

# Raw outputs are read this many at a time, so a load of large outputs stays small in memory.
_BATCH_ROWS = 256


class NativeIterations:
    name = "iteration-v1"
    description = "reportgen iteration record v1 (.jsonl: one attempt per line)"
    schema = "iteration-v1"
    maps = "each line -> an iteration (attempt) of a run's coding loop; no runs or steps"

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
        normalise_staged_outputs(con)
        con.execute(
            "INSERT INTO stage_iterations BY NAME SELECT * EXCLUDE (rid) FROM stage_iter_typed"
        )
        con.execute("DROP TABLE stage_iter_raw")
        con.execute("DROP TABLE stage_iter_typed")


def normalise_staged_outputs(con: duckdb.DuckDBPyConnection) -> int:
    """Fill `failing` and `normaliser` of staged attempts that gave raw `output` but no
    `failing`: select only those rows, normalise in Python, write back through one Arrow table.

    Returns how many attempts were normalised."""
    from reportgen.failures import normalise_failures  # its normalisers' patterns: ~30 ms

    rids: list[int] = []
    failing: list[list[str]] = []
    names: list[str] = []
    reader = con.sql(load_sql("iterations_to_normalise")).to_arrow_reader(_BATCH_ROWS)
    for batch in reader:
        columns = batch.to_pydict()
        for rid, output, check in zip(
            columns["rid"], columns["check_output"], columns["check"], strict=True
        ):
            found = normalise_failures(output, check)
            rids.append(rid)
            failing.append(list(found.ids))
            names.append(found.normaliser)
    if not rids:
        return 0
    ends = np.cumsum([0, *(len(ids) for ids in failing)])
    table = arrow.table(
        {
            "rid": arrow.numbers(rids, pa.int64()),
            "failing": pa.ListArray.from_arrays(
                arrow.numbers(ends, pa.int32()), arrow.strings([i for ids in failing for i in ids])
            ),
            "normaliser": arrow.strings(names),
        }
    )
    con.register("stage_iter_norm", table)
    try:
        con.execute(load_sql("iterations_normalise"))
    finally:
        con.unregister("stage_iter_norm")
    return len(rids)
