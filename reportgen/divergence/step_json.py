"""The step_diffs of compared pairs as JSON text, for ``compare --json``: no dict per step.

DuckDB writes each step of a batch of runs as JSON text (``sql/diff_steps.sql``); the
compiled kernels write the argument diff of each modified row from the two input texts
(``_kernels.argument_diffs``) and join it all into one compact array text per pair
(``_kernels.step_diffs_json``), from the rows that
:func:`reportgen.divergence.metrics.pair_metrics_rows` keeps as arrays. The text parses
to the value the dict path (``compare._attach_steps``) gives, with one difference of form:
input and output payloads, and the values of an argument diff, keep the key order they are
stored in (the dict path sorts them).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import duckdb
import numpy as np
import numpy.typing as npt
import pyarrow as pa

from reportgen._sql import load_sql
from reportgen.archive import arrow
from reportgen.archive.arrow import text_buffers
from reportgen.divergence import _kernels
from reportgen.divergence.records import DiffRows, PairRecord
from reportgen.divergence.reference import argument_diff
from reportgen.strict_json import dumps_line

IntArray = npt.NDArray[np.int64]
_MODIFIED = 1  # DiffRows.kind of a modified row


def _ints(col: pa.ChunkedArray | pa.Array) -> IntArray:
    """A non-NULL integer column as int64."""
    return arrow.to_numpy(col).astype(np.int64)


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _encoded_again(text: str) -> bytes:
    """A step text DuckDB wrote with NaN, Infinity or an overflowing number, as strict JSON
    (what the dict path writes: null for each)."""
    return dumps_line(json.loads(text))


class StepDiffWriter:
    """Writes the step_diffs array of compared pairs (``records``, their rows ``rows``) as JSON
    text, for a range of pairs at a time; reads the steps from ``con``, which stays open."""

    def __init__(
        self, con: duckdb.DuckDBPyConnection, records: Sequence[PairRecord], rows: DiffRows
    ) -> None:
        self.con = con
        self.records = records
        self.rows = rows
        self.action_json = [dumps_line(a) for a in rows.actions]

    def texts(self, start: int, stop: int) -> list[bytes]:
        """The step_diffs text of pairs ``start:stop``."""
        records = self.records[start:stop]
        runs = sorted({r[k] for r in records for k in ("baseline_run_id", "candidate_run_id")})
        number = {run: n for n, run in enumerate(runs)}
        table = self._steps(runs)
        rn, idx = _ints(table["rn"]), _ints(table["idx"])
        size = np.zeros(len(runs), dtype=np.int64)
        np.maximum.at(size, rn, idx + 1)
        first = np.cumsum(size) - size
        slot_row = np.full(int(size.sum()), -1, dtype=np.int64)
        slot_row[first[rn] + idx] = np.arange(rn.size, dtype=np.int64)
        b_run = np.array([number[r["baseline_run_id"]] for r in records], dtype=np.int64)
        c_run = np.array([number[r["candidate_run_id"]] for r in records], dtype=np.int64)
        rows = self.rows
        off = np.ascontiguousarray(rows.off[start : stop + 1])
        args = self._argument_diffs(table, slot_row, first, size, b_run, c_run, off)
        overrides = self._unusual_steps(table, slot_row, first[rn] + idx)
        step_off, step_data = text_buffers(table["step"])
        return _kernels.step_diffs_json(
            off, rows.kind, rows.b, rows.c, rows.action, self.action_json,
            first[b_run], size[b_run], first[c_run], size[c_run], slot_row,
            step_off, step_data, overrides, args,
        )  # fmt: skip

    def _steps(self, runs: list[str]) -> pa.Table:
        """The steps of ``runs`` as text (``sql/diff_steps.sql``), rn numbering ``runs``."""
        numbered = arrow.table(
            {
                "run_id": arrow.strings(runs),
                "rn": arrow.numbers(np.arange(len(runs)), pa.int32()),
            }
        )
        self.con.register("rg_diff_runs", numbered)
        try:
            return self.con.sql(load_sql("diff_steps")).to_arrow_table()
        finally:
            self.con.unregister("rg_diff_runs")

    @staticmethod
    def _unusual_steps(table: pa.Table, slot_row: IntArray, slots: IntArray) -> list[bytes]:
        """The texts of the steps DuckDB wrote with what strict JSON has no text for, encoded
        again; their slots point at them (below -1)."""
        unusual = arrow.to_numpy(table["unusual"]).astype(bool)
        if not unusual.any():
            return []
        texts = table["step"].filter(arrow.numbers(unusual, pa.bool_())).to_pylist()
        slot_row[slots[unusual]] = -2 - np.arange(len(texts), dtype=np.int64)
        return [_encoded_again(t) for t in texts]

    def _argument_diffs(
        self,
        table: pa.Table,
        slot_row: IntArray,
        first: IntArray,
        size: IntArray,
        b_run: IntArray,
        c_run: IntArray,
        off: IntArray,
    ) -> list[bytes | None]:
        """The argument diff text (None: null) of each modified row of the pairs (rows
        ``off[0]:off[-1]``): compiled (``_kernels.argument_diffs``), the few rows it leaves
        (values only their canonical form can compare) by reference.argument_diff."""
        lo, hi = int(off[0]), int(off[-1])
        rows = self.rows
        modified = np.flatnonzero(rows.kind[lo:hi] == _MODIFIED) + lo
        pair = np.repeat(np.arange(off.size - 1, dtype=np.int64), np.diff(off))[modified - lo]

        def step_rows(index: IntArray, run: IntArray) -> IntArray:
            inside = (index >= 0) & (index < size[run])
            if not slot_row.size:  # no steps read at all
                return np.full(index.size, -1, dtype=np.int64)
            return np.where(inside, slot_row[np.where(inside, first[run] + index, 0)], -1)

        b_row = step_rows(rows.b[modified], b_run[pair])
        c_row = step_rows(rows.c[modified], c_run[pair])
        text_off, text_data = text_buffers(table["input"])
        texts, left = _kernels.argument_diffs(b_row, c_row, text_off, text_data)
        inputs = table["input"]
        for m in left:
            before, after = (
                _loads(inputs[int(r)].as_py()) if r >= 0 else None for r in (b_row[m], c_row[m])
            )
            diff = argument_diff(before, after)
            texts[m] = None if diff is None else dumps_line(diff)
        return texts
