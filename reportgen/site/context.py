"""One context object per page: plain data the templates render, and nothing else.

Every page is a dataclass with its site-relative ``path`` and its ``template``. The build hashes
a page's fields (plus the templates) to decide whether the page must be rendered again, so a
context holds everything its page shows and never anything that changes from build to build
(only the index carries the build time)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from markupsafe import Markup

from reportgen.divergence.findings import FindingsSummary
from reportgen.divergence.textdiff import WordDiff
from reportgen.divergence.why import Why
from reportgen.site import fmt
from reportgen.site.pages_reliability import ReliabilityChange


@dataclass(frozen=True, slots=True)
class Link:
    """A link to another page of the site (``href`` is site-relative; templates make it relative)."""

    text: str
    href: str


@dataclass(frozen=True, slots=True)
class Chart:
    """A Plotly figure (plain data/layout dicts) shown in a ``div`` with this ``id``."""

    id: str
    title: str
    figure: dict[str, Any]
    points: int


_STATUSES = frozenset(("ok", "error", "retry", "abandoned"))
#: Longest input or output of a step the pair page shows open (longer ones are folded).
OPEN_CHARS = 200


@dataclass(frozen=True, slots=True)
class StepView:
    """One step as the run and comparison pages show it (numbers: None = not given)."""

    idx: int
    type: str
    action: str
    status: str
    tokens_in: int | None
    tokens_out: int | None
    cost_usd: float | None
    latency_ms: float | None
    input_text: str
    output_text: str
    wasted: bool = False
    recovery: str | None = None  # "opens" (a wasted step opening a window) or "counted"
    loop: str | None = None  # "L1 start", "L1" ... for steps inside a loop
    stagnant: bool = False
    depth: int = 0  # nesting in the trace tree (run pages)
    kids: int = 0  # direct children in the trace tree
    parent: int | None = None  # the enclosing step's idx, when the tree is drawn
    bar: tuple[float, float] | None = None  # waterfall bar: start and width, % of the run's span
    offset_ms: float | None = None  # start, ms after the run's first step started
    failed: bool = False  # status error or an error message given (divergence.why.failed)

    @property
    def opened(self) -> bool:
        """Whether the pair page shows the step's input and output open: a failed step, or one
        whose input and output are each short enough to read at a glance."""
        return self.failed or (
            len(self.input_text) <= OPEN_CHARS and len(self.output_text) <= OPEN_CHARS
        )

    @property
    def bar_cell(self) -> Markup:
        """The run page's waterfall cell: a bar at the step's stored start, as wide as it lasted
        (numbers only in it, nothing to escape)."""
        if self.bar is None:
            return Markup(f'<td class="wf"><span class="muted">{fmt.UNKNOWN}</span></td>')
        left, width = self.bar
        kind = self.status if self.status in _STATUSES else "other"
        return Markup(
            f'<td class="wf"><div class="wt"><i class="wb wb-{kind}" style="left:{left:.2f}%;'
            f'width:{width:.2f}%" title="+{fmt.ms(self.offset_ms)}, {fmt.ms(self.latency_ms)}">'
            "</i></div></td>"
        )

    @property
    def tokens(self) -> int | None:
        """Tokens in plus out; None when the step gives neither."""
        if self.tokens_in is None and self.tokens_out is None:
            return None
        return (self.tokens_in or 0) + (self.tokens_out or 0)

    # The two properties below pre-format a step's numbers for the long step tables (a Jinja
    # expression per number dominated the build). fmt's output is digits, signs, separators,
    # "$", "ms"/"s" and an en dash: nothing that needs escaping.
    @property
    def number_cells(self) -> Markup:
        """The run page's tokens in, tokens out, cost and latency cells."""
        cells = (
            (self.tokens_in, fmt.num),
            (self.tokens_out, fmt.num),
            (self.cost_usd, fmt.usd),
            (self.latency_ms, fmt.ms),
        )
        return Markup("".join(fmt.number_cell(v, show) for v, show in cells))

    @property
    def numbers_line(self) -> Markup:
        """The comparison page's "tokens · cost · latency" line of a step."""
        return Markup(
            f"{fmt.num(self.tokens)} tok · {fmt.usd(self.cost_usd)} · {fmt.ms(self.latency_ms)}"
        )


@dataclass(frozen=True, slots=True)
class LoopView:
    """A loop as the pages list it."""

    name: str
    side: str
    start: int
    length: int
    iterations: int
    steps: list[str]
    stagnant: bool


@dataclass(frozen=True, slots=True)
class MetricRow:
    """One line of a metric table: baseline, candidate, change and (once gates exist) verdict."""

    key: str
    name: str
    baseline: str
    candidate: str
    change: str
    note: str | None = None
    verdict: bool | None = None
    worse: bool = False


@dataclass(frozen=True, slots=True)
class DiffRow:
    """One row of the aligned side-by-side diff."""

    row: int
    status: str  # matched | added | removed | modified
    baseline: StepView | None
    candidate: StepView | None
    first_divergence: bool
    deltas: dict[str, str]
    #: a modified row's input changes (AgentDiff's argument_diff): (key, what changed)
    changes: list[tuple[str, str]] = field(default_factory=list)
    #: a modified row's word diffs (worddiff.payload_diff; None: unchanged, rewritten or not
    #: diffed), drawn from the page's data (pairrows.py)
    input_diff: WordDiff | None = None
    output_diff: WordDiff | None = None
    rewritten: tuple[str, ...] = ()  # "input", "output": changed too much for a word diff
    error_diff: WordDiff | None = None  # the step's error message, when it changed
    positions: tuple[int | None, int | None] = (None, None)  # the two steps' places in their runs


@dataclass(kw_only=True)
class Page:
    """Fields every page has: where it lives, its title, the navigation and breadcrumbs."""

    template: ClassVar[str] = ""
    path: str
    title: str
    nav: list[Link]
    crumbs: list[Link] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)


#: Up to this many suites, the index gives each its own section; more make one sortable table.
SUITE_SECTIONS = 8


@dataclass(kw_only=True)
class IndexPage(Page):
    """The front page: regressions first, then suites, labels and nights (latest first)."""

    template: ClassVar[str] = "index.html"
    build_time: str
    regressions: list[dict[str, Any]]  # the newest REGRESSIONS_SHOWN (pages_overview.py)
    regressions_older: int = 0  # the regressions past those, listed on the history pages
    attention: list[dict[str, Any]]
    suites: list[dict[str, Any]]
    nights: list[dict[str, Any]]
    compare: Link | None
    loop_runs: list[dict[str, Any]] = field(default_factory=list)
    avoidable: list[dict[str, Any]] = field(default_factory=list)  # _avoidable_index.html
    avoidable_nights: int | None = None  # the newest nights it sums, when not every night
    verdict_night: str | None = None  # the latest compared night, judged over its tasks
    verdicts: list[dict[str, Any]] = field(default_factory=list)  # line, verdict per metric
    task_classes: str | None = None  # "Tasks: 2 newly broken, ..."
    broken: list[Link] = field(default_factory=list)  # newly broken tasks, each to its diff
    headline: str | None = None  # the latest compared night in one sentence (as `gate` says it)
    within_noise: int = 0  # nightly step changes not called regressions: within noise
    comparisons: list[Link] = field(default_factory=list)  # every comparison built
    comparison_rows: list[dict[str, Any]] = field(default_factory=list)  # pages_matrix columns
    chosen_by: str = ""  # how the comparisons were chosen (the build's rule, in words)
    matrix: Link | None = None  # the configurations side by side, when there are several
    suite_sections: int = SUITE_SECTIONS  # more suites than this: one sortable table of them


@dataclass(kw_only=True)
class HistoryPage(Page):
    """Each metric of one suite over nights, per label, with change points listed."""

    template: ClassVar[str] = "history.html"
    suite: str
    change_points: list[dict[str, Any]]
    table: list[dict[str, Any]]
    convergence: list[dict[str, Any]] = field(default_factory=list)
    notes: list[Markup] = field(default_factory=list)
    night_verdicts: list[dict[str, Any]] = field(default_factory=list)  # significant, per night
    reliability: list[dict[str, Any]] = field(default_factory=list)  # pages_reliability rows
    reliability_columns: list[dict[str, Any]] = field(default_factory=list)
    reliability_changes: list[ReliabilityChange] = field(default_factory=list)
    reliability_by_suite: bool = False  # rows name their suite


@dataclass(frozen=True)
class ScannerView:
    """One scanner's word on a run (an Inspect Scout scan, meta.scanners.<scanner>): its
    value as text, how many results it returned, its explanation and answer, its errors."""

    scanner: str
    value: str
    results: int | None
    explanation: str | None
    answer: str | None
    error: str | None
    scan_id: str | None


@dataclass(kw_only=True)
class RunPage(Page):
    """One run: summary, notes, the step timeline, loops and recovery windows."""

    template: ClassVar[str] = "run.html"
    run: dict[str, Any]
    meta: list[tuple[str, str]]
    notes: Markup | None
    steps: list[StepView]
    loops: list[LoopView]
    related: list[Link]
    avoidable: dict[str, Any] | None = None  # _avoidable_run.html (site/pages_spend.py)
    title_id: str | None = None  # the task id, shown beside a title from meta.title or goal
    nested: bool = False  # the steps are drawn as a tree (some step has a parent)
    tree_note: str | None = None  # why stored parents were not drawn as a tree
    span_ms: float | None = None  # the waterfall's span: first start to last end
    children: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # step -> sub-runs
    children_in_totals: bool | None = None  # whether the totals include the sub-runs'
    scanners: list[ScannerView] = field(default_factory=list)  # meta.scanners, by scanner
    steps_src: str = ""  # the run's step data script (stepdata.py), site-relative
    data_files: dict[str, bytes] = field(default_factory=dict)  # written with the page


@dataclass(kw_only=True)
class TaskPage(Page):
    """All runs of one task across labels and nights."""

    template: ClassVar[str] = "task.html"
    suite: str
    task_id: str
    runs: list[dict[str, Any]]
    pairs: list[dict[str, Any]]
    convergence: list[dict[str, Any]] = field(default_factory=list)
    title_id: str | None = None  # the task id, shown beside a title from meta.title or goal
    kept_nights: int | None = None  # when older nights' rows have no step page: how many do


@dataclass(kw_only=True)
class ComparePage(Page):
    """A comparison of two labels: per-night summary, every pair, unpaired runs."""

    template: ClassVar[str] = "compare.html"
    baseline_label: str
    candidate_label: str
    nights: list[dict[str, Any]]
    pairs: list[dict[str, Any]]  # the pairs of the kept nights (retention.py)
    unpaired: list[dict[str, Any]]
    pairs_not_listed: int = 0  # pairs of nights past the kept ones
    kept_nights: int | None = None  # how many nights keep step pages; None: every night
    verdicts: list[dict[str, Any]] = field(default_factory=list)  # per night, latest first
    paired_by: str = "suite, task and trial, night by night"  # what paired the runs, in words
    headline: str | None = None  # the latest compared night in one sentence (as `gate` says it)
    reliability: list[dict[str, Any]] = field(default_factory=list)  # both labels, per night
    reliability_columns: list[dict[str, Any]] = field(default_factory=list)
    reliability_changes: list[ReliabilityChange] = field(default_factory=list)
    reliability_by_suite: bool = False


@dataclass(kw_only=True)
class PairPage(Page):
    """One baseline/candidate pair: metric deltas (and verdicts), the aligned diff, loops."""

    template: ClassVar[str] = "pair.html"
    pair: dict[str, Any]
    metrics: list[MetricRow]
    verdicts: dict[str, bool] | None
    rows: list[DiffRow]
    loops: list[LoopView]
    first_divergence: int | None
    diffs_skipped: int = 0  # modified steps past the page's budget of word diffs
    why: WhyView | None = None  # the panel at the top: goal, outcomes, answers, first error
    title_id: str | None = None  # the task id, shown beside a title from meta.title or goal
    steps_src: tuple[str, str] = ("", "")  # the two runs' step data scripts (stepdata.py)
    rows_data: str = ""  # the rows as the table's packed data (pairrows.py)
    findings: FindingsSummary | None = None  # the pair record's trajectory findings


@dataclass(frozen=True, slots=True)
class Folded:
    """An agent text shown folded: its first lines, and the rest behind "show all"."""

    head: str
    rest: str


@dataclass(frozen=True, slots=True)
class WhyView:
    """The why of a pair (:class:`reportgen.divergence.why.Why`) as the pair page shows it:
    long texts folded, the answers' word diff as HTML, the rows of the step table to link."""

    why: Why
    goal: Folded | None
    baseline_goal: Folded | None
    answers: tuple[Folded | None, Folded | None]  # baseline, candidate
    scorers: tuple[Folded | None, Folded | None]
    answers_diff: Markup | None
    error_text: Folded | None
    error_row: int | None  # the step table's row of the first error


@dataclass(frozen=True, slots=True)
class LazyPage:
    """A page whose context is costly to build (run and pair pages): the build compares a hash
    of ``inputs`` (everything the page is made from, as JSON-able data) with the previous
    build's and calls ``build`` only when they differ."""

    path: str
    template: str
    inputs: Any
    build: Callable[[], Page]


@dataclass(kw_only=True)
class PrunedPage(Page):
    """What stands at a run's or pair's address once its night is past the retention window:
    the page's title, where its data is, and how to get the full page back."""

    template: ClassVar[str] = "pruned.html"
    batch: str
    kept_nights: int
    related: list[Link]


@dataclass(kw_only=True)
class SuitesPage(Page):
    """Every suite with its size, newest night and that night's verdicts: the navigation
    for sites with many suites (the header links here instead of to each history)."""

    template: ClassVar[str] = "suites.html"
    rows: list[dict[str, Any]]


@dataclass(kw_only=True)
class MatrixPage(Page):
    """Several configurations against one baseline side by side: per comparison its latest
    night's label-level metrics (change, interval, verdict) and task classes."""

    template: ClassVar[str] = "matrix.html"
    columns: list[dict[str, Any]]
    metrics: list[dict[str, str]]  # key, label: the rows, in order
