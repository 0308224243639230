"""``reportgen converge``: a drop-in for the ``agent-convergence-scorer`` command.

A CI job can swap that command's name for ``reportgen converge`` and keep its arguments,
its JSON parsing and its exit-code checks: same input shapes, same JSON bytes on stdout,
same codes (0 ok, 1 bad input, 2 usage error, 3 below ``--min-convergence``)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from reportgen.cli.options import threshold_option
from reportgen.gating.metrics import MIN_CONVERGENCE
from reportgen.strict_json import strict_dumps

BELOW_MINIMUM_EXIT = 3


def converge(
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
        threshold_option(
            MIN_CONVERGENCE,
            help="Fail (exit 3) when convergence_score is below FLOAT, a finite number in "
            "[0, 1]; equal passes. The JSON still goes to stdout, with minimum_convergence.",
        ),
    ] = None,
    indent: Annotated[
        int, typer.Option("--indent", help="JSON indent; 0 or less prints one line.")
    ] = 2,
) -> None:
    """Score how alike N outputs of one task are: exact match, token overlap, divergence."""
    from reportgen.convergence.reading import read_runs
    from reportgen.convergence.scorer import score_runs
    from reportgen.gating.verdict import breaks

    result = score_runs(read_runs(source))
    passed = True
    if min_convergence is not None:
        passed = not breaks(MIN_CONVERGENCE, result["convergence_score"], min_convergence)
        result["minimum_convergence"] = {"threshold": min_convergence, "passed": passed}
    sys.stdout.write(strict_dumps(result, indent=indent if indent > 0 else None) + "\n")
    if not passed:
        sys.stderr.write(
            f"error: convergence_score {result['convergence_score']} is under the required "
            f"minimum {min_convergence}\n"
        )
        raise typer.Exit(code=BELOW_MINIMUM_EXIT)
