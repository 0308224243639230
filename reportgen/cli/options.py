"""Options shared by several commands, and the gate options derived from the metric
registry (one typer option per gate, in registry order)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

if TYPE_CHECKING:  # the gate registry is imported by the commands that gate, not by all
    from reportgen.gating.metrics import Gate

F = TypeVar("F", bound=Callable[..., Any])

Db = Annotated[Path, typer.Option("--db", help="The DuckDB archive file.")]
Json = Annotated[bool, typer.Option("--json", help="Print a JSON summary for machines.")]
MaxRecordMb = Annotated[
    float, typer.Option(help="Largest record (a JSON document or JSONL line) accepted, in MB.")
]
Config = Annotated[
    Path | None,
    typer.Option("--config", help="reportgen.toml or pyproject.toml (default: the nearest one)."),
]
BaselineLabel = Annotated[
    str, typer.Option("--baseline-label", help="Label of the baseline runs in the archive.")
]
CandidateLabel = Annotated[
    str, typer.Option("--candidate-label", help="Label of the candidate runs.")
]
PairBy = Annotated[
    str | None,
    typer.Option(
        "--pair-by",
        metavar="KEYS",
        help="What pairs a baseline run with a candidate run: task plus any of suite, trial, "
        "comma-separated (e.g. task,trial). Default: two paths pair by task, by trial where "
        "both sides hold repeated trials and by suite where both hold the same suites, whatever "
        "their labels; two labels of an archive by suite,task,trial.",
        show_default=False,
    ),
]


class EngineName(StrEnum):
    """Where compare and gate pair runs and compute pair metrics."""

    duckdb = "duckdb"
    spark = "spark"


EngineOption = Annotated[
    EngineName,
    typer.Option(
        "--engine",
        help="duckdb: in this process; spark: Apache Spark over a Parquet archive (--db "
        "FOLDER; pip install 'reportgen-agents[spark]'; docs/scale.md).",
    ),
]

#: The parameter a command declares to receive its gate options, by gate name.
GATE_FLAGS = "gate_flags"


def with_gate_options(gates: Callable[[], Sequence[Gate]]) -> Callable[[F], F]:
    """Give a command one ``--max-*`` option per gate, in place of its ``gate_flags``
    parameter, which then receives ``{gate name: value or None}``. ``gates`` is called when
    the command is decorated, so a registered metric's gate appears in the app made after it."""

    def decorate(command: F) -> F:
        declared = gates()
        signature = inspect.signature(command, eval_str=True)
        params: list[inspect.Parameter] = []
        for param in signature.parameters.values():
            if param.name != GATE_FLAGS:
                params.append(param)
                continue
            params += [
                inspect.Parameter(
                    gate.dest,
                    inspect.Parameter.KEYWORD_ONLY,
                    default=None,
                    annotation=Annotated[float | None, typer.Option(gate.flag, help=gate.help)],
                )
                for gate in declared
            ]

        @functools.wraps(command)
        def wrapper(**kwargs: Any) -> Any:
            flags = {gate.name: kwargs.pop(gate.dest) for gate in declared}
            return command(**kwargs, **{GATE_FLAGS: flags})

        wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in params]
        )
        return wrapper  # type: ignore[return-value]

    return decorate


def threshold_parser(gate: Gate) -> Callable[[str], float]:
    """A typer ``parser`` for a gate's threshold: a number in the gate's range (the rule of
    :func:`reportgen.gating.check_threshold`), else a usage error (exit 2)."""
    from reportgen.errors import UsageError
    from reportgen.gating.thresholds import check_threshold

    bounded = "" if gate.high == float("inf") else f" in [{gate.low:g}, {gate.high:g}]"

    def parse(text: str) -> float:
        try:
            number = float(text)
        except ValueError:
            raise typer.BadParameter(f"{text!r} is not a number{bounded}") from None
        try:
            return check_threshold(gate, number, "command line")
        except UsageError:
            raise typer.BadParameter(f"{text!r} is not {gate.range_text}") from None

    return parse


def threshold_option(gate: Gate, help: str | None = None) -> Any:
    """The typer option of a gate's threshold: its flag and metavar, checked by
    :func:`threshold_parser`, with the gate's help unless ``help`` says otherwise."""
    return typer.Option(
        gate.flag,
        metavar=gate.metavar,
        parser=threshold_parser(gate),
        show_default=False,
        help=help or gate.help,
    )
