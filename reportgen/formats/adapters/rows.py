"""Column-wise staging for the document adapters: parse a file in Python, append its runs and
steps to plain lists, and hand them to DuckDB as one Arrow table per stage table per call.

Adapters for other tools' formats (AgentDiff, OpenTelemetry, Inspect, SWE-agent, tau-bench)
read whole JSON documents whose shape no single ``read_json`` fits, so they parse with ``json``
and stage through here; never row by row."""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pyarrow as pa

from reportgen._sql import load_sql
from reportgen.archive.arrow import STEP_ROWS
from reportgen.errors import InputError
from reportgen.formats.nesting import NestingScanner
from reportgen.formats.source import SourceFile
from reportgen.limits import MAX_AMOUNT, MAX_COUNT, MAX_YEAR

log = logging.getLogger("reportgen.formats")

_RUNS = pa.schema(
    [
        ("run_id", pa.string()),
        ("suite", pa.string()),
        ("label", pa.string()),
        ("task_id", pa.string()),
        ("batch", pa.string()),
        ("trial", pa.int32()),
        ("started_at", pa.string()),
        ("meta", pa.string()),
        ("output", pa.string()),
        ("success", pa.bool_()),
        ("reward", pa.float64()),
        ("tokens_in", pa.int64()),
        ("tokens_out", pa.int64()),
        ("cost_usd", pa.float64()),
        ("latency_ms", pa.float64()),
        ("n_steps", pa.int32()),
        ("format", pa.string()),
        ("source_file", pa.string()),
        ("source_line", pa.int32()),
        ("content_hash", pa.string()),
        ("cache_read_tokens", pa.int64()),
        ("cache_write_tokens", pa.int64()),
        ("reasoning_tokens", pa.int64()),
    ]
)
#: The prompt-cache and reasoning token columns of steps and runs (schema.sql).
CACHE_COLUMNS = ("cache_read_tokens", "cache_write_tokens", "reasoning_tokens")
_STEPS = (
    STEP_ROWS.append(pa.field("started_at", pa.string()))
    .append(pa.field("parent", pa.int32()))
    .append(pa.field("error", pa.string()))
    .append(pa.field("cache_read_tokens", pa.int64()))
    .append(pa.field("cache_write_tokens", pa.int64()))
    .append(pa.field("reasoning_tokens", pa.int64()))
)
STATUSES = frozenset({"ok", "error", "retry", "abandoned"})


def notice(source: SourceFile, message: str) -> None:
    """Tell the user something odd but not wrong about a file (printed on stderr)."""
    log.warning("%s: notice: %s", source.display, message)


def default_label(source: SourceFile) -> str:
    """The label a run gets when its file names none: the parent folder's name."""
    return _folder_name(source.path)


@lru_cache(maxsize=4096)
def _folder_name(path: Path) -> str:
    return path.resolve().parent.name or "default"


def default_task(source: SourceFile) -> str:
    """The task a run gets when its file names none: the file name up to its first dot."""
    return source.path.name.split(".")[0]


def read_bytes(source: SourceFile) -> bytes:
    """The whole file, decompressed when it is .gz."""
    try:
        if source.compressed:
            with gzip.open(source.path, "rb") as handle:
                return handle.read()
        return source.path.read_bytes()
    except (OSError, EOFError) as exc:
        raise InputError(source.display, f"cannot read: {exc}") from exc


def parse_document(source: SourceFile, what: str, data: bytes | None = None) -> Any:
    """Parse a file (or ``data``) as one JSON document; a bad or truncated one is an
    InputError that says where and what the file was expected to be."""
    raw = read_bytes(source) if data is None else data
    if data is not None:  # a zip member: files themselves were scanned when measured
        problem = NestingScanner(lines=False).feed(data)
        if problem is not None:
            raise InputError(
                source.display, f"{problem.message}; expected {what}", line=problem.line
            )
    try:
        return json.loads(raw)
    except RecursionError:
        raise InputError(source.display, f"nested too deep; expected {what}") from None
    except UnicodeDecodeError as exc:
        raise InputError(source.display, f"not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        ended = raw.rstrip()[-1:] in (b"}", b"]")
        hint = " (file truncated?)" if exc.pos >= len(raw.rstrip()) or not ended else ""
        raise InputError(
            source.display,
            f"invalid JSON{hint}: {exc.msg} (column {exc.colno}); expected {what}",
            line=exc.lineno,
        ) from None


# A file's bytes with every digit as 0, each '-' and '.' kept and anything else a space: an
# integer orjson reads otherwise than json (beyond 64 bits it becomes a float) shows as
# " " or "-" then 20 or 19 zeros. A string holding such digits is sent the slow way too.
_DIGITS = bytes(48 if 48 <= i <= 57 else i if i in b"-." else 32 for i in range(256))
_LONG = b"0" * 19


def load_document(source: SourceFile, what: str) -> Any:
    """``parse_document(source, what)``, faster: the bytes the file's measure kept (else one
    read) parsed by orjson. What orjson would read otherwise than ``json`` (an integer beyond
    64 bits) or not at all (bad JSON, NaN, a lone surrogate, nesting past 1024) goes to
    ``parse_document``, which reads it as ever and words its errors."""
    raw = source.data if source.data is not None else read_bytes(source)
    digits = raw.translate(_DIGITS)
    if b"-" + _LONG in digits or b" 0" + _LONG in digits or digits.startswith(_LONG + b"0"):
        return parse_document(source, what)
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return parse_document(source, what)


def parse_lines(source: SourceFile, what: str) -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) for each non-blank line of a JSON Lines file."""
    for number, line in enumerate(read_bytes(source).splitlines(), start=1):
        if line.strip():
            try:
                yield number, json.loads(line)
            except ValueError as exc:
                raise InputError(
                    source.display, f"invalid JSON: {exc}; expected {what}", line=number
                ) from None


def parse_objects(source: SourceFile, what: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line of a JSON Lines log whose every record
    is an object (session logs); parsed with orjson, as these files are large."""
    for number, line in enumerate(read_bytes(source).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise InputError(
                source.display, f"invalid JSON: {exc}; expected {what}", line=number
            ) from None
        if not isinstance(record, dict):
            raise InputError(source.display, f"expected a JSON object; {what}", line=number)
        yield number, record


@contextmanager
def explained(source: SourceFile, what: str) -> Iterator[None]:
    """Turn a structural surprise deep in a parser (a missing key, a string where an object
    belongs) into an InputError naming the file and the format it was read as."""
    try:
        yield
    except InputError:
        raise
    except (KeyError, IndexError, TypeError, AttributeError, ValueError) as exc:
        detail = f"missing key {exc}" if isinstance(exc, KeyError) else str(exc)[:200]
        raise InputError(source.display, f"not a valid {what}: {detail}") from None


def require(
    source: SourceFile, ok: bool, message: str, field: str | None = None, line: int | None = None
) -> None:
    """Raise an InputError for ``source`` unless ``ok``."""
    if not ok:
        raise InputError(source.display, message, line=line, field=field)


_strict = json.JSONEncoder(ensure_ascii=False, allow_nan=False, default=str).encode
_NO_KEYS: list[str] = []


def _finite(value: Any) -> Any:
    """``value`` with NaN and infinities replaced by null (JSON has no such numbers)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


class RawJson(str):
    """Text that already is JSON (an attribute holding serialised messages): staged as is,
    not parsed and re-encoded; should it not be valid JSON, it is stored as a JSON string."""


def json_text(value: Any) -> Any:
    """A payload for a step: a string holding a JSON object or array is parsed when small (so
    its keys count in the step signature) and passes through as RawJson when large (message
    lists: not parsed and re-encoded); anything else is encoded as usual."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        return maybe_json(value) if len(value) <= _PARSE_UP_TO else RawJson(value)
    return value


_PARSE_UP_TO = 2048


def _encode(value: Any) -> str:
    """JSON text; a payload holding NaN (Python's json reads it) gets null in its place."""
    if value.__class__ is RawJson:
        return str(value)
    if value.__class__ is str:  # orjson writes a string as json does, ~4x faster
        try:
            return orjson.dumps(value).decode()
        except orjson.JSONEncodeError:  # a lone surrogate: json writes it as it is
            pass
    try:
        return _strict(value)
    except ValueError:
        return _strict(_finite(value))


def to_json(value: Any) -> str | None:
    """JSON text of a payload, None for an absent one."""
    return None if value is None else _encode(value)


def maybe_json(value: Any) -> Any:
    """A JSON object or array given as a string (arguments, attributes) parsed; else as is."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def count(value: Any, field: str = "count") -> int | None:
    """A non-negative integer count, or None when absent, negative or not a number; a count
    above :data:`MAX_COUNT` raises ValueError naming ``field`` (the file's reader names the
    file: ``explained``)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        number = value
    elif isinstance(value, float) and math.isfinite(value):
        number = int(value)
    elif isinstance(value, str) and value.isdigit():
        number = int(value[:20])  # a longer one is out of range all the same
    else:
        return None
    if number > MAX_COUNT:
        raise ValueError(f"{field} {str(value)[:40]} is out of range (at most {MAX_COUNT:,})")
    return number if number >= 0 else None


def amount(value: Any, field: str = "amount") -> float | None:
    """A non-negative finite number, or None; one above :data:`MAX_AMOUNT` raises ValueError
    naming ``field``."""
    if isinstance(value, bool) or value is None:
        return None
    number: float | None = None
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
    if number is None or math.isnan(number) or number < 0:
        return None
    if number > MAX_AMOUNT:
        raise ValueError(f"{field} {str(value)[:40]} is out of range (at most {MAX_AMOUNT:g})")
    return number


def add(*values: float | None) -> float | None:
    """Sum of the known values; None when none is known."""
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def iso_from_epoch(seconds: float | None) -> str | None:
    """ISO 8601 UTC text for epoch seconds."""
    if seconds is None or not math.isfinite(seconds):
        return None
    return datetime.fromtimestamp(seconds, UTC).isoformat()


def epoch_from_iso(stamp: Any) -> float | None:
    """Epoch seconds of an ISO 8601 time stamp (``Z`` or an offset), None for anything else;
    a stamp after the year :data:`MAX_YEAR` raises ValueError (it overflows what is later
    added to it)."""
    if not isinstance(stamp, str) or len(stamp) < 10:
        return None
    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    if when.year > MAX_YEAR:
        raise ValueError(f"time stamp {stamp[:40]} is out of range (years up to {MAX_YEAR})")
    return when.timestamp()


def stable_id(source: SourceFile, task_id: str, position: int) -> str:
    """A run id for a run whose file gives none: the task plus a hash of the file content and
    the run's position in it, so re-loading the same file gives the same ids."""
    digest = hashlib.sha1(f"{source.content_hash}|{position}".encode()).hexdigest()[:12]
    return f"{task_id}-{digest}"


class Collector:
    """Runs and steps of one ``stage`` call, column by column, for one Arrow insert each."""

    def __init__(self, format_name: str) -> None:
        self.format_name = format_name
        self.runs: dict[str, list[Any]] = {name: [] for name in _RUNS.names}
        self._steps: list[tuple[Any, ...]] = []
        self._run_id = ""
        self._n = 0

    def step(
        self,
        type: str,
        action: str,
        status: str = "ok",
        input: Any = None,
        output: Any = None,
        tokens_in: int | None = None,
        tokens_out: int | None = None,
        cost_usd: float | None = None,
        latency_ms: float | None = None,
        started_at: str | None = None,
        parent: int | None = None,
        error: str | None = None,
        cache_read: int | None = None,
        cache_write: int | None = None,
        reasoning: int | None = None,
    ) -> int:
        """Append a step to the run being built (begun with ``begin``); returns its index.
        ``error``: the step's error message, kept apart from its output (as AgentDiff does).
        ``cache_read``, ``cache_write``: the prompt tokens of ``tokens_in`` read from / written
        to the prompt cache; ``reasoning``: the reasoning tokens of ``tokens_out``."""
        idx = self._n
        self._steps.append(
            (
                self._run_id,
                idx,
                type or "step",
                action or "(unnamed)",
                None if input is None else _encode(input),
                sorted(input) if input.__class__ is dict else _NO_KEYS,
                None if output is None else _encode(output),
                status,
                tokens_in,
                tokens_out,
                cost_usd,
                latency_ms,
                started_at,
                parent,
                error,
                cache_read,
                cache_write,
                reasoning,
            )
        )
        self._n = idx + 1
        return idx

    @property
    def next_index(self) -> int:
        """The index the next step of the current run gets."""
        return self._n

    def begin(self, run_id: str) -> None:
        """Start collecting the steps of run ``run_id``."""
        self._run_id = run_id
        self._n = 0

    def end(
        self,
        source: SourceFile,
        *,
        task_id: str,
        label: str | None = None,
        suite: str | None = None,
        batch: str | None = None,
        trial: int = 0,
        started_at: str | None = None,
        meta: dict[str, Any] | None = None,
        output: str | None = None,
        success: bool | None = None,
        reward: float | None = None,
        tokens_in: int | None = None,
        tokens_out: int | None = None,
        cost_usd: float | None = None,
        latency_ms: float | None = None,
        source_line: int | None = None,
        cache_read: int | None = None,
        cache_write: int | None = None,
        reasoning: int | None = None,
    ) -> None:
        """Finish the run begun with ``begin``: record its row (n_steps = steps added);
        the cache and reasoning counts are run totals the trace gives (as for ``step``)."""
        r = self.runs
        r["run_id"].append(self._run_id)
        r["suite"].append(suite or "default")
        r["label"].append(label or default_label(source))
        r["task_id"].append(str(task_id))
        r["batch"].append(batch)
        r["trial"].append(int(trial))
        r["started_at"].append(started_at)
        r["meta"].append(to_json(meta) if meta else None)
        r["output"].append(output if output else None)
        r["success"].append(success)
        r["reward"].append(reward)
        r["tokens_in"].append(tokens_in)
        r["tokens_out"].append(tokens_out)
        r["cost_usd"].append(cost_usd)
        r["latency_ms"].append(latency_ms)
        r["n_steps"].append(self._n)
        r["format"].append(self.format_name)
        r["source_file"].append(source.display)
        r["source_line"].append(source_line)
        r["content_hash"].append(source.content_hash)
        r["cache_read_tokens"].append(cache_read)
        r["cache_write_tokens"].append(cache_write)
        r["reasoning_tokens"].append(reasoning)

    def flush(self, con: duckdb.DuckDBPyConnection) -> None:
        """Insert everything collected into stage_runs, stage_steps and stage_outputs."""
        for status in {row[7] for row in self._steps} - STATUSES:
            raise ValueError(f"adapter {self.format_name} produced step status {status!r}")
        columns = list(zip(*self._steps, strict=True)) or [()] * len(_STEPS.names)
        runs = pa.table(self.runs, schema=_RUNS)
        steps = pa.table(dict(zip(_STEPS.names, columns, strict=True)), schema=_STEPS)
        con.register("rg_adapter_runs", runs)
        con.register("rg_adapter_steps", steps)
        try:
            con.execute(load_sql("adapter_runs"))
            con.execute(load_sql("adapter_outputs"))
            con.execute(load_sql("adapter_steps"))
        finally:
            con.unregister("rg_adapter_runs")
            con.unregister("rg_adapter_steps")


def stage_each(
    con: duckdb.DuckDBPyConnection,
    sources: list[SourceFile],
    format_name: str,
    what: str,
    parse: Callable[[Collector, SourceFile], None],
) -> None:
    """Parse every source with ``parse`` into one Collector (structural errors explained as
    "not a valid <what>"), then insert it all at once."""
    rows = Collector(format_name)
    for source in sources:
        with explained(source, what):
            parse(rows, source)
    rows.flush(con)
