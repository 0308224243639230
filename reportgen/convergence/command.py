"""``reportgen converge``: a drop-in for the ``agent-convergence-scorer`` command.

A CI job can swap that command's name for ``reportgen converge`` and keep its arguments,
its JSON parsing and its exit-code checks: same input shapes, same JSON bytes on stdout,
same codes (0 ok, 1 bad input, 2 usage error, 3 below ``--min-convergence``).
"""

from __future__ import annotations

import json
import math
import sys
from typing import Annotated, Any

import typer

from reportgen.convergence.scorer import score_runs

__all__ = ["BELOW_MINIMUM_EXIT", "BadInput", "converge_command", "read_runs"]

BELOW_MINIMUM_EXIT = 3


class BadInput(Exception):
    """The input could not be read or is not a non-empty list of strings (exit 1)."""


def _threshold(value: str) -> float:
    """Parse ``--min-convergence``: a finite float in [0, 1], else a usage error (exit 2)."""
    try:
        number = float(value)
    except ValueError:
        raise typer.BadParameter(f"{value!r} is not a number in [0, 1]") from None
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        raise typer.BadParameter(f"{value!r} is not a finite number in [0, 1]")
    return number


def _load_json(source: str) -> Any:
    """Parse JSON from a file path, or from standard input when ``source`` is ``-``."""
    try:
        if source == "-":
            return json.load(sys.stdin)
        with open(source) as handle:
            return json.load(handle)
    except FileNotFoundError:
        raise BadInput(f"no such file: {source}") from None
    except json.JSONDecodeError as exc:
        raise BadInput(f"{source} is not valid JSON: {exc}") from None
    except UnicodeDecodeError as exc:
        raise BadInput(f"{source} is not readable text: {exc}") from None
    except OSError as exc:
        raise BadInput(f"cannot read {source}: {exc}") from None


def read_runs(source: str) -> list[str]:
    """Load the runs from ``["...", ...]`` or ``{"runs": [...]}``; raise ``BadInput`` if not."""
    data = _load_json(source)
    runs = data.get("runs", data) if isinstance(data, dict) else data
    if not isinstance(runs, list) or not runs:
        raise BadInput('expected a non-empty JSON list of strings, or {"runs": [...]}')
    if any(not isinstance(run, str) for run in runs):
        raise BadInput("every run must be a JSON string")
    return runs


def converge_command(
    source: Annotated[
        str,
        typer.Argument(
            metavar="INPUT",
            show_default=False,
            help='JSON file, or "-" for stdin: ["run 1", "run 2", ...] or {"runs": [...]}.',
        ),
    ],
    min_convergence: Annotated[
        float | None,
        typer.Option(
            "--min-convergence",
            metavar="FLOAT",
            parser=_threshold,
            show_default=False,
            help="Fail (exit 3) when convergence_score is below FLOAT, a finite number in "
            "[0, 1]; equal passes. The JSON still goes to stdout, with minimum_convergence.",
        ),
    ] = None,
    indent: Annotated[
        int, typer.Option("--indent", help="JSON indent; 0 or less prints one line.")
    ] = 2,
) -> None:
    """Score how alike N outputs of one task are: exact match, token overlap, divergence."""
    try:
        runs = read_runs(source)
    except BadInput as exc:
        sys.stderr.write(f"error: {exc}\n")
        raise typer.Exit(code=1) from None
    result = score_runs(runs)
    passed = True
    if min_convergence is not None:
        passed = result["convergence_score"] >= min_convergence
        result["minimum_convergence"] = {"threshold": min_convergence, "passed": passed}
    sys.stdout.write(json.dumps(result, indent=indent if indent > 0 else None) + "\n")
    if not passed:
        sys.stderr.write(
            f"error: convergence_score {result['convergence_score']} is under the required "
            f"minimum {min_convergence}\n"
        )
        raise typer.Exit(code=BELOW_MINIMUM_EXIT)
