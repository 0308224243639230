"""The site's every-night evaluation of a comparison, night by night, kept between builds.

A nightly build adds one night to an archive that may hold a year of them; every older night's
pairs, metrics and findings come out as they did last time. So the site evaluates each night
on its own (reportgen.evaluation's ``evaluate_part`` of that night's pairs: a pair, its repeat pairs and its
trajectory findings never reach past its night), and keeps each night's records in a cache
file beside the site (``.NAME.cache/``, never published). A night whose key is unchanged is
read back; the others are evaluated, in one call per kind below, and the file rewritten.

Two kinds of night: those with step pages (``step_nights``, retention.py) keep every detail
the pair pages show (the aligned steps, every loop, the trajectory findings); older nights
keep what their verdicts, statistics and tables read (``details`` off: reportgen.divergence).

A night's key hashes whatever its evaluation reads that may change: every column of its runs
of the two labels, each of their steps and outputs (DuckDB's row hashes), the code that
computes and judges pairs (the page code's fingerprint, render.py, plus reportgen.spend), the
archive's schema version, the redaction policy (the evaluation reads the redacted views), the
price table's date, DuckDB's version, and the night's kind. Without a cache file (a first
build, another machine) every night is evaluated, and the result is the same."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import duckdb

from reportgen._sql import load_sql
from reportgen.divergence.compare import Comparison
from reportgen.divergence.pairing import Pairing
from reportgen.divergence.records import PairRecord
from reportgen.evaluation import evaluate_part, label_pairing

CACHE_FORMAT = 1
#: The packages whose code computes, judges or prices a pair (their files key the cache).
EVALUATION_CODE = (
    "divergence",
    "statistics",
    "gating",
    "spend",
    "formats",
    "ingest",
    "archive",
    "site",
)


@dataclass
class NightResult:
    """One night's evaluation: its pair records (in pairing order), each pair's task key and
    each task's baseline noise floor of divergence."""

    key: str
    pairs: list[PairRecord]
    task_keys: dict[str, str]
    repeat_tdi: dict[str, float]
    #: the night's label-level statistics without noise floors, per suite ("": all suites),
    #: as the site's night_statistics judged them (filled in by it, kept with the night)
    statistics: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass
class EvaluationCache:
    """Where the site keeps its nights' evaluations (a folder beside the site), and what
    besides the archive keys them (``salt``: the code, the redaction policy, the prices).
    A build's evaluations are written by ``save``, once the site is in place: a failed build
    leaves the cache as it was."""

    folder: Path
    salt: str
    pending: dict[Path, Mapping[str | None, NightResult]] = field(default_factory=dict)

    @staticmethod
    def beside(out: Path, salt: str) -> EvaluationCache:
        """The cache of the site ``out``: ``.NAME.cache/`` next to it (not published)."""
        return EvaluationCache(out.parent / f".{out.name}.cache", salt)

    def file(self, base: str, cand: str) -> Path:
        """The file of one comparison."""
        name = hashlib.sha256(f"{base}\n{cand}".encode()).hexdigest()[:16]
        return self.folder / f"every-night-{name}.json"

    def save(self) -> None:
        """Write what this build evaluated (each comparison's file replaced in one step)."""
        for path, nights in self.pending.items():
            _write(path, _encode(nights))
        self.pending.clear()


def cache_salt(con: duckdb.DuckDBPyConnection, redaction: object) -> str:
    """What keys every night besides its rows: the evaluation's code, the archive's schema
    version, the redaction policy (its repr) and the prices (their date and the config file
    that may override them)."""
    from reportgen.formats.pricing import load_table
    from reportgen.gating.thresholds import find_config
    from reportgen.site.render import files_fingerprint

    package = Path(__file__).resolve().parent.parent
    try:
        schema = con.execute(
            "SELECT value FROM main.archive_info WHERE key = 'schema_version'"
        ).fetchall()
    except duckdb.Error:  # an archive from before archive_info
        schema = []
    config = find_config()
    overrides = hashlib.sha256(config.read_bytes()).hexdigest() if config else ""
    said = [
        files_fingerprint(*(package / name for name in EVALUATION_CODE)),
        schema,
        repr(redaction),
        overrides,
        load_table().as_of,
    ]
    return hashlib.sha256(json.dumps(said, default=str).encode()).hexdigest()


def night_keys(
    con: duckdb.DuckDBPyConnection, base: str, cand: str, salt: str
) -> dict[str | None, str]:
    """Each night's key (see the module's docstring; nights of either label)."""
    rows = con.execute(load_sql("site_night_keys"), {"labels": [base, cand]}).fetchall()
    return {
        night: hashlib.sha256(
            json.dumps([CACHE_FORMAT, salt, duckdb.__version__, base, cand, *hashes]).encode()
        ).hexdigest()
        for night, *hashes in rows
    }


def every_night(
    con: duckdb.DuckDBPyConnection,
    base: str,
    cand: str,
    night_of: Mapping[str, str | None],
    step_nights: Collection[str] | None,
    cache: EvaluationCache | None = None,
) -> tuple[Comparison, dict[str | None, NightResult]]:
    """``base`` against ``cand`` on every night of the archive, night by night (the
    evaluation ``evaluate_labels(..., label_level=False)`` makes, older nights' records pared
    down), and each night's result; ``night_of``: each run's night. Nights unchanged since
    ``cache`` was written are read from it; ``cache`` is rewritten with every night (and what
    is added to their results before it is saved)."""
    pairing = label_pairing(con, base, cand)
    by_night: dict[str | None, list[Any]] = defaultdict(list)
    for pair in pairing.pairs:
        by_night[night_of[pair.baseline_run_id]].append(pair)
    keys = {} if cache is None else night_keys(con, base, cand, cache.salt)
    held = {} if cache is None else _read(cache.file(base, cand))
    done: dict[str | None, NightResult] = {}
    for night in by_night:
        kept = step_nights is None or night in step_nights
        key = f"{keys.get(night)}:{kept}"
        if keys.get(night) is not None and night in held and held[night].key == key:
            done[night] = held[night]
    for kept in (True, False):
        todo = [
            n
            for n in by_night
            if n not in done and (step_nights is None or n in step_nights) == kept
        ]
        if todo:
            done |= _evaluate(con, pairing, by_night, todo, keys, kept, step_nights)
    if cache is not None:
        cache.pending[cache.file(base, cand)] = done
    order = {p.pair_id: k for k, p in enumerate(pairing.pairs)}
    results = sorted((r for n in done.values() for r in n.pairs), key=lambda r: order[r["pair_id"]])
    every = Comparison(
        results,
        pairing.unpaired,
        pairing.keys,
        [],
        task_keys={k: v for n in done.values() for k, v in n.task_keys.items()},
        repeat_tdi={k: v for n in done.values() for k, v in n.repeat_tdi.items()},
    )
    return every, done


def _evaluate(
    con: duckdb.DuckDBPyConnection,
    pairing: Pairing,
    by_night: Mapping[str | None, Sequence[Any]],
    nights: list[str | None],
    keys: Mapping[str | None, str],
    kept: bool,
    step_nights: Collection[str] | None,
) -> dict[str | None, NightResult]:
    """``nights`` evaluated in one call (their pairs and unpaired runs), split back by night."""
    wanted = set(nights)
    part = replace(
        pairing,
        pairs=[p for n in nights for p in by_night[n]],
        unpaired=[u for u in pairing.unpaired if u.batch in wanted],
    )
    comparison = evaluate_part(con, part, details=kept, findings_nights=step_nights)
    night_of_pair = {p.pair_id: n for n in nights for p in by_night[n]}
    results = {n: NightResult(f"{keys.get(n)}:{kept}", [], {}, {}) for n in nights}
    for record in comparison.pairs:
        night = results[night_of_pair[record["pair_id"]]]
        night.pairs.append(record)
        night.task_keys[record["pair_id"]] = comparison.task_keys[record["pair_id"]]
        floor = comparison.repeat_tdi.get(night.task_keys[record["pair_id"]])
        if floor is not None:
            night.repeat_tdi[night.task_keys[record["pair_id"]]] = floor
    return results


def _read(path: Path) -> dict[str | None, NightResult]:
    """The nights of a cache file; nothing when it is missing, unreadable or of another
    format (then every night is evaluated)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT:
        return {}
    nights: dict[str | None, NightResult] = {}
    for entry in data.get("nights", []):
        try:
            night = NightResult(
                entry["key"],
                entry["pairs"],
                entry["task_keys"],
                entry["repeat_tdi"],
                entry.get("statistics", {}),
            )
            whole = isinstance(night.statistics, dict) and all(
                isinstance(r, dict) and r["pair_id"] in night.task_keys for r in night.pairs
            )
        except (KeyError, TypeError):
            return {}
        if not whole:
            return {}
        nights[entry["night"]] = night
    return nights


def _encode(nights: Mapping[str | None, NightResult]) -> str:
    """A cache file's text (``json``, which keeps NaN as NaN: orjson would write null)."""
    entries = [
        {"night": night, "key": n.key, "pairs": n.pairs, "task_keys": n.task_keys,
         "repeat_tdi": n.repeat_tdi, "statistics": n.statistics}
        for night, n in nights.items()
    ]  # fmt: skip
    return json.dumps({"format": CACHE_FORMAT, "nights": entries}, separators=(",", ":"))


def _write(path: Path, text: str) -> None:
    """Replace the cache file in one step (a reader sees the old file or the new one). A
    cache that cannot be written is no error: the next build evaluates every night."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(tmp, path)
    except OSError:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
