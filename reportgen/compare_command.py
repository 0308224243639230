"""The ``compare`` and ``gate`` commands: options, output modes, exit codes. Logic lives in
``reportgen.compare`` and ``reportgen.gates``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from reportgen.archive import connect
from reportgen.compare import Comparison, compare_labels, compare_paths
from reportgen.errors import GateFailed, UsageError
from reportgen.gates import GATES, find_config, resolve_thresholds
from reportgen.reports.progress import DelayedProgress

MaxDivergence = Annotated[
    float | None, typer.Option("--max-divergence", help="Fail when TDI > this.")
]
MaxWasted = Annotated[
    float | None, typer.Option("--max-wasted-effort", help="Fail when candidate WEI > this.")
]
MaxLoops = Annotated[
    float | None, typer.Option("--max-loops", help="Fail when stagnant candidate loops > this.")
]
MaxRecovery = Annotated[
    float | None, typer.Option("--max-recovery-ratio", help="Fail when RSR > this.")
]
MaxCost = Annotated[
    float | None, typer.Option("--max-cost-delta", help="Fail when cost grows by > this %.")
]
MaxTokens = Annotated[
    float | None, typer.Option("--max-token-delta", help="Fail when tokens grow by > this %.")
]
MaxLatency = Annotated[
    float | None, typer.Option("--max-latency-delta", help="Fail when latency grows by > this %.")
]
ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", help="reportgen.toml or pyproject.toml (default: the nearest one)."),
]
Json = Annotated[bool, typer.Option("--json", help="The JSON contract on stdout.")]
Markdown = Annotated[
    bool, typer.Option("--markdown", help="Markdown for a PR comment or $GITHUB_STEP_SUMMARY.")
]
Explain = Annotated[
    bool, typer.Option("--explain", help="Each number in words, checkable by hand.")
]
Tree = Annotated[
    bool, typer.Option("--tree", help="The aligned steps: + added, - removed, ~ modified.")
]
BaselineLabel = Annotated[
    str, typer.Option("--baseline-label", help="Label of the baseline runs in the archive.")
]
CandidateLabel = Annotated[
    str, typer.Option("--candidate-label", help="Label of the candidate runs.")
]


def gate_flags(options: dict[str, Any]) -> dict[str, float | None]:
    """The gate thresholds among a command's options (``max_divergence`` -> ``divergence``),
    so ``compare`` and ``gate`` read their shared flags in one place."""
    return {
        gate.name: options.get(gate.flag.removeprefix("--").replace("-", "_")) for gate in GATES
    }


def _progress(as_json: bool) -> DelayedProgress:
    """A progress bar on stderr for comparisons that take more than a second (none with
    --json, so that stdout and stderr stay machine-readable)."""
    from reportgen.cli import err

    return DelayedProgress(err, enabled=not as_json)


def _emit(comparison: Comparison, as_json: bool, markdown: bool, explain: bool, tree: bool) -> None:
    from reportgen.cli import out, print_json
    from reportgen.reports.compare_tables import markdown as to_markdown
    from reportgen.reports.compare_tables import print_terminal
    from reportgen.reports.compare_text import explain as explain_pair
    from reportgen.reports.compare_text import tree as tree_pair

    if as_json:
        print_json(comparison.to_json())
    elif markdown:
        out.print(to_markdown(comparison), markup=False, highlight=False)
    else:
        print_terminal(out, comparison)
    if not as_json:
        for pair in comparison.pairs if (explain or tree) else []:
            if explain:
                out.print("\n" + explain_pair(pair), markup=False)
            if tree:
                out.print("\n" + tree_pair(pair), markup=False)
    if not comparison.passed:
        failed = comparison.summary()["failed_pairs"]
        groups = len(comparison.convergence["violations"]) if comparison.convergence else 0
        what = [f"{len(failed)} pair(s) failed a gate"] if failed else []
        what += [f"{groups} group(s) did not converge"] if groups else []
        shown = ", ".join(failed[:5]) + (" ..." if len(failed) > 5 else "")
        raise GateFailed("; ".join(what) + (f": {shown}" if failed else ""))


def compare_command(
    baseline: Annotated[
        Path | None, typer.Argument(help="Baseline trace file or folder.", show_default=False)
    ] = None,
    candidate: Annotated[
        Path | None, typer.Argument(help="Candidate trace file or folder.", show_default=False)
    ] = None,
    db: Annotated[
        Path | None,
        typer.Option("--db", help="Compare two labels of this archive instead of files."),
    ] = None,
    baseline_label: BaselineLabel = "baseline",
    candidate_label: CandidateLabel = "candidate",
    batch: Annotated[
        str | None, typer.Option("--batch", help="Only this batch (night) of the archive.")
    ] = None,
    task: Annotated[
        str | None, typer.Option("--task", help="Only this task of the archive.")
    ] = None,
    max_divergence: MaxDivergence = None,
    max_wasted_effort: MaxWasted = None,
    max_loops: MaxLoops = None,
    max_recovery_ratio: MaxRecovery = None,
    max_cost_delta: MaxCost = None,
    max_token_delta: MaxTokens = None,
    max_latency_delta: MaxLatency = None,
    config: ConfigOption = None,
    as_json: Json = False,
    markdown: Markdown = False,
    explain: Explain = False,
    tree: Tree = False,
) -> None:
    """Compare a baseline with a candidate: two trace files or folders (BASELINE CANDIDATE), or
    two labels of an archive (--db). Exit 3 when a gate fails."""
    thresholds = resolve_thresholds(
        gate_flags(locals()),
        config or find_config(),
    )
    paths = [p for p in (baseline, candidate) if p is not None]
    if db is not None and paths:
        raise UsageError("give either BASELINE CANDIDATE paths or --db, not both")
    if db is None and len(paths) != 2:
        raise UsageError("give two paths, BASELINE CANDIDATE (files or folders), or --db FILE")
    with_steps = as_json or explain or tree  # only these outputs show the steps
    with _progress(as_json) as progress:
        if db is not None:
            con = connect(db, read_only=True)
            try:
                comparison = compare_labels(
                    con,
                    baseline_label,
                    candidate_label,
                    thresholds,
                    task=task,
                    baseline_batch=batch,
                    candidate_batch=batch,
                    with_steps=with_steps,
                    progress=progress.hook,
                )
            finally:
                con.close()
        else:
            comparison = compare_paths(
                [paths[0]], [paths[1]], thresholds, with_steps=with_steps, progress=progress.hook
            )
    _emit(comparison, as_json, markdown, explain, tree)


def gate_command(
    db: Annotated[Path, typer.Option("--db", help="The DuckDB archive file.")] = Path(
        "reportgen.duckdb"
    ),
    baseline_label: BaselineLabel = "baseline",
    candidate_label: CandidateLabel = "candidate",
    batch: Annotated[
        str | None,
        typer.Option(
            "--batch",
            help="Batch (night) to gate; default: the latest with both labels; 'all' for every batch.",
        ),
    ] = None,
    max_divergence: MaxDivergence = None,
    max_wasted_effort: MaxWasted = None,
    max_loops: MaxLoops = None,
    max_recovery_ratio: MaxRecovery = None,
    max_cost_delta: MaxCost = None,
    max_token_delta: MaxTokens = None,
    max_latency_delta: MaxLatency = None,
    min_convergence: Annotated[
        float | None,
        typer.Option(
            "--min-convergence",
            help="Fail when a group of repeated runs of the candidate scores below this (0..1; equal passes).",
        ),
    ] = None,
    config: ConfigOption = None,
    as_json: Json = False,
    markdown: Markdown = False,
    explain: Explain = False,
) -> None:
    """Gate CI on the archive: compare the candidate label with the baseline label night by
    night (the latest night by default). Exit 3 when a gate fails."""
    from reportgen.compare import gate_convergence, latest_shared_batch

    config_path = config or find_config()
    convergence_min, convergence_source = _min_convergence(min_convergence, config_path)
    thresholds = resolve_thresholds(
        gate_flags(locals()),
        config_path,
    )
    con = connect(db, read_only=True)
    try:
        with _progress(as_json) as progress:
            chosen = (
                None
                if batch == "all"
                else batch or latest_shared_batch(con, baseline_label, candidate_label)
            )
            comparison = compare_labels(
                con,
                baseline_label,
                candidate_label,
                thresholds,
                baseline_batch=chosen,
                candidate_batch=chosen,
                with_steps=as_json or explain,
                progress=progress.hook,
            )
        if convergence_min is not None:
            gate_convergence(
                con,
                comparison,
                convergence_min,
                convergence_source,
                label=candidate_label,
                batch=chosen,
            )
    finally:
        con.close()
    _emit(comparison, as_json, markdown, explain, False)


def _min_convergence(flag: float | None, config_path: Path | None) -> tuple[float | None, str]:
    """The --min-convergence threshold (flag over config [cli] min_convergence), checked."""
    from reportgen.gates import load_config

    if flag is not None:
        value, source = flag, "--min-convergence"
    else:
        configured = load_config(config_path).get("cli", {}).get("min_convergence")
        if configured is None:
            return None, ""
        value, source = configured, f"{config_path} [cli] min_convergence"
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise UsageError(f"{source}: min_convergence must be a number in [0, 1], got {value!r}")
    return float(value), source
