"""The metric registry: one declaration per metric, from which the CLI options, the config
keys, the pytest options, ``assert_no_regressions`` and the report rows are all derived.

Adding a pair metric is one :class:`PairMetric` here (or :func:`register` from a plugin) plus
its computation: either a key the divergence kernels already put on every pair, or a
``compute`` function over the pair record. This module imports nothing heavy, so the CLI can
build its options from it without loading DuckDB or numpy."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

Pair = Mapping[str, Any]
"""A pair's JSON-contract record (see :mod:`reportgen.divergence.records`)."""


@dataclass(frozen=True)
class Gate:
    """How a metric gates: its CLI flag, its config keys, its API keyword, its help.

    ``bound`` says what fails: ``max`` a value strictly above the threshold, ``min`` one
    strictly below it, ``switch`` a boolean flag that turns a check on. Thresholds must be
    finite numbers in ``[low, high]``; that rule is checked in one place
    (:func:`reportgen.gating.thresholds.check_threshold`)."""

    name: str
    flag: str
    config_key: str
    help: str
    keyword: str | None = None  # [assertions] key and assert_no_regressions keyword
    bound: Literal["max", "min", "switch"] = "max"
    low: float = 0.0
    high: float = math.inf
    metavar: str = "X"

    @property
    def dest(self) -> str:
        """The Python name of the CLI option (``--max-cost-delta`` -> ``max_cost_delta``)."""
        return self.flag.removeprefix("--").replace("-", "_")

    @property
    def pytest_flag(self) -> str:
        """The pytest plugin's option (``--reportgen-max-cost-delta``)."""
        return "--reportgen-" + self.flag.removeprefix("--")

    @property
    def pytest_dest(self) -> str:
        return "reportgen_" + self.dest

    @property
    def range_text(self) -> str:
        """The accepted thresholds in words, for error messages."""
        if self.high == math.inf:
            return f"a finite number >= {self.low:g}"
        return f"a finite number in [{self.low:g}, {self.high:g}]"


def _fmt_ratio(digits: int) -> Callable[[float | None], str]:
    return lambda v: "n/a" if v is None else f"{v:.{digits}f}"


def percent(value: float | None) -> str:
    """A signed percentage cell; unknown is ``n/a``."""
    return "n/a" if value is None else f"{value:+.1f}%"


@dataclass(frozen=True)
class PairMetric:
    """One metric of a baseline/candidate pair.

    ``key`` is the field of the pair record (the JSON contract); ``read`` gives the gated
    value (default: that field); ``cell`` the table text; ``compute``, when given, derives the
    field from the rest of the record (metrics that need no kernel of their own);
    ``definition`` what it means, in one or two sentences (the site's glossary and
    tooltips show it, and nothing else defines the metric)."""

    name: str
    key: str
    label: str
    column: str
    unit: str
    worse_when: Literal["higher", "lower"]
    gate: Gate | None = None
    read: Callable[[Pair], float | None] | None = None
    cell: Callable[[Pair], str] | None = None
    compute: Callable[[Pair], float | None] | None = None
    definition: str = ""  # what it means, for the site's glossary and tooltips

    def value(self, pair: Pair) -> float | None:
        """The number this metric gates on, for one pair (None: unknown)."""
        if self.read is not None:
            return self.read(pair)
        value = pair.get(self.key)
        return None if value is None else float(value)

    def text(self, pair: Pair) -> str:
        """The table cell of this metric for one pair."""
        if self.cell is not None:
            return self.cell(pair)
        value = self.value(pair)
        return percent(value) if self.unit == "%" else _fmt_ratio(3)(value)


def outcome_mark(success: bool | None, error_kind: str | None = None) -> str:
    """One side's outcome as a mark: ✓ passed, ✗ failed, ⚠ errored (the infrastructure's
    failure, not scored), ? unknown."""
    if error_kind is not None:
        return "⚠"
    return "?" if success is None else "✓" if success else "✗"


def errored(pair: Pair, side: str | None = None) -> bool:
    """Whether the infrastructure ended a run of the pair (``side``: that side's; None: either
    side's): such a pair is not scored, by any metric but the error rate."""
    sides = ("baseline", "candidate") if side is None else (side,)
    return any(pair.get(f"{s}_error_kind") is not None for s in sides)


def success_change(pair: Pair) -> float | None:
    """Candidate success minus baseline success (1 fixed, -1 broken, 0 same; None unknown)."""
    b, c = pair.get("baseline_success"), pair.get("candidate_success")
    return None if b is None or c is None else float(c) - float(b)


def reward_delta(pair: Pair) -> float | None:
    """Candidate reward minus baseline reward (None when either is unknown)."""
    b, c = pair.get("baseline_reward"), pair.get("candidate_reward")
    return None if b is None or c is None else float(c) - float(b)


def stagnant_loops(pair: Pair, side: str = "candidate") -> int:
    """Stagnant loops of one side of a pair: what ``--max-loops`` counts (an error followed by
    a changed retry is recovery, not a loop)."""
    return sum(1 for loop in pair["loops_detected"] if loop["side"] == side and loop["stagnant"])


MINUS, TIMES = "\N{MINUS SIGN}", "\N{MULTIPLICATION SIGN}"

_BUILTIN: tuple[PairMetric, ...] = (
    PairMetric(
        "divergence",
        "trajectory_divergence_index",
        "trajectory divergence (TDI)",
        "TDI",
        "",
        "higher",
        Gate("divergence", "--max-divergence", "max_divergence", "Fail when TDI > this.",
             keyword="max_divergence"),
        cell=lambda p: f"{p['trajectory_divergence_index']:.3f}",
        definition=f"Trajectory Divergence Index: 1 {MINUS} 2 {TIMES} aligned steps / the steps of both runs "
        "(aligned: the longest common subsequence of step signatures); 0 the same path, 1 "
        "nothing in common.",
    ),
    PairMetric(
        "wasted_effort",
        "candidate_wei",
        "candidate wasted effort (WEI)",
        "WEI b→c",
        "",
        "higher",
        Gate("wasted_effort", "--max-wasted-effort", "max_wasted_effort",
             "Fail when candidate WEI > this.", keyword="max_wasted_effort"),
        cell=lambda p: f"{p['baseline_wei']:.2f}→{p['candidate_wei']:.2f}",
        definition="Wasted Effort Index: the share of a run's steps that errored, were retried or "
        "abandoned (0 none wasted, 1 all).",
    ),
    PairMetric(
        "loops",
        "loops_detected",
        "stagnant loops in the candidate",
        "stagnant loops",
        "loops",
        "higher",
        Gate("loops", "--max-loops", "max_loops", "Fail when stagnant candidate loops > this.",
             keyword="max_loops"),
        read=lambda p: float(stagnant_loops(p)),
        cell=lambda p: str(stagnant_loops(p)),
        definition="Stagnant loops: a block of steps repeated back to back with the same input and output "
        "every time. Repeats whose input or output changes are not loops.",
    ),
    PairMetric(
        "identical_calls",
        "candidate_identical_calls",
        "identical calls in the candidate",
        "identical calls",
        "calls",
        "higher",
        Gate("identical_calls", "--max-identical-calls", "max_identical_calls",
             "Fail when the candidate repeats a call (same action, input and output, anywhere "
             "in the run) more than this many times.", keyword="max_identical_calls",
             metavar="N"),
        read=lambda p: float(p.get("candidate_identical_calls", 0)),
        cell=lambda p: str(p.get("candidate_identical_calls", 0)),
        definition="Identical calls: the times a run repeats a call with the same action, input and "
        "output anywhere in the run.",
    ),
    PairMetric(
        "recovery_ratio",
        "recovery_step_ratio",
        "recovery step ratio (RSR)",
        "RSR",
        "",
        "higher",
        Gate("recovery_ratio", "--max-recovery-ratio", "max_recovery_ratio",
             "Fail when RSR > this.", keyword="max_recovery_step_ratio"),
        cell=lambda p: f"{p['recovery_step_ratio']:.2f}",
        definition="Recovery Step Ratio: steps the candidate took to get back on the baseline's path "
        "after errors, over the baseline's (1 the same, above 1 slower).",
    ),
    PairMetric(
        "cost_delta",
        "cost_delta_percentage",
        "cost change (%)",
        "cost Δ",
        "%",
        "higher",
        Gate("cost_delta", "--max-cost-delta", "max_cost_delta",
             "Fail when cost grows by > this %.", keyword="max_cost_increase_pct"),
        definition=f"Cost change: (candidate cost {MINUS} baseline cost) / baseline cost, in %; unknown "
        "when the baseline gives no cost.",
    ),
    PairMetric(
        "token_delta",
        "token_delta_percentage",
        "token change (%)",
        "tokens Δ",
        "%",
        "higher",
        Gate("token_delta", "--max-token-delta", "max_token_delta",
             "Fail when tokens grow by > this %.", keyword="max_token_increase_pct"),
        definition=f"Token change: (candidate tokens {MINUS} baseline tokens) / baseline tokens, in %.",
    ),
    PairMetric(
        "latency_delta",
        "latency_delta_percentage",
        "latency change (%)",
        "latency Δ",
        "%",
        "higher",
        Gate("latency_delta", "--max-latency-delta", "max_latency_delta",
             "Fail when latency grows by > this %.", keyword="max_latency_increase_pct"),
        definition=f"Latency change: (candidate latency {MINUS} baseline latency) / baseline latency, in %.",
    ),
    PairMetric(
        "avoidable_cost",
        "candidate_avoidable_cost_usd",
        "avoidable spend of the candidate (USD)",
        "avoid $",
        "USD",
        "higher",
        Gate("avoidable_cost", "--max-avoidable-cost", "max_avoidable_cost",
             "Fail when the candidate run's avoidable spend (repeated calls, re-reads, failed "
             "retries, cache rebuilt after a pause, very long prompts, expensive sub-agents; "
             "reportgen spend) is above USD.", keyword="max_avoidable_cost", metavar="USD"),
        cell=lambda p: (
            "n/a" if p.get("candidate_avoidable_cost_usd") is None
            else f"${p['candidate_avoidable_cost_usd']:.4f}"
        ),
        definition="Avoidable spend: what the candidate run spent on calls it could have skipped "
        "(identical calls repeated, unchanged files read again, failed calls retried with the "
        "same input, the prompt cache rebuilt after a pause, very long prompts, expensive "
        "sub-agents), in USD; reportgen spend lists the findings.",
    ),
    # outcomes: no per-pair gate (one run passing or failing is noise; the label-level
    # --max-success-drop and --max-reward-drop below judge them over the tasks)
    PairMetric(
        "success",
        "candidate_success",
        "task success (baseline → candidate)",
        "success",
        "",
        "lower",
        read=success_change,
        cell=lambda p: (
            outcome_mark(p.get("baseline_success"), p.get("baseline_error_kind"))
            + "→"
            + outcome_mark(p.get("candidate_success"), p.get("candidate_error_kind"))
        ),
        definition="Task success: whether the run passed its task's check (✓ passed, ✗ failed, "
        "⚠ errored: the infrastructure failed it, not scored, ? unknown); newly broken: passed "
        "on the baseline, fails on the candidate.",
    ),
    PairMetric(
        "reward_delta",
        "reward_delta",
        "reward change",
        "reward Δ",
        "",
        "lower",
        cell=lambda p: "n/a" if p.get("reward_delta") is None else f"{p['reward_delta']:+.3f}",
        compute=reward_delta,
        definition=f"Reward change: candidate reward {MINUS} baseline reward (the benchmark's score).",
    ),
)  # fmt: skip

_registered: list[PairMetric] = list(_BUILTIN)


@dataclass(frozen=True)
class LabelMetric:
    """One metric of a whole comparison (baseline label vs candidate label, over its tasks):
    what ``summary.metrics`` reports with an interval, a p-value and a verdict.

    ``kind`` chooses the method (:mod:`reportgen.statistics`): ``rate`` a pass rate
    (Wilson, McNemar, paired t over tasks), ``runs`` a share of runs (each side's runs
    pooled, its Wilson interval; the change by Newcombe's interval for two independent
    proportions, Fisher's exact test), ``mean`` a paired mean over tasks (t interval),
    ``floor`` a pair metric that is itself a difference (TDI), judged against the same
    metric between two baseline runs of the task (its noise floor),
    ``total`` the relative change of totals over paired tasks (seeded paired bootstrap).
    ``baseline`` / ``candidate`` read one pair's value of each side (None: unknown).
    ``min_effect`` is the smallest change worth a verdict, in the unit of the delta (a rate's
    points as a fraction, a mean's own unit, a total's relative change); an interval inside
    ± it is ``no_change``. ``gate``, when given, is a label-level threshold on the point
    change (how far the candidate may fall), e.g. ``--max-success-drop``. ``family`` is the
    family of verdicts the metric is judged in: ``primary`` the outcomes (success, reward),
    ``secondary`` the path, cost and effort metrics, ``infrastructure`` the error rate
    (whose runs no other metric scores); each family keeps its own chance of a
    false verdict at alpha (docs/statistics.md). ``gate_reads`` is what the gate compares
    with its threshold: ``drop`` the change for the worse, ``candidate`` the candidate's own
    value (``--max-error-rate``). ``unit`` is how its values read (``usd``
    dollars, ``ms`` shown in seconds, ``tokens`` and ``steps`` counts, ``rate`` percent,
    ``number`` as is); ``grain`` says over what they are taken."""

    name: str
    label: str
    kind: Literal["rate", "runs", "mean", "floor", "total"]
    worse_when: Literal["higher", "lower"]
    min_effect: float
    candidate: Callable[[Pair], float | None]
    baseline: Callable[[Pair], float | None] | None = None
    gate: Gate | None = None
    scale: float = 1.0  # the gate's unit per unit of delta (a rate's 100 points)
    family: Literal["primary", "secondary", "infrastructure"] = "secondary"
    unit: Literal["rate", "number", "usd", "ms", "tokens", "steps"] = "number"
    definition: str = ""  # what it means over the tasks (the site's glossary and tooltips)
    gate_reads: Literal["drop", "candidate"] = "drop"

    @property
    def grain(self) -> str:
        """Over what the two values of a verdict line are taken: ``sum`` over the paired tasks
        (totals), ``mean`` over them (rates and means), each task's trials averaged first, or
        ``per run`` (a share of runs, each run once)."""
        return "sum" if self.kind == "total" else "per run" if self.kind == "runs" else "mean"

    @property
    def unit_text(self) -> str:
        """The unit in words (the glossary): ``% of runs``, ``% of tasks``, or the unit."""
        if self.unit == "rate":
            return "% of runs" if self.kind == "runs" else "% of tasks"
        return self.unit


def _number(key: str) -> Callable[[Pair], float | None]:
    def read(pair: Pair) -> float | None:
        value = pair.get(key)
        return None if value is None else float(value)

    return read


def _total(side: str, key: str) -> Callable[[Pair], float | None]:
    totals = f"{side}_totals"

    def read(pair: Pair) -> float | None:
        value = pair[totals][key]
        return None if value is None else float(value)

    return read


def _errored(side: str) -> Callable[[Pair], float | None]:
    return lambda pair: 1.0 if errored(pair, side) else 0.0


def _loops(side: str) -> Callable[[Pair], float | None]:
    def read(pair: Pair) -> float | None:
        return None if pair.get("loops_detected") is None else float(stagnant_loops(pair, side))

    return read


MAX_SUCCESS_DROP = Gate(
    "success_drop",
    "--max-success-drop",
    "max_success_drop",
    "Fail (exit 3) when the candidate's pass rate over the tasks falls by more than this many "
    "percentage points.",
    high=100.0,
    metavar="POINTS",
)
MAX_REWARD_DROP = Gate(
    "reward_drop",
    "--max-reward-drop",
    "max_reward_drop",
    "Fail (exit 3) when the candidate's mean reward over the tasks falls by more than this.",
)

MAX_ERROR_RATE = Gate(
    "error_rate",
    "--max-error-rate",
    "max_error_rate",
    "Fail (exit 3) when more than this % of the candidate's runs errored (environment "
    "setup, sandbox, harness timeout, rate limit, quota, auth, network, harness crash); "
    "errored runs are never scored as the agent's failures.",
    high=100.0,
    metavar="PCT",
)

#: The label-level metrics, in report order (one declaration each, gates included).
LABEL_METRICS: tuple[LabelMetric, ...] = (
    LabelMetric("success_rate", "success", "rate", "lower", 0.05,
                _number("candidate_success"), _number("baseline_success"),
                gate=MAX_SUCCESS_DROP, scale=100.0, family="primary", unit="rate",
                definition="Success rate: the share of tasks passed (each task once, its trials averaged); "
                "its change is in percentage points."),
    LabelMetric("reward", "reward", "mean", "lower", 0.05,
                _number("candidate_reward"), _number("baseline_reward"), gate=MAX_REWARD_DROP,
                family="primary",
                definition="Mean reward over the tasks (each task once, its trials averaged)."),
    LabelMetric("trajectory_divergence_index", "TDI", "floor", "higher", 0.1,
                _number("trajectory_divergence_index"),
                definition="Mean TDI over the tasks, judged against two baseline runs of the "
                "same task (the noise floor)."),
    LabelMetric("candidate_wei", "WEI", "mean", "higher", 0.05,
                _number("candidate_wei"), _number("baseline_wei"),
                definition="Mean Wasted Effort Index over the tasks."),
    LabelMetric("cost_usd", "cost", "total", "higher", 0.10,
                _total("candidate", "cost_usd"), _total("baseline", "cost_usd"), unit="usd",
                definition="Total cost in USD over the tasks; its change is relative."),
    LabelMetric("tokens", "tokens", "total", "higher", 0.10,
                _total("candidate", "tokens"), _total("baseline", "tokens"), unit="tokens",
                definition="Total tokens (in + out) over the tasks; its change is relative."),
    LabelMetric("latency_ms", "latency", "total", "higher", 0.10,
                _total("candidate", "latency_ms"), _total("baseline", "latency_ms"), unit="ms",
                definition="Total latency over the tasks; its change is relative."),
    LabelMetric("recovery_step_ratio", "recovery steps (RSR)", "total", "higher", 0.10,
                _number("candidate_recovery_steps"), _number("baseline_recovery_steps"),
                unit="steps",
                definition="Recovery steps over the tasks: the change of their total."),
    LabelMetric("stagnant_loops", "stagnant loops", "mean", "higher", 0.1,
                _loops("candidate"), _loops("baseline"),
                definition="Stagnant loops per task (same input and output every repeat)."),
    LabelMetric("error_rate", "errored runs", "runs", "higher", 0.05,
                _errored("candidate"), _errored("baseline"), gate=MAX_ERROR_RATE, scale=100.0,
                family="infrastructure", unit="rate", gate_reads="candidate",
                definition="Error rate: the share of runs the infrastructure ended (environment "
                "setup, sandbox, harness timeout, rate limit, quota, auth, network, harness "
                "crash) rather than the agent, each run counted once; no other metric scores "
                "those runs. Significantly up: broken infrastructure, not a worse agent."),
)  # fmt: skip


@dataclass(frozen=True)
class ReliabilityMetric:
    """One measure of a label's reliability profile: how consistent its repeated runs (trials)
    of the same tasks are over one night (:mod:`reportgen.statistics.reliability`), each a
    mean over the tasks with a t interval. ``gate`` is its ``--min-*`` threshold on the
    candidate label's own estimate for the compared night (``compare --db`` and ``gate``);
    ``min_trials`` the repeats per task (median over the tasks) below which the measure means
    little: the profile then says "too few repeats". ``low``..``high`` is its range; higher
    is always more reliable."""

    name: str
    label: str
    gate: Gate
    min_trials: int
    definition: str
    low: float = 0.0
    high: float = 1.0


def _min_gate(name: str, what: str, low: float = 0.0) -> Gate:
    return Gate(
        name,
        "--min-" + name.replace("_", "-"),
        "min_" + name,
        f"Fail (exit 3) when the candidate label's {what} over the compared night's tasks is "
        f"below this ({low:g}..1; equal passes; docs/statistics.md, Reliability profile).",
        keyword="min_" + name,
        bound="min",
        low=low,
        high=1.0,
        metavar="FLOAT",
    )


#: The reliability profile's measures, in report order (one declaration each, gates included).
RELIABILITY_METRICS: tuple[ReliabilityMetric, ...] = (
    ReliabilityMetric(
        "outcome_consistency", "outcome consistency",
        _min_gate("outcome_consistency", "outcome consistency"), 4,
        f"Outcome consistency: 1 {MINUS} the mean over tasks of 4 p (1 {MINUS} p), p the share of "
        "a task's trials that passed; 1 every task all-or-nothing, 0 every task a coin flip."),
    ReliabilityMetric(
        "tool_consistency", "tool-use consistency",
        _min_gate("tool_consistency", "tool-use consistency"), 3,
        f"Tool-use consistency: 1 {MINUS} the mean Jensen{MINUS}Shannon distance (base 2) between "
        "the tool-call frequencies of a task's trials, over every pair of trials, averaged "
        "over tasks; 1 every trial calls the same tools as often."),
    ReliabilityMetric(
        "cost_consistency", "cost consistency",
        _min_gate("cost_consistency", "cost consistency"), 3,
        f"Cost consistency: 1 {MINUS} the coefficient of variation of a task's cost over its "
        "trials (capped at 1), averaged over tasks; 1 every trial costs the same."),
    ReliabilityMetric(
        "token_consistency", "token consistency",
        _min_gate("token_consistency", "token consistency"), 3,
        f"Token consistency: 1 {MINUS} the coefficient of variation of a task's tokens over its "
        "trials (capped at 1), averaged over tasks."),
    ReliabilityMetric(
        "latency_consistency", "latency consistency",
        _min_gate("latency_consistency", "latency consistency"), 3,
        f"Latency consistency: 1 {MINUS} the coefficient of variation of a task's latency over "
        "its trials (capped at 1), averaged over tasks."),
    ReliabilityMetric(
        "robustness", "robustness",
        _min_gate("robustness", "robustness (perturbed minus clean pass share)", low=-1.0), 2,
        "Robustness: the mean over tasks of the pass share of the task's perturbed runs "
        f"(meta.perturbation set) {MINUS} that of its clean runs; 0 unaffected, {MINUS}1 every "
        "clean pass broken by the perturbation.", low=-1.0),
)  # fmt: skip


def reliability_gates() -> tuple[Gate, ...]:
    """The ``--min-*`` gates of the reliability profile (``compare --db``, ``gate``, [cli])."""
    return tuple(m.gate for m in RELIABILITY_METRICS)


def reliability_metric_for_gate(name: str) -> ReliabilityMetric:
    """The reliability measure behind gate ``name``."""
    for metric in RELIABILITY_METRICS:
        if metric.gate.name == name:
            return metric
    raise KeyError(name)


M = TypeVar("M", PairMetric, LabelMetric)


def _gates(metrics: Sequence[PairMetric | LabelMetric]) -> tuple[Gate, ...]:
    return tuple(m.gate for m in metrics if m.gate is not None)


def _for_gate(metrics: Sequence[M], name: str) -> M:
    for metric in metrics:
        if metric.gate is not None and metric.gate.name == name:
            return metric
    raise KeyError(name)


def label_gates() -> tuple[Gate, ...]:
    """The gates of the label-level metrics (``compare`` and ``gate``, the [cli] section)."""
    return _gates(LABEL_METRICS)


def label_metric_for_gate(name: str) -> LabelMetric:
    """The label-level metric behind gate ``name``."""
    return _for_gate(LABEL_METRICS, name)


#: Gates on other grains than a pair: a group of repeated runs (convergence) and one coding
#: loop (iterations). Declared here so that config keys and validation live in one place.
MIN_CONVERGENCE = Gate(
    "convergence",
    "--min-convergence",
    "min_convergence",
    "Fail when a group of repeated runs of the candidate scores below this (0..1; equal passes).",
    keyword="min_convergence",
    bound="min",
    high=1.0,
    metavar="FLOAT",
)
MAX_SPEND_PER_CERTIFIED_STEP = Gate(
    "spend_per_certified_step",
    "--max-spend-per-certified-step",
    "max_spend_per_certified_step",
    "Fail (exit 3) when a run's USD per certified step is above USD (equal passes); "
    "a run that spent money and certified nothing fails too.",
    metavar="USD",
)
MAX_TOOL_ERROR_RATE = Gate(
    "tool_error_rate",
    "--max-tool-error-rate",
    "max_tool_error_rate",
    "Fail (exit 3) when a run's tool errors / tool calls is above RATE (0..1).",
    high=1.0,
    metavar="RATE",
)
FAIL_ON_THRASH = Gate(
    "thrash",
    "--fail-on-thrash",
    "fail_on_thrash",
    "Fail (exit 3) when any step shows thrash.",
    bound="switch",
)
#: The gates of ``reportgen iterations`` (one coding loop), in report order.
ITERATION_GATES: tuple[Gate, ...] = (
    MAX_SPEND_PER_CERTIFIED_STEP,
    MAX_TOOL_ERROR_RATE,
    FAIL_ON_THRASH,
)
OTHER_GATES: tuple[Gate, ...] = (MIN_CONVERGENCE, *ITERATION_GATES, *reliability_gates())


def pair_metrics() -> tuple[PairMetric, ...]:
    """Every pair metric, in report column order."""
    return tuple(_registered)


def pair_gates() -> tuple[Gate, ...]:
    """The gates of the pair metrics (``compare``, ``gate``, the API and the plugin)."""
    return _gates(_registered)


def metric_for_gate(name: str) -> PairMetric:
    """The pair metric behind gate ``name``."""
    return _for_gate(_registered, name)


def register(metric: PairMetric) -> None:
    """Add a pair metric (from a plugin, or a test); its name must be new. The CLI derives its
    options when its app is made (:func:`reportgen.cli.make_app`)."""
    if any(m.name == metric.name for m in _registered):
        raise ValueError(f"a metric named {metric.name!r} is already registered")
    _registered.append(metric)


def unregister(name: str) -> None:
    """Remove a metric added by :func:`register` (built-in metrics stay)."""
    if any(m.name == name for m in _BUILTIN):
        raise ValueError(f"{name!r} is built in")
    _registered[:] = [m for m in _registered if m.name != name]


@contextmanager
def registered(metric: PairMetric) -> Iterator[PairMetric]:
    """``register`` for the length of a ``with`` block."""
    register(metric)
    try:
        yield metric
    finally:
        unregister(metric.name)
