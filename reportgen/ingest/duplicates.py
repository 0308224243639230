"""What a load already has: re-ingest detection by run identity, not by bytes alone.

The same bytes can derive different runs (a leaderboard submission copied to another system
folder: the run ids hold the folder), so the bytes alone never decide. Two checks:

- Fast path, before parsing (``drop_known``): a file is skipped when the archive holds its
  *file key* from the same display path (``files.path``): the same bytes at the same path,
  loaded with the same ``run_id_prefix`` and ``identity``, derive the same runs. This keeps the
  nightly re-run of one command cheap. The file key (``file_key``) is the content hash, after
  ``run_id_prefix`` and followed by a digest of ``identity`` when one is given: ``identity``
  names whatever else of the call changes the runs a file derives (e.g. future label, suite
  or batch overrides), so a call with another identity parses the files again. The same file
  listed twice in one call (same bytes, same display or real path) is read once.
- Identity path, after staging (``drop_staged``): a staged run whose run id the archive
  already holds with the same content hash is dropped from every stage table, as is a run
  id staged again by a later file (path order) of the same content hash; iterations and
  outputs likewise (see staged_duplicates.sql for their identities). Files of the same key
  are staged apart (``rounds``: the n-th file of each key in round n, the later rounds held
  in rg_hold_* tables): staging derives per-run figures from the stage tables (e.g. a run's
  step count), which two copies of one run staged together would double. A file all of whose
  staged rows were dropped is skipped ("same runs as ..."). A file that stages no rows at all
  (e.g. a SWE-PolyBench ``_result.json`` beside its ``all_preds.jsonl``) is skipped when its
  file key was loaded before or appeared earlier in the call, as before this rule. Runs with
  the same id and other content go on to the conflict check (conflicts.py).

The ``files`` table is keyed by the file key; a second path loaded with the same bytes gets
``<file key>@<digest of its path>`` (``path_key``), so both rows stay and each re-run finds
its own."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import duckdb
import pyarrow as pa

from reportgen._sql import load_sql
from reportgen.archive import arrow
from reportgen.formats.base import STAGE_TABLES
from reportgen.formats.source import SourceFile

Skip = dict[str, str]
"""One skipped file for the report: ``file``, ``content_hash``, ``reason``."""


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def file_key(content_hash: str, prefix: str = "", identity: str = "") -> str:
    """The key of a file's content for this call: ``prefix`` + hash (+ ``#`` + digest of
    ``identity`` when one is given). Without an identity it is the key archives always had."""
    return prefix + content_hash + (f"#{_digest(identity)}" if identity else "")


def path_key(key: str, display: str) -> str:
    """The ``files`` key of a second path loaded with the same ``key``: stable per path."""
    return f"{key}@{_digest(display)}"


@dataclass
class Known:
    """The file keys of one load: ``keys`` by display path, and where the archive holds them
    (``archived``: file key -> the path it was first loaded from)."""

    keys: dict[str, str] = field(default_factory=dict)
    archived: dict[str, str] = field(default_factory=dict)

    def rounds(self, sources: list[SourceFile]) -> list[list[SourceFile]]:
        """``sources`` split so that no two files of one key share a round: the n-th file
        (path order) of each key is in round n."""
        out: list[list[SourceFile]] = []
        count: dict[str, int] = {}
        for source in sources:
            key = self.keys[source.display]
            n = count.get(key, 0)
            count[key] = n + 1
            if n == len(out):
                out.append([])
            out[n].append(source)
        return out

    def files_keys(self, sources: list[SourceFile]) -> dict[str, str]:
        """The ``files.content_hash`` of each of ``sources`` (those loaded, in order): its file
        key, or ``path_key`` when the archive or an earlier one of them has that key."""
        taken = set(self.archived)
        out: dict[str, str] = {}
        for source in sources:
            key = self.keys[source.display]
            out[source.display] = path_key(key, source.display) if key in taken else key
            taken.add(key)
        return out


def _skip(source: SourceFile, reason: str) -> Skip:
    return {"file": source.display, "content_hash": source.content_hash, "reason": reason}


def drop_known(
    con: duckdb.DuckDBPyConnection,
    sources: list[SourceFile],
    prefix: str = "",
    identity: str = "",
) -> tuple[list[SourceFile], list[Skip], Known]:
    """The fast path: ``sources`` less those the archive holds from the same path (or listed
    twice in this call), the skipped ones, and the keys of the load."""
    known = Known({s.display: file_key(s.content_hash, prefix, identity) for s in sources})
    wanted = {k for s in sources for k in (known.keys[s.display], _own_key(known, s))}
    rows = con.execute(
        "SELECT content_hash, path FROM files WHERE content_hash IN (SELECT unnest($k))",
        {"k": sorted(wanted)},
    ).fetchall()
    found = dict(rows)
    keys = set(known.keys.values())
    known.archived = {k: p for k, p in found.items() if k in keys}
    fresh: list[SourceFile] = []
    skipped: list[Skip] = []
    seen: dict[tuple[str, str], str] = {}
    for source in sources:
        key = known.keys[source.display]
        if source.display in (found.get(key), found.get(_own_key(known, source))):
            skipped.append(_skip(source, "already loaded (same path, same content)"))
            continue
        first = seen.get((key, source.display)) or seen.get((key, str(source.path)))
        if first is not None:
            skipped.append(_skip(source, f"same content as {first}"))
            continue
        seen[(key, source.display)] = seen[(key, str(source.path))] = source.display
        fresh.append(source)
    return fresh, skipped, known


def _own_key(known: Known, source: SourceFile) -> str:
    return path_key(known.keys[source.display], source.display)


def open_holds(con: duckdb.DuckDBPyConnection) -> None:
    """Empty temp tables rg_hold_<table> for the rows of rounds after the first: the stage
    tables' columns and rg_round. Call once the stage tables exist."""
    for table in STAGE_TABLES:
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE rg_hold_{table} AS"
            f" SELECT *, 0 AS rg_round FROM stage_{table} LIMIT 0"
        )


def hold(con: duckdb.DuckDBPyConnection, round_no: int) -> None:
    """Move the rows just staged (round ``round_no`` > 0) out of the stage tables."""
    for table in STAGE_TABLES:
        con.execute(f"INSERT INTO rg_hold_{table} SELECT *, $r FROM stage_{table}", {"r": round_no})
        con.execute(f"DELETE FROM stage_{table}")


def drop_staged(
    con: duckdb.DuckDBPyConnection, sources: list[SourceFile], known: Known
) -> dict[str, Skip]:
    """The identity path: drop the staged and held rows the archive or an earlier file of this
    load already holds (staged_duplicates.sql), put the held rows left back into the stage
    tables, and return the files that then load nothing and are skipped, by display path.
    Call after the run ids are final (prefixed)."""
    order = arrow.table(
        {
            "source_file": arrow.strings([s.display for s in sources]),
            "ord": arrow.numbers(range(len(sources)), pa.int64()),
        }
    )
    con.register("rg_order_arrow", order)
    try:
        con.execute("CREATE OR REPLACE TEMP TABLE rg_order AS SELECT * FROM rg_order_arrow")
    finally:
        con.unregister("rg_order_arrow")
    con.execute(load_sql("staged_duplicates"))
    for table in ("runs", "iterations", "outputs"):
        for target, rounds in ((f"stage_{table}", "= 0"), (f"rg_hold_{table}", "> 0")):
            con.execute(
                f"DELETE FROM {target} WHERE rowid IN"
                f" (SELECT rid FROM rg_dup WHERE tbl = $t AND rg_round {rounds})",
                {"t": table},
            )
    # steps carry no file, but a round stages each run id from one file (or the load fails
    # in the conflict check): a dropped run loses the steps of its round
    con.execute(
        "DELETE FROM stage_steps WHERE run_id IN"
        " (SELECT run_id FROM rg_dup WHERE tbl = 'runs' AND rg_round = 0)"
    )
    con.execute(
        "DELETE FROM rg_hold_steps AS s WHERE EXISTS (SELECT 1 FROM rg_dup AS d"
        " WHERE d.tbl = 'runs' AND d.run_id = s.run_id AND d.rg_round = s.rg_round)"
    )
    for table in STAGE_TABLES:
        con.execute(
            f"INSERT INTO stage_{table} BY NAME SELECT * EXCLUDE (rg_round) FROM rg_hold_{table}"
        )
    dup_of = {
        file: (first, bool(archived))
        for file, first, archived in con.execute(
            "SELECT source_file, arg_min(dup_of, NOT archived), bool_or(archived) FROM rg_dup"
            " GROUP BY source_file"
        ).fetchall()
    }
    left = {
        file
        for (file,) in con.execute(
            "SELECT source_file FROM stage_runs UNION SELECT source_file FROM stage_iterations"
            " UNION SELECT source_file FROM stage_outputs"
        ).fetchall()
    }
    for table in ("rg_dup", "rg_order", *(f"rg_hold_{t}" for t in STAGE_TABLES)):
        con.execute(f"DROP TABLE {table}")
    skipped: dict[str, Skip] = {}
    first_with: dict[str, str] = {}
    for source in sources:
        key = known.keys[source.display]
        first_with.setdefault(key, source.display)
        if source.display in left:
            continue
        if source.display in dup_of:
            other, archived = dup_of[source.display]
            reason = f"same runs already loaded (from {other})" if archived else None
            skipped[source.display] = _skip(source, reason or f"same runs as {other}")
        elif key in known.archived:
            skipped[source.display] = _skip(source, f"already loaded (as {known.archived[key]})")
        elif first_with[key] != source.display:
            skipped[source.display] = _skip(source, f"same content as {first_with[key]}")
    return skipped
