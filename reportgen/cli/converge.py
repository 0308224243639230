"""``reportgen converge``: a drop-in for the ``agent-convergence-scorer`` command.

A CI job can swap that command's name for ``reportgen converge`` and keep its arguments,
its JSON parsing and its exit-code checks: same input shapes, same JSON bytes on stdout,
same codes (0 ok, 1 bad input, 2 usage error, 3 below ``--min-convergence``)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from reportgen.cli.options import Config, threshold_option
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
            "[0, 1]; equal passes. The JSON still goes to stdout, with minimum_convergence. "
            "Default: [cli] min_convergence of the config, else none.",
        ),
    ] = None,
    indent: Annotated[
        int, typer.Option("--indent", help="JSON indent; 0 or less prints one line.")
    ] = 2,
    config: Config = None,
) -> None:
    """Score how alike N outputs of one task are: exact match, token overlap, divergence."""
    from reportgen.convergence.reading import read_runs
    from reportgen.convergence.scorer import score_runs
    from reportgen.gating import find_config, resolve
    from reportgen.gating.verdict import breaks

    given: dict[str, float | bool | None] = {MIN_CONVERGENCE.name: min_convergence}
    threshold = resolve("converge", config or find_config(), given).get(MIN_CONVERGENCE)
    result = score_runs(read_runs(source))
    passed = True
    if threshold is not None:
        passed = not breaks(MIN_CONVERGENCE, result["convergence_score"], threshold.value)
        result["minimum_convergence"] = {"threshold": threshold.value, "passed": passed}
    sys.stdout.write(strict_dumps(result, indent=indent if indent > 0 else None) + "\n")
    if threshold is not None and not passed:
        # the scorer's line; a threshold from the config file says so
        where = "" if threshold.source == MIN_CONVERGENCE.flag else f" (from {threshold.source})"
        sys.stderr.write(
            f"error: convergence_score {result['convergence_score']} is under the required "
            f"minimum {threshold.value}{where}\n"
        )
        raise typer.Exit(code=BELOW_MINIMUM_EXIT)
