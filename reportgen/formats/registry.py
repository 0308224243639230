"""The one place formats are registered; third-party adapters join through the
``reportgen.formats`` entry-point group.

Detection asks the native formats first, then the built-in adapters, then plug-ins. The native
detectors are broad (any object with ``steps``, any object with ``output``), so a native match
stands unless a built-in adapter recognises the file by its own signature (keys the native
formats do not define, such as ``trace_id`` + ``agent_name``, ``eval`` + ``version``, or an
ATIF ``schema_version``): a native file never carries those, so it is still always read as
native."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from reportgen.errors import InputError, UsageError
from reportgen.formats.base import Format
from reportgen.formats.native.iterations import NativeIterations
from reportgen.formats.native.outputs import NativeOutputs
from reportgen.formats.native.trace import NativeTrace
from reportgen.formats.source import SourceFile


@cache
def native_formats() -> tuple[Format, ...]:
    """reportgen's own formats, asked first."""
    return (NativeTrace(), NativeIterations(), NativeOutputs())


@cache
def adapters() -> tuple[Format, ...]:
    """The built-in adapters for other tools' formats, in detection order (Langfuse before
    OpenTelemetry: its observations embed GenAI attributes). Imported here, when first asked
    for: a load of native files never needs them (native detection is certain first)."""
    from reportgen.formats.adapters.agentdiff import AgentDiffTrace
    from reportgen.formats.adapters.atif import AtifTrajectory
    from reportgen.formats.adapters.claude_code import ClaudeCode
    from reportgen.formats.adapters.codex_cli import CodexCli
    from reportgen.formats.adapters.copilot_cli import CopilotCli
    from reportgen.formats.adapters.gemini_cli import GeminiCli
    from reportgen.formats.adapters.harbor import HarborJob
    from reportgen.formats.adapters.inspect_log import InspectLog
    from reportgen.formats.adapters.inspect_scout import InspectScout
    from reportgen.formats.adapters.langfuse import LangfuseExport
    from reportgen.formats.adapters.langsmith import LangSmithRuns
    from reportgen.formats.adapters.mini_swe_agent import MiniSweAgent
    from reportgen.formats.adapters.openai_agents import OpenAIAgents
    from reportgen.formats.adapters.openhands import OpenHands
    from reportgen.formats.adapters.otel import OtelSpans
    from reportgen.formats.adapters.swe_agent import SweAgent
    from reportgen.formats.adapters.swe_bench import SweBenchSubmission
    from reportgen.formats.adapters.swe_bench_harness import SweBenchHarness
    from reportgen.formats.adapters.tau2_bench import Tau2Bench
    from reportgen.formats.adapters.tau_bench import TauBench

    return (
        AgentDiffTrace(),
        HarborJob(),
        AtifTrajectory(),
        InspectLog(),
        InspectScout(),
        SweAgent(),
        SweBenchHarness(),
        MiniSweAgent(),
        Tau2Bench(),
        TauBench(),
        ClaudeCode(),
        CodexCli(),
        GeminiCli(),
        CopilotCli(),
        OpenHands(),
        OpenAIAgents(),
        SweBenchSubmission(),
        LangfuseExport(),
        LangSmithRuns(),
        OtelSpans(),
    )


@cache
def all_formats() -> tuple[Format, ...]:
    """Every known format, in detection order: native ones first, then plug-ins."""
    from importlib.metadata import entry_points

    found: list[Format] = [*native_formats(), *adapters()]
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


def _detection_order() -> Iterator[Format]:
    """``all_formats()``, built only once a native format has not settled the file."""
    yield from native_formats()
    yield from all_formats()[len(native_formats()) :]


def detect_format(source: SourceFile) -> Format:
    """The first format that recognises ``source``, or an InputError naming those tried. A
    native match gives way to a built-in adapter that recognises the file by its signature."""
    for fmt in _detection_order():
        certain = getattr(fmt, "certain", None)
        if certain is not None and certain(source):
            return fmt  # only native fields: no adapter's signature can be there
        if fmt.detect(source):
            if fmt in native_formats():
                return next((a for a in adapters() if a.detect(source)), fmt)
            return fmt
    tried = ", ".join(f.name for f in all_formats())
    raise InputError(
        source.display, f"not a recognised format (tried {tried}); use --format to force one"
    )
