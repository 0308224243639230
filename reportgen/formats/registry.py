"""The one place formats are registered; third-party adapters join through the
``reportgen.formats`` entry-point group."""

from __future__ import annotations

from functools import cache
from importlib.metadata import entry_points

from reportgen.errors import InputError, UsageError
from reportgen.formats.base import Format
from reportgen.formats.native_iterations import NativeIterations
from reportgen.formats.native_outputs import NativeOutputs
from reportgen.formats.native_trace import NativeTrace
from reportgen.formats.source import SourceFile


@cache
def all_formats() -> tuple[Format, ...]:
    """Every known format, in detection order: native ones first, then plug-ins."""
    found: list[Format] = [NativeTrace(), NativeIterations(), NativeOutputs()]
    for entry in entry_points(group="reportgen.formats"):
        found.append(entry.load()())
    return tuple(found)


def get_format(name: str) -> Format:
    """The format called ``name`` (for ``--format``)."""
    for fmt in all_formats():
        if fmt.name == name:
            return fmt
    known = ", ".join(f.name for f in all_formats())
    raise UsageError(f"unknown format {name!r} (known: {known})")


def detect_format(source: SourceFile) -> Format:
    """The first format that recognises ``source``, or an InputError naming those tried."""
    for fmt in all_formats():
        if fmt.detect(source):
            return fmt
    tried = ", ".join(f.name for f in all_formats())
    raise InputError(
        source.display, f"not a recognised format (tried {tried}); use --format to force one"
    )
