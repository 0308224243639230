"""Find the first bad record of a file, with its line and field, by reading it in Python.

Only the error path comes here: the fast path validates in SQL, which can say *which file* is
bad but not which line. This pass re-reads that one file, record by record, and checks each
against the format's JSON Schema (shipped in ``schemas/``)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterator
from datetime import datetime
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reportgen.errors import InputError
from reportgen.formats.source import SourceFile

if TYPE_CHECKING:
    import jsonschema

ExtraCheck = Callable[[Any], "tuple[str, str] | None"]


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The JSON Schema ``schemas/<name>.schema.json`` shipped in the package."""
    text = (
        resources.files("reportgen.formats")
        .joinpath(f"schemas/{name}.schema.json")
        .read_text("utf-8")
    )
    schema: dict[str, Any] = json.loads(text)
    return schema


def _is_datetime(value: object) -> bool:
    if isinstance(value, str):
        datetime.fromisoformat(value)
    return True


@cache
def _validator(schema_name: str) -> jsonschema.Draft202012Validator:
    """A validator of the named schema; jsonschema is imported here, on the error path only
    (it costs a tenth of a second at start-up, and good files never need it)."""
    import jsonschema

    formats = jsonschema.FormatChecker(formats=())
    formats.checks("date-time", raises=ValueError)(_is_datetime)
    # Integers are written without a fraction: 0.0 is a float here, as in DuckDB's json_type.
    strict = jsonschema.validators.extend(
        jsonschema.Draft202012Validator,
        type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
            "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool)
        ),
    )
    validator: jsonschema.Draft202012Validator = strict(
        load_schema(schema_name), format_checker=formats
    )
    return validator


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not valid JSON (numbers must be finite)")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f'duplicate key "{key}"')
        seen[key] = value
    return seen


def parse_json(text: str) -> Any:
    """``json.loads`` that refuses NaN/Infinity and duplicate keys, as the fast path does."""
    return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_no_duplicates)


def _records(path: Path, lines: bool) -> Iterator[tuple[int | None, str]]:
    """The records of a file as text, with their line (None: the one document). Bytes that are
    not UTF-8 raise ``_NotUtf8`` with the line and the byte offset within it."""
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as handle:
        if not lines:
            yield None, _decode(handle.read(), None)
            return
        for number, raw in enumerate(handle, start=1):
            if raw.strip():
                yield number, _decode(raw, number)


class _NotUtf8(Exception):
    """A record's bytes are not UTF-8."""

    def __init__(self, line: int | None, offset: int) -> None:
        super().__init__(line, offset)
        self.line = line
        self.offset = offset


def _decode(raw: bytes, line: int | None) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        where = line
        offset = exc.start
        if line is None:  # one document: count the lines before the bad byte
            where = raw.count(b"\n", 0, exc.start) + 1
            offset = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1)
        raise _NotUtf8(where, offset) from None


def _lone_surrogate(record: Any) -> bool:
    """True when a string of ``record`` holds a lone surrogate (an escape such as ``\\udc80``
    that is no character): DuckDB refuses those, so the diagnosis must too."""
    try:
        json.dumps(record, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _field_path(parts: Any) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _describe(error: jsonschema.ValidationError) -> tuple[str, str]:
    field = _field_path(error.absolute_path) or "(record)"
    value = error.instance
    if error.validator == "required":
        missing = str(error.message).split("'")[1] if "'" in error.message else "?"
        return (
            f"{field}.{missing}" if error.absolute_path else missing
        ), "required field is missing"
    if error.validator == "enum":
        allowed = ", ".join(str(v) for v in error.validator_value)
        return field, f"unknown value {json.dumps(value)[:60]} (expected one of {allowed})"
    if error.validator == "type":
        wanted = error.validator_value
        wanted = " or ".join(wanted) if isinstance(wanted, list) else wanted
        return field, f"expected {wanted}, got {type(value).__name__} {json.dumps(value)[:60]}"
    if error.validator in ("minimum", "maximum"):
        return field, f"{value} is out of range ({error.validator} {error.validator_value})"
    if error.validator == "minLength":
        return field, "must not be empty"
    if error.validator == "format":
        return field, f"{json.dumps(value)[:60]} is not an ISO 8601 timestamp"
    return field, error.message[:120]


def first_problem(
    path: Path, display: str, lines: bool, schema_name: str, extra: ExtraCheck | None = None
) -> InputError | None:
    """The first record of ``path`` that is not valid JSON or breaks the schema, or None."""
    validator = _validator(schema_name)
    try:
        for line, text in _records(path, lines):
            try:
                record = parse_json(text)
            except json.JSONDecodeError as exc:
                where = line if line is not None else exc.lineno
                return InputError(
                    display, f"invalid JSON: {exc.msg} (column {exc.colno})", line=where
                )
            except ValueError as exc:
                return InputError(display, f"invalid JSON: {exc}", line=line or 1)
            if _lone_surrogate(record):
                return InputError(
                    display,
                    "invalid JSON: a string holds a lone surrogate escape (e.g. \\udc80), "
                    "which is no character",
                    line=line or 1,
                )
            records = (
                record
                if (not lines and isinstance(record, list) and schema_name != "outputs-v1")
                else [record]
            )
            for position, item in enumerate(records):
                problem = _check(validator, item, extra)
                if problem:
                    field, message = problem
                    if len(records) > 1 or (not lines and isinstance(record, list)):
                        field = f"[{position}].{field}"
                    return InputError(display, message, line=line, field=field)
    except _NotUtf8 as exc:
        return InputError(
            display, f"not UTF-8 text (byte {exc.offset + 1} of the line)", line=exc.line
        )
    return None


def _check(
    validator: jsonschema.Draft202012Validator, item: Any, extra: ExtraCheck | None
) -> tuple[str, str] | None:
    if not isinstance(item, (dict, list)):
        return "(record)", f"expected a JSON object, got {type(item).__name__}"
    from jsonschema.exceptions import best_match

    error = best_match(validator.iter_errors(item))
    if error is not None:
        return _describe(error)
    return extra(item) if extra else None


def find_line(
    source: SourceFile,
    key: str,
    value: object,
    occurrence: int = 1,
    also: tuple[str, object] | None = None,
) -> int | None:
    """Line of the ``occurrence``-th record of a JSON Lines file whose ``key`` equals ``value``
    (and whose ``also`` key matches too); None for single-document files or when not found."""
    if not source.lines:
        return None
    seen = 0
    try:
        for line, text in _records(source.path, True):
            try:
                record = json.loads(text)
            except ValueError:
                continue
            if (
                isinstance(record, dict)
                and record.get(key) == value
                and (also is None or record.get(also[0]) == also[1])
            ):
                seen += 1
                if seen == occurrence:
                    return line
    except _NotUtf8:
        return None
    return None


def parents_precede(run: Any) -> tuple[str, str] | None:
    """Trace rule the schema cannot say: a step's parent is the index of an earlier step."""
    steps = run.get("steps") if isinstance(run, dict) else None
    for i, step in enumerate(steps if isinstance(steps, list) else []):
        parent = step.get("parent") if isinstance(step, dict) else None
        if isinstance(parent, int) and not isinstance(parent, bool) and parent >= i:
            return f"steps[{i}].parent", f"{parent} is not the index of an earlier step"
    return None
