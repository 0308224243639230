"""The Arrow shape of step rows that Python code hands to DuckDB (input/output as JSON text)."""

from __future__ import annotations

import pyarrow as pa

#: Columns of one step row, as the steps table has them (schema.sql); the hashes are computed
#: by the insert (step_hashes.sql), started_at and parent are added by the adapters.
STEP_ROWS = pa.schema(
    [
        ("run_id", pa.string()),
        ("idx", pa.int32()),
        ("type", pa.string()),
        ("action", pa.string()),
        ("input", pa.string()),
        ("input_keys", pa.list_(pa.string())),
        ("output", pa.string()),
        ("status", pa.string()),
        ("tokens_in", pa.int64()),
        ("tokens_out", pa.int64()),
        ("cost_usd", pa.float64()),
        ("latency_ms", pa.float64()),
    ]
)
