"""A content fingerprint of an archive, to tell "unchanged" from "changed" after a failure."""

from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb

from reportgen.archive.connection import TABLES

# loads and files carry load times; their stable columns are hashed instead
_STABLE = {
    "loads": "n_files, n_runs, n_steps, n_iterations, n_outputs, replaced",
    "files": "content_hash, path, format, size_bytes, n_runs, n_steps, n_iterations, n_outputs",
}


def archive_fingerprint(path: Path) -> str:
    """sha256 over every archive table's rows, sorted (read with DuckDB directly, read-only).
    Equal fingerprints mean equal content; the file's bytes may still differ (checkpoints)."""
    digest = hashlib.sha256()
    con = duckdb.connect(str(path), read_only=True)
    try:
        present = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        for table in (*TABLES, "archive_info"):
            if table not in present:
                digest.update(f"{table}: absent\n".encode())
                continue
            columns = _STABLE.get(table, "*")
            rows = con.execute(f"SELECT {columns} FROM {table}").fetchall()
            digest.update(f"{table}: {len(rows)}\n".encode())
            for row in sorted(repr(r) for r in rows):
                digest.update(row.encode() + b"\n")
    finally:
        con.close()
    return digest.hexdigest()
