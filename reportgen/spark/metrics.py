"""Per-pair divergence metrics in Spark, by reportgen's own code: the pairs are dealt into
buckets, each bucket's runs and steps are cogrouped into one Python worker, which loads them
into an in-memory DuckDB archive and runs :func:`reportgen.divergence.metrics.pair_metrics`
(the compiled kernels) on them. The numbers are therefore those of the DuckDB engine, bit for
bit: the step hashes are the stored ``signature`` and ``payload`` columns, never recomputed
with Spark's ``hash()`` (32-bit Murmur3, where DuckDB's is 64-bit)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

import orjson
import pyarrow as pa

from reportgen.divergence.metrics import Pair
from reportgen.divergence.records import PairRecord

PAIRS_PER_BUCKET = 1000
"""Pairs computed together in one worker call (their steps are in memory at once)."""
RESULT_SCHEMA = "pair_id string, record string"
PACKED_SCHEMA = "pair_id string, record binary"
"""With ``packed``: each record's JSON zstd-compressed (a pair's step diffs repeat field names
and actions; the driver collects about a tenth of the bytes)."""
PAIR_COLUMNS = ("pair_id", "task_id", "baseline_run_id", "candidate_run_id")
STEP_COLUMNS = (
    "run_id", "idx", "action", "status", "signature", "payload", "error", "parent",
    "tokens_in", "tokens_out", "cost_usd", "latency_ms",
)  # fmt: skip
"""The step columns pair metrics read (divergence/sql/step_facts.sql, step_statuses.sql): the
stored hashes stand for type, input and output, which are never shipped to the workers. A
column no file has yet (an archive older than the column) is left out and reads as NULL."""


def pair_metrics(
    pairs: Any, runs: Any, steps: Any, *, buckets: int | None = None, packed: bool = False
) -> Any:
    """A DataFrame of (pair_id, record): every metric of every pair of the DataFrame ``pairs``
    (pair_id, task_id, baseline_run_id, candidate_run_id), ``record`` being the pair's JSON
    contract as text (``from_json`` it, or ``collect_records``). ``runs`` and ``steps``: the
    archive's tables (:func:`reportgen.spark.read_archive`). ``buckets``: how many groups the
    pairs are dealt into (default: one per PAIRS_PER_BUCKET pairs). ``packed``: ``record`` as
    zstd-compressed JSON bytes instead (see PACKED_SCHEMA; ``collect_records`` reads both)."""
    from pyspark.sql import functions as F

    if buckets is None:
        buckets = max(1, -(-pairs.count() // PAIRS_PER_BUCKET))
    dealt = pairs.select(*PAIR_COLUMNS).withColumn(
        "rg_bucket", F.pmod(F.xxhash64("pair_id"), F.lit(buckets))
    )
    members = dealt.select(
        "rg_bucket", "pair_id", "task_id", F.lit("b").alias("rg_role"),
        F.col("baseline_run_id").alias("run_id"),
    ).unionByName(
        dealt.select(
            "rg_bucket", "pair_id", "task_id", F.lit("c").alias("rg_role"),
            F.col("candidate_run_id").alias("run_id"),
        )
    )  # fmt: skip
    # the steps side's key has its own name: both sides come from members, and one name
    # would be an ambiguous column to the cogroup
    wanted = members.select(F.col("rg_bucket").alias("rg_step_bucket"), "run_id").distinct()
    shipped = [c for c in STEP_COLUMNS if c in steps.columns]
    bucket_steps = steps.select(*shipped).join(wanted, "run_id")
    run_columns = [c for c in runs.columns if c not in ("task_id",)]
    bucket_runs = members.join(
        runs.select(*run_columns, F.col("task_id").alias("rg_run_task")), "run_id", "left"
    )
    return (
        bucket_steps.groupBy("rg_step_bucket")
        .cogroup(bucket_runs.groupBy("rg_bucket"))
        .applyInArrow(
            partial(bucket_metrics, packed=packed), PACKED_SCHEMA if packed else RESULT_SCHEMA
        )
    )


_UNHASHED = "SELECT count(*) > 0 FROM rg_steps WHERE signature IS NULL OR payload IS NULL"


def bucket_metrics(steps: pa.Table, members: pa.Table, *, packed: bool = False) -> pa.Table:
    """The records of one bucket's pairs (runs in a Spark worker): its runs and steps loaded
    into an in-memory archive, then the DuckDB engine's pair_metrics on them."""
    from reportgen.archive.connection import new_session
    from reportgen.divergence.metrics import pair_metrics as duckdb_pair_metrics

    con = new_session(":memory:")
    try:
        con.register("rg_members", members)
        con.register("rg_steps", steps)
        con.execute(
            "INSERT INTO runs BY NAME SELECT DISTINCT ON (run_id) * EXCLUDE (rg_bucket, pair_id,"
            " task_id, rg_role, rg_run_task), rg_run_task AS task_id FROM rg_members"
            " WHERE rg_run_task IS NOT NULL"
        )
        if con.execute(_UNHASHED).fetchall()[0][0]:
            raise ValueError(
                "some steps lack their stored hashes; re-ingest or convert the archive"
            )
        # type and input_keys are NOT NULL in the schema; the hashes stand for them here
        con.execute(
            "INSERT INTO steps BY NAME SELECT * EXCLUDE (rg_step_bucket), '' AS type,"
            " []::VARCHAR[] AS input_keys FROM rg_steps"
        )
        pairs = con.execute(
            "SELECT pair_id, any_value(task_id),"
            " any_value(run_id) FILTER (rg_role = 'b'), any_value(run_id) FILTER (rg_role = 'c')"
            " FROM rg_members GROUP BY pair_id ORDER BY pair_id"
        ).fetchall()
        records = duckdb_pair_metrics(con, [Pair(*p) for p in pairs])
    finally:
        con.close()
    texts = [orjson.dumps(r) for r in records]
    column = (
        pa.array([_pack(t) for t in texts], pa.binary())
        if packed
        else pa.array([t.decode() for t in texts], pa.string())
    )
    return pa.table(
        {"pair_id": pa.array([r["pair_id"] for r in records], pa.string()), "record": column}
    )


def _pack(text: bytes) -> bytes:
    """``text`` zstd-compressed, behind its length (what pyarrow's decompress needs)."""
    packed: bytes = pa.compress(text, codec="zstd", asbytes=True)
    return len(text).to_bytes(8, "little") + packed


def _unpack(blob: bytes) -> bytes:
    size = int.from_bytes(blob[:8], "little")
    out: bytes = pa.decompress(blob[8:], decompressed_size=size, codec="zstd", asbytes=True)
    return out


def collect_records(result: Any, order: Sequence[str]) -> list[PairRecord]:
    """The records of a :func:`pair_metrics` DataFrame on the driver, in the order of the
    pair ids ``order``."""
    table = result.toArrow()
    ids = table["pair_id"].to_pylist()
    texts = table["record"].to_pylist()
    if pa.types.is_binary(table.schema.field("record").type):
        texts = [_unpack(t) for t in texts]
    by_id = dict(zip(ids, texts, strict=True))
    return [orjson.loads(by_id[pid]) for pid in order]


def pairs_frame(spark: Any, pairs: Sequence[Pair]) -> Any:
    """The pairs as a Spark DataFrame (pair_id, task_id, baseline_run_id, candidate_run_id)."""
    table = pa.table(
        {
            "pair_id": [p.pair_id for p in pairs],
            "task_id": [p.task_id for p in pairs],
            "baseline_run_id": [p.baseline_run_id for p in pairs],
            "candidate_run_id": [p.candidate_run_id for p in pairs],
        }
    )
    return spark.createDataFrame(table.to_pandas())
