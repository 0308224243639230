"""One evaluation of a comparison: pair the runs, compute every pair metric, judge the pair
gates, the convergence gate and the label-level statistics and gates, and say it in one
sentence. ``compare``, ``gate``, the Python API and the pytest plugin all call this and only
render what it returns (``reportgen.divergence.compare.Comparison``)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from reportgen.divergence.compare import (
    Comparison,
    compare_labels,
    compare_pairing,
    compare_paths,
    judge_pairs,
)
from reportgen.divergence.pairing import LABEL_KEYS, Pairing, pair_labels
from reportgen.divergence.records import LabelStatistics, PairRecord
from reportgen.gating import Threshold
from reportgen.statistics import attach_statistics
from reportgen.statistics.headline import gates_sentence, headline
from reportgen.statistics.report import level_text
from reportgen.statistics.summary import ALPHA

if TYPE_CHECKING:
    from reportgen.statistics.reliability import ReliabilityProfile


@dataclass(frozen=True)
class Judging:
    """What a comparison is judged against, resolved once from flags, config and keywords:
    the pair and label-level thresholds, ``--fail-on-regression``, ``--alpha``,
    ``--min-effect`` and ``--min-convergence`` (with where each came from)."""

    thresholds: tuple[Threshold, ...] = ()
    fail_on_regression: bool = False
    alpha: float = ALPHA
    min_effect: Mapping[str, float] = field(default_factory=dict)
    min_convergence: Threshold | None = None


def evaluate_paths(
    baseline: Iterable[str | Path],
    candidate: Iterable[str | Path],
    judging: Judging = Judging(),
    **options: Any,
) -> Comparison:
    """Two trace files or folders, each a side (``options``: as for
    :func:`reportgen.divergence.compare.compare_paths`, e.g. ``pair_by``, ``con``)."""
    comparison = compare_paths(baseline, candidate, judging.thresholds, **options)
    return judged(comparison, judging)


def evaluate_labels(
    con: duckdb.DuckDBPyConnection,
    baseline_label: str,
    candidate_label: str,
    judging: Judging = Judging(),
    *,
    label_level: bool = True,
    **options: Any,
) -> Comparison:
    """Two labels of an archive (``options``: as for
    :func:`reportgen.divergence.compare.compare_labels`, e.g. the batches, ``pair_by``). The
    convergence gate, when set, judges the candidate's groups of repeated runs of the batch.
    ``label_level`` off: the pairs and their gates only, no statistics over the tasks nor
    headline (a site's every-night view, whose nights are judged one by one)."""
    comparison = compare_labels(con, baseline_label, candidate_label, judging.thresholds, **options)
    if label_level:  # DuckDB SQL over the archive's tables, whichever engine paired the runs
        _reliability(con, comparison, baseline_label, candidate_label, judging, options)
    if judging.min_convergence is not None:
        from reportgen.convergence.gate import gate_convergence

        batch = options.get("candidate_batch")
        gate_convergence(
            con,
            comparison,
            judging.min_convergence.value,
            judging.min_convergence.source,
            label=candidate_label,
            batch=batch,
        )
    return judged(comparison, judging) if label_level else comparison


def label_pairing(
    con: duckdb.DuckDBPyConnection, baseline_label: str, candidate_label: str
) -> Pairing:
    """Every pair of two labels of an archive, night by night, as ``evaluate_labels`` pairs
    them with no night pinned (the site's every-night evaluation, reportgen.site.evalcache)."""
    return pair_labels(con, baseline_label, candidate_label, keys=LABEL_KEYS)


def evaluate_part(
    con: duckdb.DuckDBPyConnection,
    part: Pairing,
    *,
    details: bool,
    findings_nights: Collection[str] | None,
) -> Comparison:
    """The pairs of ``part`` (some nights of a :func:`label_pairing`) evaluated as
    ``evaluate_labels(..., label_level=False)`` evaluates them: metrics, pair gates, and the
    trajectory findings of the pairs of ``findings_nights``; ``details`` off: each record
    pared down to what verdicts, statistics and tables read."""
    return compare_pairing(
        con, part, with_steps=False, details=details, findings_nights=findings_nights
    )


def _reliability(
    con: duckdb.DuckDBPyConnection,
    comparison: Comparison,
    baseline_label: str,
    candidate_label: str,
    judging: Judging,
    options: Mapping[str, Any],
) -> None:
    """Both labels' reliability profiles over the compared nights (every night of a label
    when no batch is chosen) on ``comparison``, the ``--min-*`` reliability gates judged on
    the candidate's."""
    from reportgen.statistics.reliability import gate_reliability, reliability_profiles

    def of(label: str, batch: str | None) -> list[ReliabilityProfile]:
        return reliability_profiles(con, labels=[label], batches=None if batch is None else [batch])

    comparison.reliability = gate_reliability(
        of(baseline_label, options.get("baseline_batch")),
        of(candidate_label, options.get("candidate_batch")),
        judging.thresholds,
    )


def judged(comparison: Comparison, judging: Judging) -> Comparison:
    """``comparison`` judged by ``judging``: every pair against the pair gates (again, when
    the thresholds differ from those it was compared with), the label-level statistics and
    gates, and the headline. Returns the same object."""
    thresholds = list(judging.thresholds)
    if thresholds != comparison.thresholds:
        comparison.thresholds = thresholds
        judge_pairs(comparison.pairs, thresholds)
    stats = attach_statistics(
        comparison,
        fail_on_regression=judging.fail_on_regression,
        alpha=judging.alpha,
        min_effect=dict(judging.min_effect) or None,
    )
    gates = gates_sentence(
        comparison.gates_set, comparison.passed, comparison.failure_line(named=False)
    )
    comparison.headline = headline(stats["metrics"], stats["tasks"], gates=gates)
    return comparison


def judged_pairs(
    pairs: Sequence[PairRecord], task_keys: Mapping[str, str], floors: Mapping[str, float]
) -> LabelStatistics:
    """The label-level judgement of pairs already evaluated (one night of an every-night
    evaluation, one suite of it), with the default judging: what ``gate --batch NIGHT`` says
    of them, given each task's noise floor of divergence (``floors``; none known: no TDI)."""
    part = Comparison(list(pairs), task_keys=dict(task_keys), repeat_tdi=dict(floors))
    return attach_statistics(part)


def violations_in_words(comparison: Comparison) -> list[str]:
    """Every gate the judged ``comparison`` failed, one line each (pairs, convergence groups,
    label-level gates, regressions under ``--fail-on-regression``)."""
    from reportgen.escape import term_text

    lines = [
        f"pair {term_text(pair['pair_id'])}: {v['metric']} = {v['value']:.6g}"
        f" > {v['threshold']:g} (from {v['source']})"
        for pair in comparison.pairs
        for v in pair["violations"]
    ]
    if comparison.convergence is not None:
        lines += [
            f"convergence: {term_text(v['message'])}" for v in comparison.convergence["violations"]
        ]
    if comparison.reliability is not None:
        lines += [v["message"] for v in comparison.reliability["violations"]]
    stats = comparison.statistics
    if stats is None:
        return lines
    lines += [
        f"{v['gate']}: {v['metric']} {v['value']:.3g} > {v['threshold']:g} (from {v['source']})"
        for v in stats["label_violations"]
    ]
    if stats["fail_on_regression"]:
        lines += [
            f"{m['metric']}: regression ({m['baseline']:.6g} -> {m['candidate']:.6g},"
            f" {level_text(m['ci_level'])} % CI {m['ci_low']:.6g} to {m['ci_high']:.6g},"
            f" the {m['family']} metrics' level at alpha {stats['alpha']:g})"
            for m in stats["metrics"]
            if m["verdict"] == "regression"
        ]
    return lines


def evaluate(
    sources: Sequence[str | Path] | None = None,
    *,
    db: str | Path | None = None,
    baseline: str = "baseline",
    candidate: str = "candidate",
    judging: Judging = Judging(),
    **options: Any,
) -> Comparison:
    """The library's one call: ``sources`` (two files or folders, baseline then candidate)
    or two labels of the archive ``db``; see :func:`evaluate_paths` and
    :func:`evaluate_labels`."""
    if db is None:
        if sources is None or len(sources) != 2:
            raise ValueError("give two sources (baseline, candidate) or db")
        return evaluate_paths([sources[0]], [sources[1]], judging, **options)
    from reportgen.archive import connect

    con = connect(db, read_only=True)
    try:
        return evaluate_labels(con, baseline, candidate, judging, **options)
    finally:
        con.close()
