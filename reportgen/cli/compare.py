"""``reportgen compare`` and ``reportgen gate``: options and output modes. The comparison is
:mod:`reportgen.divergence.compare`; thresholds and verdicts are :mod:`reportgen.gating`."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from reportgen.cli.options import (
    BaselineLabel,
    CandidateLabel,
    Config,
    EngineName,
    EngineOption,
    MaxRecordMb,
    PairBy,
)
from reportgen.gating.metrics import MIN_CONVERGENCE

if TYPE_CHECKING:
    import duckdb

    from reportgen.divergence.compare import Comparison, Engine
    from reportgen.divergence.records import PairRecord
    from reportgen.divergence.why import Why
    from reportgen.evaluation import Judging
    from reportgen.gating.thresholds import Command, LabelOptions, Resolved, Threshold

GateFlags = dict[str, float | None]
Json = Annotated[bool, typer.Option("--json", help="The JSON contract on stdout.")]
Markdown = Annotated[
    bool, typer.Option("--markdown", help="Markdown for a PR comment or $GITHUB_STEP_SUMMARY.")
]
Explain = Annotated[
    bool, typer.Option("--explain", help="Each number in words, checkable by hand.")
]
SiteUrl = Annotated[
    str | None,
    typer.Option(
        "--site-url",
        help="With --markdown: the site the runs are published on (https://..., a preview "
        "path or a workflow artifact's URL), linked from the comment; each pair's row and "
        "each newly broken task link to the pair's page there.",
    ),
]
Tree = Annotated[
    bool, typer.Option("--tree", help="The aligned steps: + added, - removed, ~ modified.")
]
FailOnRegression = Annotated[
    bool,
    typer.Option(
        "--fail-on-regression",
        help="Exit 3 when a label-level verdict (summary.metrics) is 'regression': the "
        "metric's interval, at its family's Bonferroni level for --alpha, excludes 0 on the "
        "worse side ([cli] fail_on_regression = true does the same). The agent's metrics "
        "only: an error rate significantly up is flagged as broken infrastructure in the "
        "headline, and fails only with --max-error-rate.",
    ),
]
Alpha = Annotated[
    float | None,
    typer.Option(
        "--alpha",
        help="Family-wise significance level of the label-level verdicts, for the outcomes "
        "and for the other metrics each (at 0.05: 97.5 % intervals for each of two outcomes; "
        "default: [cli] alpha, else 0.05).",
        show_default=False,
    ),
]


MinEffect = Annotated[
    list[str] | None,
    typer.Option(
        "--min-effect",
        metavar="METRIC=X",
        help="The smallest change of a label-level metric worth a verdict, in its delta's unit "
        "(success_rate=0.1 is 10 points, cost_usd=0.2 is 20 %); repeatable. Default: the "
        "metric's gate threshold when set, else its registry default.",
    ),
]


def _min_effects(given: list[str] | None) -> dict[str, float]:
    """``--min-effect METRIC=X`` values by metric (a usage error unless a finite X >= 0)."""
    from reportgen.errors import UsageError

    out: dict[str, float] = {}
    for text in given or []:
        name, _, value = text.partition("=")
        try:
            number = float(value)
        except ValueError:
            number = float("nan")
        if not name or not number >= 0 or number == float("inf"):
            raise UsageError(f"--min-effect: expected METRIC=X with X a number >= 0, got {text!r}")
        out[name.strip()] = number
    from reportgen.gating.metrics import LABEL_METRICS

    known = [m.name for m in LABEL_METRICS]
    for name in out:
        if name not in known:
            raise UsageError(f"--min-effect: unknown metric {name!r} (known: {', '.join(known)})")
    return out


def _resolve(
    command: Command,
    config: Path | None,
    given: dict[str, float | bool | None],
    fail_on_regression: bool,
    alpha: float | None,
    min_effect: list[str] | None,
) -> Resolved:
    """The thresholds and label-level options in force (:func:`reportgen.gating.resolve`:
    flags over the config's [cli] section), checked before any work (a bad value is a usage
    error)."""
    from reportgen.errors import UsageError
    from reportgen.gating import find_config, resolve

    if alpha is not None and not 0 < alpha < 1:
        raise UsageError(f"--alpha must be a number in (0, 1), got {alpha!r}")
    return resolve(
        command,
        config or find_config(),
        given,
        fail_on_regression=fail_on_regression,
        alpha=alpha,
        min_effect=_min_effects(min_effect),
    )


def _judging(
    thresholds: list[Threshold], options: LabelOptions, min_convergence: Threshold | None = None
) -> Judging:
    """The thresholds and label-level options resolved for this command, as one Judging."""
    from reportgen.evaluation import Judging

    return Judging(
        tuple(thresholds),
        options.fail_on_regression,
        options.alpha,
        dict(options.min_effect),
        min_convergence,
    )


def _published(site_url: str, night: str) -> None:
    """The comment's first lines: the marker a workflow finds it by, and the site's link."""
    from reportgen.cli.output import out

    out().print(
        f"<!-- reportgen -->\nThe published report{night}: {site_url}\n",
        markup=False,
        highlight=False,
    )


# A GitHub Actions artifact's page (a zip to download): it has no pages inside to link to.
_ARTIFACT = re.compile(r"/actions/runs/\d+/artifacts/\d+/?$")


def page_url(site: str, path: str) -> str:
    """The URL of the site page at ``path`` under ``site``: ``site/path`` on a served site (a
    Pages address or a preview path); on a workflow artifact's URL, which serves the site as
    one zip, ``site#path``: the link opens the artifact and names the page to open in it."""
    if _ARTIFACT.search(site):
        return f"{site.rstrip('/')}#{path}"
    return f"{site.rstrip('/')}/{path}"


def _places(
    con: duckdb.DuckDBPyConnection, pairs: list[PairRecord]
) -> dict[str, tuple[str, str, int]]:
    """Each pair's baseline run -> (suite, batch, trial): where its pair page is."""
    ids = [p["baseline_run_id"] for p in pairs]
    rows = con.execute(
        "SELECT run_id, suite, batch, trial FROM runs WHERE run_id IN (SELECT unnest($ids))",
        {"ids": ids},
    ).fetchall()
    return {run_id: (suite, batch, trial) for run_id, suite, batch, trial in rows}


def _pair_links(
    con: duckdb.DuckDBPyConnection, comparison: Comparison, labels: tuple[str, str], site: str
) -> dict[str, str]:
    """Each pair (by pair id) and the URL of its pair page on the site published at ``site``
    (the first pair of its run keys: ``-dup<n>`` pages are not guessed)."""
    from reportgen.site.paths import pair_path

    place = _places(con, comparison.pairs)
    links: dict[str, str] = {}
    for pair in comparison.pairs:
        if pair["baseline_run_id"] in place:
            suite, batch, trial = place[pair["baseline_run_id"]]
            path = pair_path(*labels, suite, pair["task_id"], batch, trial)
            links[pair["pair_id"]] = page_url(site, path)
    return links


def _diff_links(
    con: duckdb.DuckDBPyConnection, comparison: Comparison, labels: tuple[str, str], site: str
) -> dict[str, str]:
    """Each newly broken task (``suite/task``) and the URL of its diff on the site published
    at ``site``: the page of its first pair (by night and trial) whose candidate failed where
    the baseline passed."""
    from reportgen.site.paths import pair_path

    stats = comparison.statistics
    broken = set(stats["tasks"]["newly_broken_tasks"]) if stats else set()
    lost = [
        p for p in comparison.pairs if p["baseline_success"] and p["candidate_success"] is False
    ]
    place = _places(con, lost)
    links: dict[str, str] = {}
    for pair in sorted(lost, key=lambda p: place.get(p["baseline_run_id"], ("", "", 0))[1:]):
        suite, batch, trial = place.get(pair["baseline_run_id"], ("", "", 0))
        key = f"{suite}/{pair['task_id']}"
        if key in broken and key not in links:
            path = pair_path(*labels, suite, pair["task_id"], batch, trial)
            links[key] = page_url(site, path)
    return links


def _whys(con: duckdb.DuckDBPyConnection, comparison: Comparison) -> list[Why]:
    """Each pair's why for --explain, its runs' words read in one query."""
    from reportgen.divergence.why import pair_whys

    return pair_whys(con, comparison.pairs)


def _emit(
    comparison: Comparison,
    as_json: bool,
    markdown: bool,
    explain: bool,
    tree: bool,
    links: dict[str, str] | None = None,
    pages: dict[str, str] | None = None,
    whys: list[Why] | None = None,
) -> None:
    """Print the comparison in the chosen mode; GateFailed (exit 3) once it is out. ``links``:
    the newly broken tasks' diffs on the published site, ``pages``: each pair's page there
    (by pair id), for the Markdown; ``whys``: each pair's why, which --explain prints first.
    --json imports no console, table or explanation module (rich costs a process 0.1 s)."""
    from reportgen.errors import GateFailed

    if as_json:
        from reportgen.cli.output import print_json

        print_json(comparison.to_json())
        if not comparison.passed:
            raise GateFailed(comparison.failure_line())
        return
    from reportgen.cli.output import out
    from reportgen.divergence.explain import explain as explain_pair
    from reportgen.divergence.explain import tree as tree_pair
    from reportgen.divergence.tables import markdown as to_markdown
    from reportgen.divergence.tables import print_terminal
    from reportgen.escape import term_text
    from reportgen.statistics.report import lead_lines

    console = out()
    if markdown:
        lead = lead_lines(comparison.statistics, markdown=True, links=links)
        console.print(to_markdown(comparison, lead, pages), markup=False, highlight=False)
    else:
        lead = [term_text(comparison.headline), ""] if comparison.headline else []
        lead += lead_lines(comparison.statistics, markdown=False)
        print_terminal(console, comparison, lead)
    for n, pair in enumerate(comparison.pairs if (explain or tree) else []):
        if explain:
            why = whys[n] if whys is not None else None
            console.print("\n" + explain_pair(pair, why), markup=False)
        if tree:
            console.print("\n" + tree_pair(pair), markup=False)
    if not comparison.passed:
        raise GateFailed(comparison.failure_line())


def compare(
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
    baseline_batch: Annotated[
        str | None,
        typer.Option(
            "--baseline-batch",
            help="With --db: the baseline's runs from this batch only ('latest': the baseline "
            "label's newest), paired by task and trial with candidate runs of any batch (or "
            "--batch): e.g. a pull request's runs against main's latest night.",
        ),
    ] = None,
    site_url: SiteUrl = None,
    max_record_mb: MaxRecordMb = 16,
    pair_by: PairBy = None,
    gate_flags: GateFlags | None = None,
    config: Config = None,
    as_json: Json = False,
    markdown: Markdown = False,
    explain: Explain = False,
    tree: Tree = False,
    fail_on_regression: FailOnRegression = False,
    alpha: Alpha = None,
    min_effect: MinEffect = None,
    engine: EngineOption = EngineName.duckdb,
) -> None:
    """Compare a baseline with a candidate: two trace files or folders (BASELINE CANDIDATE), or
    two labels of an archive (--db). Exit 3 when a gate fails."""
    from reportgen.archive import connect
    from reportgen.cli.allocator import keep_freed_memory
    from reportgen.cli.collector import fewer_collections
    from reportgen.cli.output import err
    from reportgen.divergence.compare import latest_batch
    from reportgen.divergence.pairing import LABEL_KEYS, parse_pair_by
    from reportgen.errors import UsageError
    from reportgen.evaluation import evaluate_labels, evaluate_paths
    from reportgen.reports.progress import DelayedProgress

    keys = parse_pair_by(pair_by)
    resolved = _resolve(
        "compare", config, dict(gate_flags or {}), fail_on_regression, alpha, min_effect
    )
    judging = _judging(list(resolved.thresholds), resolved.label)
    paths = [p for p in (baseline, candidate) if p is not None]
    if db is not None and paths:
        raise UsageError("give either BASELINE CANDIDATE paths or --db, not both")
    if db is None and len(paths) != 2:
        raise UsageError("give two paths, BASELINE CANDIDATE (files or folders), or --db FILE")
    if db is None and baseline_batch is not None:
        raise UsageError("--baseline-batch picks runs of an archive: give --db FILE")
    if engine is EngineName.spark and db is None:
        raise UsageError("--engine spark compares two labels of a Parquet archive: give --db")
    # large buffers made and freed batch after batch; many records, few cycles
    with keep_freed_memory(), fewer_collections():
        with_steps = as_json or explain or tree  # only these outputs show the steps
        # A progress bar on stderr for comparisons that take more than a second (none with
        # --json, so that stdout and stderr stay machine-readable).
        # With --json the steps are read batch by batch while the JSON is written (memory holds
        # one batch of them): the connection stays open until then.
        con = connect(db, read_only=True) if db is not None else connect(None)
        try:
            with DelayedProgress(None if as_json else err()) as progress:
                if db is not None:
                    if baseline_batch == "latest":
                        baseline_batch = latest_batch(con, baseline_label)
                    comparison = evaluate_labels(
                        con,
                        baseline_label,
                        candidate_label,
                        judging,
                        task=task,
                        baseline_batch=baseline_batch or batch,
                        candidate_batch=batch,
                        with_steps=with_steps,
                        steps_later=as_json,
                        progress=progress.hook,
                        engine=_engine(engine, db),
                        pair_by=keys or LABEL_KEYS,
                    )
                else:
                    comparison = evaluate_paths(
                        [paths[0]],
                        [paths[1]],
                        judging,
                        with_steps=with_steps,
                        steps_later=as_json,
                        progress=progress.hook,
                        con=con,
                        max_record_mb=max_record_mb,
                        pair_by=keys,
                    )
            links = pages = None
            if markdown and site_url:
                night = f" (baseline night {baseline_batch})" if baseline_batch else ""
                _published(site_url, night)
                if db is not None:
                    labels = (baseline_label, candidate_label)
                    links = _diff_links(con, comparison, labels, site_url)
                    pages = _pair_links(con, comparison, labels, site_url)
            whys = _whys(con, comparison) if explain and not as_json else None
            _emit(comparison, as_json, markdown, explain, tree, links, pages, whys)
        finally:
            con.close()


def gate(
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
    gate_flags: GateFlags | None = None,
    min_convergence: Annotated[
        float | None, typer.Option(MIN_CONVERGENCE.flag, help=MIN_CONVERGENCE.help)
    ] = None,
    pair_by: PairBy = None,
    site_url: SiteUrl = None,
    config: Config = None,
    as_json: Json = False,
    markdown: Markdown = False,
    explain: Explain = False,
    fail_on_regression: FailOnRegression = False,
    alpha: Alpha = None,
    min_effect: MinEffect = None,
    engine: EngineOption = EngineName.duckdb,
) -> None:
    """Gate CI on the archive: compare the candidate label with the baseline label night by
    night (the latest night by default). Exit 3 when a gate fails."""
    from reportgen.archive import connect
    from reportgen.cli.output import err
    from reportgen.divergence.compare import latest_shared_batch
    from reportgen.divergence.pairing import LABEL_KEYS, parse_pair_by
    from reportgen.evaluation import evaluate_labels
    from reportgen.reports.progress import DelayedProgress

    keys = parse_pair_by(pair_by) or LABEL_KEYS
    given: dict[str, float | bool | None] = {**(gate_flags or {}), "convergence": min_convergence}
    resolved = _resolve("gate", config, given, fail_on_regression, alpha, min_effect)
    convergence = resolved.get(MIN_CONVERGENCE)
    thresholds = [t for t in resolved.thresholds if t is not convergence]
    judging = _judging(thresholds, resolved.label, convergence)
    con = connect(db, read_only=True)
    try:
        with DelayedProgress(None if as_json else err()) as progress:
            chosen = (
                None
                if batch == "all"
                else batch or latest_shared_batch(con, baseline_label, candidate_label)
            )
            comparison = evaluate_labels(
                con,
                baseline_label,
                candidate_label,
                judging,
                baseline_batch=chosen,
                candidate_batch=chosen,
                with_steps=as_json or explain,
                steps_later=as_json,
                progress=progress.hook,
                engine=_engine(engine, db),
                pair_by=keys,
                details=as_json or explain,  # the table and Markdown show no step nor loop
            )
        links = pages = None
        if markdown and site_url:
            _published(site_url, f" (night {chosen})" if chosen else "")
            labels = (baseline_label, candidate_label)
            links = _diff_links(con, comparison, labels, site_url)
            pages = _pair_links(con, comparison, labels, site_url)
        whys = _whys(con, comparison) if explain and not as_json else None
        _emit(comparison, as_json, markdown, explain, False, links, pages, whys)  # --json reads con
    finally:
        con.close()


def _engine(name: EngineName, db: Path) -> Engine | None:
    """The pairing and metrics engine ``--engine`` names (None: DuckDB, the default)."""
    if name is EngineName.duckdb:
        return None
    from reportgen.spark import SparkEngine

    engine: Engine = SparkEngine(db)
    return engine
