"""Compare baseline and candidate runs: pair them, compute every divergence metric in the
archive, judge them against the gates. The CLI, the pytest plugin and the site call this."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from itertools import pairwise
from pathlib import Path
from typing import Any, Protocol, cast

import duckdb
import orjson

from reportgen._gc import collector_paused
from reportgen._sql import load_sql
from reportgen.archive import connect
from reportgen.archive.connection import first_row
from reportgen.divergence.findings import FlapPair, pair_findings
from reportgen.divergence.metrics import Pair, chunk_bounds, pair_metric_chunks
from reportgen.divergence.pairing import (
    LABEL_KEYS,
    Pairing,
    Unpaired,
    nothing_paired,
    pair_labels,
    pair_runs,
    runs_of_label,
)
from reportgen.divergence.records import (
    ConvergenceGate,
    DiffRows,
    LabelStatistics,
    PairRecord,
    ReliabilityGate,
    RunOutcome,
)
from reportgen.divergence.reference import argument_diff
from reportgen.divergence.step_json import StepDiffWriter
from reportgen.errors import InputError
from reportgen.gating import Threshold, judge
from reportgen.gating import pair_metrics as registered_metrics
from reportgen.ingest import ingest
from reportgen.ingest.loader import ProgressHook
from reportgen.spend import gate_values
from reportgen.strict_json import LazyArray, dumps_line

STEP_BATCH = 512
"""Pairs whose steps are read together while the JSON is written (``steps_later``)."""


@dataclass
class Comparison:
    """The compared pairs (JSON-contract dicts with verdicts), what had no partner, and the
    thresholds that were applied. ``task_keys`` gives each pair's task (``suite/task``): the
    unit of the label-level statistics, which :mod:`reportgen.statistics` stores in
    ``statistics`` (with the label-level gates and, when asked, the regressions that fail)."""

    pairs: list[PairRecord]
    unpaired: list[Unpaired] = field(default_factory=list)
    paired_by: tuple[str, ...] = LABEL_KEYS  # the keys that paired the runs (PAIR_KEYS)
    thresholds: list[Threshold] = field(default_factory=list)
    convergence: ConvergenceGate | None = None  # the --min-convergence gate, when applied
    # the two labels' reliability profiles and the --min-* reliability gates (archives only)
    reliability: ReliabilityGate | None = None
    task_keys: dict[str, str] = field(default_factory=dict)
    repeat_tdi: dict[str, float] = field(default_factory=dict)  # task key -> baseline A/A TDI
    statistics: LabelStatistics | None = None  # reportgen.statistics.attach_statistics
    headline: str = ""  # one sentence, first on every surface (reportgen.evaluation.judged)
    # steps_later: writes the step_diffs of the pairs as JSON text, the pairs' own left empty
    # (the connection it reads must still be open)
    step_json: StepDiffWriter | None = None

    @property
    def label_violations(self) -> list[dict[str, Any]]:
        """The label-level gates broken (``--max-success-drop``, ...)."""
        return [] if self.statistics is None else list(self.statistics["label_violations"])

    @property
    def failing_regressions(self) -> list[str]:
        """The metrics whose verdict is ``regression``, when ``--fail-on-regression`` is on."""
        stats = self.statistics
        return list(stats["regressions"]) if stats and stats["fail_on_regression"] else []

    @property
    def gates_set(self) -> bool:
        """Whether any gate was set: a threshold, --fail-on-regression or a convergence gate
        (without one a comparison passes whatever it finds: reports then say so)."""
        on_regression = bool(self.statistics and self.statistics["fail_on_regression"])
        return bool(self.thresholds) or on_regression or self.convergence is not None

    @property
    def reliability_violations(self) -> list[dict[str, Any]]:
        """The ``--min-*`` reliability gates the candidate's profile broke."""
        return [] if self.reliability is None else list(self.reliability["violations"])

    @property
    def passed(self) -> bool:
        converged = self.convergence is None or not self.convergence["violations"]
        label_level = not self.label_violations and not self.failing_regressions
        reliable = not self.reliability_violations
        return converged and label_level and reliable and all(p["passed"] for p in self.pairs)

    def to_json(self) -> dict[str, Any]:
        """One pair: the pair's contract at top level (plus the label-level ``summary`` when
        computed); many: ``pairs`` plus a ``summary``. With ``steps_later`` the step_diffs
        are written as JSON text, STEP_BATCH pairs at a time, as ``pairs`` is written (see
        reportgen.strict_json.iter_json): each pair one compact line."""
        applied = [t.to_dict() for t in self.thresholds]
        extra: dict[str, Any] = (
            {} if self.convergence is None else {"convergence": self.convergence}
        )
        if self.reliability is not None:
            extra["reliability"] = self.reliability
        if len(self.pairs) == 1 and not self.unpaired:
            pair: dict[str, Any] = dict(self.pairs[0])
            if self.step_json is not None:
                pair["step_diffs"] = orjson.Fragment(self.step_json.texts(0, 1)[0])
            label = {} if self.statistics is None else {"summary": self._label_summary()}
            said = {"headline": self.headline} if self.headline else {}
            return {**pair, "thresholds": applied, **extra, **label, **said}
        pairs: list[PairRecord] | LazyArray = self.pairs
        if self.step_json is not None and self.pairs:
            lines = partial(_pair_lines, self.pairs, self.step_json)
            pairs = LazyArray(lines, len(self.pairs), lines=True)
        return {
            "pairs": pairs,
            "summary": self.summary(),
            "unpaired": [u.__dict__ for u in self.unpaired],
            "thresholds": applied,
            **extra,
        }

    def failure_line(self, named: bool = True) -> str:
        """What failed, in one line (the error a failed gate exits with): per-pair gates,
        convergence, label-level gates and regressions each said apart; ``named``: the first
        failed pairs named too."""
        failed = self.summary()["failed_pairs"]
        groups = len(self.convergence["violations"]) if self.convergence else 0
        what = [f"{len(failed)} pair(s) failed a gate"] if failed else []
        what += [f"{groups} group(s) did not converge"] if groups else []
        what += [v["message"] for v in self.reliability_violations]
        what += [
            f"{v['gate']} {v['value']:.3g} > {v['threshold']:g} (from {v['source']})"
            for v in self.label_violations
        ]
        if self.failing_regressions:
            what.append("regression (--fail-on-regression): " + ", ".join(self.failing_regressions))
        shown = ", ".join(failed[:5]) + (" ..." if len(failed) > 5 else "")
        return "; ".join(what) + (f": {shown}" if failed and named else "")

    def _label_summary(self) -> dict[str, Any]:
        stats = self.statistics
        if stats is None:
            return {}
        return {
            "metrics": stats["metrics"],
            "tasks": stats["tasks"],
            "alpha": stats["alpha"],
            "label_violations": stats["label_violations"],
            "regressions": stats["regressions"],
            "fail_on_regression": stats["fail_on_regression"],
            **(
                {"label_gates_not_evaluated": stats["label_gates_not_evaluated"]}
                if stats["label_gates_not_evaluated"]
                else {}
            ),
        }

    def summary(self) -> dict[str, Any]:
        failed = [p["pair_id"] for p in self.pairs if not p["passed"]]
        said = {"headline": self.headline} if self.headline else {}
        return {
            **said,
            "pairs": len(self.pairs),
            "paired_by": list(self.paired_by),
            "gates_set": self.gates_set,
            "passed": self.passed,
            "failed_pairs": failed,
            "unpaired": len(self.unpaired),
            "violations": sum(len(p["violations"]) for p in self.pairs),
            **self._label_summary(),
        }


def _pair_lines(pairs: list[PairRecord], writer: StepDiffWriter) -> Iterator[bytes]:
    """Each pair as one compact JSON line with its step_diffs, STEP_BATCH pairs' steps read
    at a time: the next batch is read (DuckDB, on another thread) while this one is written.
    Only that thread uses the connection meanwhile."""
    bounds = [*range(0, len(pairs), STEP_BATCH), len(pairs)]
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="reportgen-steps") as reader:
        reading = reader.submit(writer.texts, bounds[0], bounds[1])
        for k in range(len(bounds) - 1):
            texts = reading.result()
            if k + 2 < len(bounds):
                reading = reader.submit(writer.texts, bounds[k + 1], bounds[k + 2])
            for pair, text in zip(pairs[bounds[k] : bounds[k + 1]], texts, strict=True):
                yield dumps_line(pair, {"step_diffs": text})


class Engine(Protocol):
    """Where runs are paired and pair metrics computed (default: DuckDB, in this process;
    reportgen.spark.SparkEngine: Apache Spark over a Parquet archive)."""

    def pair_labels(
        self,
        con: duckdb.DuckDBPyConnection,
        baseline_label: str,
        candidate_label: str,
        *,
        suite: str | None,
        baseline_batch: str | None,
        candidate_batch: str | None,
        keys: Sequence[str],
    ) -> Pairing: ...

    def pair_metrics(
        self,
        con: duckdb.DuckDBPyConnection,
        pairs: Sequence[Pair],
        *,
        progress: ProgressHook | None = None,
    ) -> list[PairRecord]: ...


def compare_pairing(
    con: duckdb.DuckDBPyConnection,
    pairing: Pairing,
    thresholds: Sequence[Threshold] = (),
    *,
    with_steps: bool = True,
    steps_later: bool = False,
    progress: ProgressHook | None = None,
    engine: Engine | None = None,
    details: bool = True,
    findings_nights: Collection[str] | None = None,
) -> Comparison:
    """Metrics and verdicts for every pair of ``pairing``. ``with_steps``: each diff row gets
    the two steps it pairs (the JSON contract, --explain and --tree show them; verdicts and
    tables need only the metrics). ``steps_later`` (--json): the pairs' step_diffs stay
    empty, their rows kept as arrays, and ``to_json()`` writes them with their steps as JSON
    text, batch by batch (reportgen.divergence.step_json; keep ``con`` open until then).
    ``details`` off (outputs that show no step and no loop: a gate's table or Markdown): each
    record keeps only what the verdicts, statistics and tables read, its step_diffs empty and
    its loops_detected the stagnant loops (those ``--max-loops`` counts), so that a
    comparison of a whole archive holds a few KB a pair (implies ``with_steps`` off).

    The pairs are computed chunk by chunk (reportgen.divergence.metrics.chunk_bounds), each
    chunk completed, judged and (``details`` off) pared down before the next: memory holds
    the records kept plus one chunk's work. The avoidable spend of each chunk's runs is
    computed on a thread of its own meanwhile (DuckDB, on a cursor). ``findings_nights``:
    only the pairs of these nights get their trajectory findings (a site shows them on the
    pair pages of its kept nights only); None: every pair."""
    if not details:
        with_steps = False
    ids = [r for p in pairing.pairs for r in (p.baseline_run_id, p.candidate_run_id)]
    outcomes = run_outcomes(con, ids)
    repeats = repeat_pairs(pairing.pairs, outcomes)
    as_text = with_steps and steps_later  # step_diffs as arrays, written as text later
    everything = [*pairing.pairs, *repeats]
    real = len(pairing.pairs)
    bounds = [0, len(everything)] if engine is not None else chunk_bounds(con, everything)
    results: list[PairRecord] = []
    repeat_results: list[PairRecord] = []
    parts: list[DiffRows] = []
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="reportgen-spend") as spending:
        spend_of = [  # in chunk order, while the pair metrics are computed
            spending.submit(_spend_on_cursor, con, _run_ids(everything[a : min(z, real)]))
            for a, z in pairwise(bounds)
        ]
        for spend, (records, rows) in zip(
            spend_of,
            _metric_chunks(con, everything, bounds, engine, as_text, details, progress),
            strict=True,
        ):
            done = len(results)
            mine, theirs = records[: real - done], records[real - done :]
            complete_records(con, mine, outcomes, spend.result())
            judge_pairs(mine, thresholds)
            if as_text:
                parts.append(rows.head(len(mine)))
            if not details:
                for record in mine:
                    _pare(record)
            results += mine
            repeat_results += theirs
    if with_steps and not steps_later:  # once every chunk is read: con is free again
        _attach_steps(con, results)
    attach_findings(con, _of_nights(results, outcomes, findings_nights), pairing.unpaired, outcomes)
    keys = {}
    for result in results:
        place = outcomes.get(result["baseline_run_id"])
        keys[result["pair_id"]] = _task_key(result["task_id"], place)
    floor = {  # a repeat pair's task_id is already its task key
        pair.task_id: r["trajectory_divergence_index"]
        for pair, r in zip(repeats, repeat_results, strict=True)
    }
    writer = StepDiffWriter(con, results, DiffRows.concat(parts)) if as_text else None
    return Comparison(
        results,
        pairing.unpaired,
        pairing.keys,
        list(thresholds),
        task_keys=keys,
        repeat_tdi=floor,
        step_json=writer,
    )


def _metric_chunks(
    con: duckdb.DuckDBPyConnection,
    pairs: list[Pair],
    bounds: list[int],
    engine: Engine | None,
    as_text: bool,
    details: bool,
    progress: ProgressHook | None,
) -> Iterator[tuple[list[PairRecord], DiffRows]]:
    """Each chunk's records and (``as_text``) step_diffs rows; the records' step_diffs as
    dicts only when ``details`` and not ``as_text``. ``engine``: its records, all at once,
    as one chunk, the rows made from their dicts."""
    step_dicts = details and not as_text
    if engine is None:
        yield from pair_metric_chunks(con, pairs, bounds, step_dicts=step_dicts, progress=progress)
        return
    records = engine.pair_metrics(con, pairs, progress=progress)
    rows = DiffRows.of_records(records if as_text else [])
    if not step_dicts:
        for record in records:
            record["step_diffs"] = []
    yield records, rows


def _run_ids(pairs: Sequence[Pair]) -> list[str]:
    """The baseline and candidate run of each pair."""
    return [r for p in pairs for r in (p.baseline_run_id, p.candidate_run_id)]


def _pare(record: PairRecord) -> None:
    """Keep of a completed, judged record only what verdicts, statistics and tables read
    (``details`` off): no step_diffs, and of its loops the stagnant ones."""
    record["step_diffs"] = []
    record["loops_detected"] = [loop for loop in record["loops_detected"] if loop["stagnant"]]


def _group(task_id: str, place: RunOutcome | None) -> str:
    """The group of baseline runs whose repeats a pair is judged against: its task and night."""
    return json.dumps([task_id] if place is None else [place.suite, place.task_id, place.batch])


def _of_nights(
    results: list[PairRecord], outcomes: dict[str, RunOutcome], nights: Collection[str] | None
) -> list[PairRecord]:
    """The pair records whose baseline run is of ``nights`` (all when None)."""
    if nights is None:
        return results
    wanted = set(nights)
    return [
        r
        for r in results
        if (place := outcomes.get(r["baseline_run_id"])) is not None and place.batch in wanted
    ]


def attach_findings(
    con: duckdb.DuckDBPyConnection,
    results: Sequence[PairRecord],
    unpaired: Sequence[Unpaired],
    outcomes: dict[str, RunOutcome],
) -> None:
    """Give every pair record its trajectory ``findings``, each with its flap rate over the
    repeat pairs of the baseline's runs of the same task and night (the paired ones and those
    left unpaired), in one query (reportgen.divergence.findings)."""
    judged = [
        FlapPair(
            r["baseline_run_id"],
            r["candidate_run_id"],
            _group(r["task_id"], outcomes.get(r["baseline_run_id"])),
        )
        for r in results
    ]
    runs = [(p.baseline_run_id, p.group) for p in judged]
    runs += [
        (u.run_id, json.dumps([u.suite, u.task_id, u.batch]))
        for u in unpaired
        if u.side == "baseline"
    ]
    for result, found in zip(results, pair_findings(con, judged, runs), strict=True):
        result["findings"] = [f.record() for f in found]


def judge_pairs(results: Sequence[PairRecord], thresholds: Sequence[Threshold]) -> None:
    """Give every pair record its verdict on the pair gates: ``passed``, ``violations`` and,
    where a gate could not be judged, ``gates_not_evaluated``."""
    for result in results:
        verdict = judge(result, list(thresholds))
        result["passed"] = verdict.passed
        result["violations"] = verdict.violations
        if verdict.unknown:
            result["gates_not_evaluated"] = verdict.unknown
        else:
            result.pop("gates_not_evaluated", None)


def _spend_on_cursor(con: duckdb.DuckDBPyConnection, run_ids: list[str]) -> dict[str, float | None]:
    """gate_values of ``run_ids`` on a cursor of ``con`` (a connection of its own, so it may
    run beside other work on ``con``)."""
    cursor = con.cursor()
    try:
        return gate_values(cursor, run_ids)
    finally:
        cursor.close()


def run_outcomes(con: duckdb.DuckDBPyConnection, run_ids: Sequence[str]) -> dict[str, RunOutcome]:
    """Success, reward and place (suite, task, batch, trial) of each given run, by run id, in
    one query (``sql/run_outcomes.sql``)."""
    if not run_ids:
        return {}
    rows = con.execute(load_sql("run_outcomes"), {"run_ids": sorted(set(run_ids))}).fetchall()
    return {
        run_id: RunOutcome(
            success=None if success is None else bool(success),
            reward=None if reward is None else float(reward),
            suite=suite,
            task_id=task_id,
            batch=batch,
            trial=int(trial),
            error_kind=error_kind,
            error_reason=error_reason,
        )
        for run_id, success, reward, suite, task_id, batch, trial, error_kind, error_reason in rows
    }


def _task_key(task_id: str, place: RunOutcome | None) -> str:
    """A task's key for the label-level statistics: ``suite/task`` (the task alone when the
    run is not in the archive)."""
    return task_id if place is None else f"{place.suite}/{place.task_id}"


def repeat_pairs(pairs: Sequence[Pair], outcomes: dict[str, RunOutcome]) -> list[Pair]:
    """One baseline-against-baseline pair per task that has two baseline runs or more (its
    first two by night and trial): their TDI is the task's noise floor, how far two runs of
    the same agent diverge, which the candidate's TDI is judged against. At most one extra
    pair per task, computed with the real pairs in one pass."""
    runs: dict[str, set[str]] = {}
    for pair in pairs:
        key = _task_key(pair.task_id, outcomes.get(pair.baseline_run_id))
        runs.setdefault(key, set()).add(pair.baseline_run_id)
    taken = {pair.pair_id for pair in pairs}
    found = []
    for n, (key, ids) in enumerate(sorted(runs.items())):
        if len(ids) < 2:
            continue
        first, second = sorted(
            ids,
            key=lambda r: (
                (outcomes[r].batch, outcomes[r].trial, r) if r in outcomes else ("", 0, r)
            ),
        )[:2]
        pid = f"repeat:{n}"
        while pid in taken:
            pid += "~"
        found.append(Pair(pid, key, first, second))
    return found


def complete_records(
    con: duckdb.DuckDBPyConnection,
    results: list[PairRecord],
    outcomes: dict[str, RunOutcome] | None = None,
    spend: dict[str, float | None] | None = None,
) -> dict[str, RunOutcome]:
    """Give every pair record its outcomes (``baseline_success``, ``candidate_success``,
    ``baseline_reward``, ``candidate_reward``; None when the run does not say; the
    ``*_error_kind`` and ``*_error_reason`` of a run the infrastructure ended) and the fields
    of the registered metrics that are computed from the record. The CLI, the API and the site
    all read records completed here, so every surface shows the same fields. Returns the
    outcomes by run id. ``spend``: the runs' gate_values, when computed already."""
    if outcomes is None:
        ids = [r[k] for r in results for k in ("baseline_run_id", "candidate_run_id")]
        outcomes = run_outcomes(con, ids)
    derived = [m for m in registered_metrics() if m.compute is not None]
    sides = [r[k] for r in results for k in ("baseline_run_id", "candidate_run_id")]
    if spend is None:
        spend = gate_values(con, sides)  # --max-avoidable-cost
    for result in results:
        record = cast(dict[str, Any], result)
        record["baseline_avoidable_cost_usd"] = spend[result["baseline_run_id"]]
        record["candidate_avoidable_cost_usd"] = spend[result["candidate_run_id"]]
        b, c = outcomes.get(result["baseline_run_id"]), outcomes.get(result["candidate_run_id"])
        result["baseline_success"] = None if b is None else b.success
        result["candidate_success"] = None if c is None else c.success
        result["baseline_reward"] = None if b is None else b.reward
        result["candidate_reward"] = None if c is None else c.reward
        result["baseline_error_kind"] = None if b is None else b.error_kind
        result["candidate_error_kind"] = None if c is None else c.error_kind
        result["baseline_error_reason"] = None if b is None else b.error_reason
        result["candidate_error_reason"] = None if c is None else c.error_reason
        for metric in derived:
            assert metric.compute is not None
            cast(dict[str, Any], result)[metric.key] = metric.compute(result)
    return outcomes


def compare_labels(
    con: duckdb.DuckDBPyConnection,
    baseline_label: str,
    candidate_label: str,
    thresholds: Sequence[Threshold] = (),
    *,
    suite: str | None = None,
    task: str | None = None,
    baseline_batch: str | None = None,
    candidate_batch: str | None = None,
    with_steps: bool = True,
    steps_later: bool = False,
    progress: ProgressHook | None = None,
    engine: Engine | None = None,
    pair_by: Sequence[str] = LABEL_KEYS,
    require_pairs: bool = True,
    details: bool = True,
    findings_nights: Collection[str] | None = None,
) -> Comparison:
    """Compare two labels of an archive, task by task (and night by night unless pinned);
    ``task`` keeps one task only; ``pair_by``: the keys that pair runs (PAIR_KEYS). A
    comparison that pairs nothing raises NothingPaired (why, in one line), unless
    ``require_pairs`` is off (a site shows an empty comparison as such). ``with_steps``,
    ``steps_later``, ``progress``, ``engine``, ``details``, ``findings_nights``: as for
    compare_pairing."""
    pairing = (pair_labels if engine is None else engine.pair_labels)(
        con,
        baseline_label,
        candidate_label,
        suite=suite,
        baseline_batch=baseline_batch,
        candidate_batch=candidate_batch,
        keys=tuple(pair_by),
    )
    if task is not None:
        pairing.pairs = [p for p in pairing.pairs if p.task_id == task]
        pairing.unpaired = [u for u in pairing.unpaired if u.task_id == task]
    if not pairing.pairs and not pairing.unpaired and require_pairs:
        what = f"task {task!r} of " if task else ""
        raise InputError(
            "archive", f"no runs of {what}labels {baseline_label!r} or {candidate_label!r}"
        )
    if not pairing.pairs and require_pairs:
        base = runs_of_label(con, baseline_label, suite=suite, batch=baseline_batch)
        cand = runs_of_label(con, candidate_label, suite=suite, batch=candidate_batch)
        raise nothing_paired(
            con, f"labels {baseline_label} .. {candidate_label}", base, cand, pairing.keys
        )
    return compare_pairing(
        con,
        pairing,
        thresholds,
        with_steps=with_steps,
        steps_later=steps_later,
        progress=progress,
        engine=engine,
        details=details,
        findings_nights=findings_nights,
    )


def compare_paths(
    baseline: Iterable[str | Path],
    candidate: Iterable[str | Path],
    thresholds: Sequence[Threshold] = (),
    *,
    format_name: str | None = None,
    with_steps: bool = True,
    steps_later: bool = False,
    progress: ProgressHook | None = None,
    con: duckdb.DuckDBPyConnection | None = None,
    max_record_mb: float = 16,
    pair_by: Sequence[str] | None = None,
) -> Comparison:
    """Compare trace files or folders without an archive: both sides are ingested into an
    in-memory one (``con``, an empty ``connect(None)``, when given: left open, as
    ``steps_later`` needs), then paired (two single runs pair with each other; otherwise by
    task, by trial where both sides hold repeated trials and by suite where both hold the same
    suites, whatever label each side's files carry; ``pair_by`` chooses the keys,
    PAIR_KEYS). A comparison that pairs nothing
    raises NothingPaired (why, in one line). ``with_steps``, ``steps_later``, ``progress``: as
    for compare_pairing; ``max_record_mb``: as for ingest."""
    baseline, candidate = list(baseline), list(candidate)
    own = con is None
    if steps_later and own:
        raise ValueError("steps_later needs a connection (con) that stays open")
    con = connect(None) if con is None else con
    try:
        sides = []
        for prefix, paths in (("baseline:", baseline), ("candidate:", candidate)):
            report = ingest(
                paths,
                con,
                format_name=format_name,
                run_id_prefix=prefix,
                max_record_mb=max_record_mb,
                reprice=False,  # no comparison reads the recomputed cost
            )
            hashes = [f["content_hash"] for f in (*report.loaded, *report.skipped)]
            rows = con.execute(
                "SELECT run_id FROM runs WHERE content_hash IN (SELECT unnest($h))"
                " AND starts_with(run_id, $p) ORDER BY run_id",
                {"h": hashes, "p": prefix},
            ).fetchall()
            if not rows:
                raise InputError(", ".join(map(str, paths)), "holds no runs to compare")
            sides.append([r[0] for r in rows])
        pairing = pair_runs(con, sides[0], sides[1], same_batch=False, keys=pair_by)
        if not pairing.pairs:
            where = f"{_shown(baseline)} .. {_shown(candidate)}"
            raise nothing_paired(con, where, sides[0], sides[1], pairing.keys)
        return compare_pairing(
            con,
            pairing,
            thresholds,
            with_steps=with_steps,
            steps_later=steps_later,
            progress=progress,
        )
    finally:
        if own:
            con.close()


def _shown(paths: Iterable[str | Path]) -> str:
    return ", ".join(map(str, paths))


_STEP_FIELDS = (
    "type", "action", "status", "input", "output", "tokens_in", "tokens_out", "cost_usd",
    "latency_ms", "error",
)  # fmt: skip


def _parsed(texts: list[str | None]) -> list[Any]:
    """Each JSON text parsed, None kept; equal texts share one parsed value (parsed once)."""
    values: dict[str | None, Any] = {t: json.loads(t) for t in set(texts) if t is not None}
    values[None] = None
    return [values[t] for t in texts]


def _attach_steps(con: duckdb.DuckDBPyConnection, results: list[PairRecord]) -> None:
    """Give every step_diffs row the steps it pairs (type, action, status, input, output and
    numbers), read in one query as columns. The step dicts, and parsed inputs and outputs of
    equal text, are shared between the rows that show them: read them, never change them."""
    run_ids = sorted({r[k] for r in results for k in ("baseline_run_id", "candidate_run_id")})
    if not run_ids:
        return
    table = con.sql(load_sql("steps_for_runs"), params={"run_ids": run_ids}).to_arrow_table()
    with collector_paused():
        columns = [table[name].to_pylist() for name in _STEP_FIELDS]
        for k in (_STEP_FIELDS.index("input"), _STEP_FIELDS.index("output")):
            columns[k] = _parsed(columns[k])
        steps = [
            {
                "type": typ, "action": action, "status": status, "input": inp, "output": out,
                "tokens_in": t_in, "tokens_out": t_out, "cost_usd": cost, "latency_ms": latency,
                "error": error,
            }
            for typ, action, status, inp, out, t_in, t_out, cost, latency, error in zip(
                *columns, strict=True
            )
        ]  # fmt: skip
        keys = zip(table["run_id"].to_pylist(), table["idx"].to_pylist(), strict=True)
        by_key = dict(zip(keys, steps, strict=True))
        for result in results:
            b_run, c_run = result["baseline_run_id"], result["candidate_run_id"]
            for row in result["step_diffs"]:
                b, c = row["baseline_index"], row["candidate_index"]
                b_step = None if b is None else by_key.get((b_run, b))
                c_step = None if c is None else by_key.get((c_run, c))
                row["baseline_step"], row["candidate_step"] = b_step, c_step
                if row["status"] == "modified":  # AgentDiff's per-key input diff
                    row["argument_diff"] = argument_diff(
                        None if b_step is None else b_step["input"],
                        None if c_step is None else c_step["input"],
                    )


def latest_shared_batch(
    con: duckdb.DuckDBPyConnection, baseline_label: str, candidate_label: str
) -> str:
    """The newest batch holding runs of both labels (what a nightly gate looks at)."""
    row = first_row(
        con, load_sql("latest_shared_batch"), {"b": baseline_label, "c": candidate_label}
    )
    if row is None or row[0] is None:
        raise InputError(
            "archive", f"no batch holds runs of both {baseline_label!r} and {candidate_label!r}"
        )
    return str(row[0])


def latest_batch(con: duckdb.DuckDBPyConnection, label: str) -> str:
    """The newest batch holding runs of ``label`` (e.g. main's latest night, for a PR)."""
    row = first_row(con, load_sql("latest_batch"), {"label": label})
    if row is None or row[0] is None:
        raise InputError("archive", f"no runs of label {label!r}")
    return str(row[0])
