"""Read what the site shows from the archive, once per build, through the site_*.sql files;
each comparison is the evaluation ``compare`` and ``gate`` make (:mod:`reportgen.evaluation`):
pairs, metrics and verdicts are never assembled here."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import duckdb

from reportgen._sql import load_sql
from reportgen.divergence import run_text
from reportgen.divergence.compare import Comparison as Evaluation
from reportgen.divergence.pairing import Unpaired
from reportgen.divergence.records import PairRecord
from reportgen.evaluation import Judging, evaluate_labels, judged
from reportgen.site import paths
from reportgen.site.evalcache import EvaluationCache, NightResult, every_night
from reportgen.site.pages_convergence import ConvergenceData, load_convergence
from reportgen.site.pages_iterations import IterationData, load_iterations
from reportgen.spend import SpendReport, avoidable_spend
from reportgen.statistics.reliability import ReliabilityProfile, reliability_profiles


@dataclass(frozen=True, slots=True)
class PairInfo:
    """A compared pair with where it lives in the archive and on the site."""

    pair_id: str
    suite: str
    task_id: str
    batch: str
    trial: int
    baseline_run_id: str
    candidate_run_id: str
    path: str
    metrics: PairRecord
    title: str | None = None  # the task's name: the candidate run's title, else the baseline's


@dataclass(frozen=True)
class Comparison:
    """One baseline label against one candidate label: its pairs (with metrics), the runs
    left unpaired, each run's pair and each task's baseline noise floor of divergence."""

    baseline_label: str
    candidate_label: str
    pairs: list[PairInfo]
    unpaired: list[Unpaired]
    pair_of_run: dict[str, PairInfo]
    repeat_tdi: dict[str, float]
    latest: Evaluation | None = None  # the latest night's evaluation, as `gate` makes it
    nights: Mapping[str | None, NightResult] = field(default_factory=dict)  # evalcache.py

    @property
    def name(self) -> str:
        """``BASE..CAND``, as ``--compare`` spells it."""
        return f"{self.baseline_label}..{self.candidate_label}"


@dataclass
class SiteData:
    """Everything the page builders need, keyed for quick lookup. The baseline/candidate
    fields are those of one comparison (the first); ``comparisons`` holds every one, and
    ``for_comparison`` gives the same data seen through another."""

    baseline_label: str
    candidate_label: str
    runs: list[dict[str, Any]]
    runs_by_id: dict[str, dict[str, Any]]
    steps: Mapping[str, list[dict[str, Any]]]  # run id -> steps (NightSteps: read on demand)
    nightly: list[dict[str, Any]]
    pairs: list[PairInfo]
    unpaired: list[Unpaired]
    pair_of_run: dict[str, PairInfo] = field(default_factory=dict)
    step_hashes: dict[str, str] = field(default_factory=dict)
    iterations: IterationData = field(default_factory=IterationData)
    convergence: ConvergenceData = field(default_factory=ConvergenceData)
    suite_notes: dict[str, list[str]] = field(default_factory=dict)  # suite -> Markdown texts
    repeat_tdi: dict[str, float] = field(default_factory=dict)  # suite/task -> A/A TDI, latest
    spend: SpendReport | None = None  # avoidable spend of the runs with run pages (reportgen.spend)
    spend_nights: int | None = None  # the nights ``spend`` covers, when not every night
    latest: Evaluation | None = None  # the comparison's latest night, as `gate` evaluates it
    comparisons: list[Comparison] = field(default_factory=list)
    chosen_by: str = ""  # how the comparisons were chosen, in words for the index
    redact_notes: bool = True  # README notes redacted after rendering too (build's policy)
    reliability: list[ReliabilityProfile] = field(default_factory=list)  # per suite, label, night
    nights: Mapping[str | None, NightResult] = field(default_factory=dict)  # the comparison's

    def for_comparison(self, comparison: Comparison) -> SiteData:
        """This data with ``comparison`` as its baseline/candidate (nothing copied)."""
        return replace(
            self,
            baseline_label=comparison.baseline_label,
            candidate_label=comparison.candidate_label,
            pairs=comparison.pairs,
            unpaired=comparison.unpaired,
            pair_of_run=comparison.pair_of_run,
            repeat_tdi=comparison.repeat_tdi,
            latest=comparison.latest,
            nights=comparison.nights,
        )

    @cached_property
    def suites(self) -> list[str]:
        """Suite names, sorted (``runs`` is not changed once loaded)."""
        return sorted({r["suite"] for r in self.runs})

    @property
    def has_comparison(self) -> bool:
        """True when both labels have runs (so the comparison pages exist)."""
        labels = {r["label"] for r in self.runs}
        return self.baseline_label in labels and self.candidate_label in labels


def asdict_shallow(info: PairInfo) -> dict[str, Any]:
    """A pair's fields as a dict (values not copied)."""
    return {name: getattr(info, name) for name in info.__dataclass_fields__}


_IDS_SQL = """
SELECT DISTINCT id FROM (
    SELECT unnest([run_id, suite, label, task_id, batch]) AS id FROM runs
    UNION ALL SELECT run_id FROM iterations
    UNION ALL SELECT unnest([run_id, suite, label, task_id, batch]) FROM outputs
) WHERE id IS NOT NULL ORDER BY id
"""


def archive_ids(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every id the site may name a page after (runs, suites, labels, tasks, nights)."""
    return [str(row[0]) for row in con.execute(_IDS_SQL).fetchall()]


def _rows(
    con: duckdb.DuckDBPyConnection, name: str, params: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Rows of a site_*.sql query as dicts."""
    result: list[dict[str, Any]] = (
        con.sql(load_sql(name), params=params).to_arrow_table().to_pylist()
    )
    return result


class NightSteps(Mapping[str, list[dict[str, Any]]]):
    """Each run's steps (site_steps.sql), read from the archive a night at a time when a
    page of that night first asks: an incremental build renders the pages of the new night
    only, so it reads that night's steps, not every kept night's. Runs of nights without step
    pages (``step_nights``, retention.py) have none. The connection stays open while pages
    are built (build_site)."""

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        runs_by_id: Mapping[str, Mapping[str, Any]],
        step_nights: Collection[str] | None,
    ) -> None:
        self._con = con
        self._night = {run_id: run["batch"] for run_id, run in runs_by_id.items()}
        self._nights = None if step_nights is None else set(step_nights)
        self._read: dict[str | None, dict[str, list[dict[str, Any]]]] = {}

    def _of_night(self, night: str | None) -> dict[str, list[dict[str, Any]]]:
        held = self._read.get(night, None)
        if held is None:
            held = self._read[night] = defaultdict(list)
            if self._nights is None or night in self._nights:
                ids = sorted(r for r, n in self._night.items() if n == night)
                for step in _rows(self._con, "site_steps", {"run_ids": ids}):
                    held[step["run_id"]].append(step)
        return held

    def __getitem__(self, run_id: str) -> list[dict[str, Any]]:
        if run_id not in self._night:
            raise KeyError(run_id)
        steps = self._of_night(self._night[run_id]).get(run_id)
        if steps is None:
            raise KeyError(run_id)
        return steps

    def __iter__(self) -> Iterator[str]:
        return (r for r in self._night if r in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _pairs(
    con: duckdb.DuckDBPyConnection,
    runs_by_id: dict[str, dict[str, Any]],
    base: str,
    cand: str,
    step_nights: Collection[str] | None,
    cache: EvaluationCache | None,
) -> tuple[list[PairInfo], list[Unpaired], Evaluation | None, dict[str | None, NightResult]]:
    """The two labels evaluated night by night (every pair with its metrics and outcomes, the
    unpaired runs; the trajectory findings of the pairs of ``step_nights``, whose pair pages
    show them), and the latest night evaluated on its own, as ``reportgen gate`` evaluates
    it (its verdicts, headline and each task's noise floor of divergence). Nights unchanged
    since ``cache`` was written are read from it (evalcache.py)."""
    night_of = {run_id: run["batch"] for run_id, run in runs_by_id.items()}
    every, nights = every_night(con, base, cand, night_of, step_nights, cache)
    latest = None
    if every.pairs:
        night = max(runs_by_id[p["baseline_run_id"]]["batch"] for p in every.pairs)
        latest = _latest_night(con, every, runs_by_id, base, cand, night)
    infos: list[PairInfo] = []
    # pairs sharing suite, task, night and trial are numbered in order (never parsed back out
    # of the pair id: a task id may hold "~" itself)
    seen: dict[tuple[str, str, str, int], int] = {}
    for values in every.pairs:
        run = runs_by_id[values["baseline_run_id"]]
        key = (run["suite"], values["task_id"], run["batch"], run["trial"])
        duplicate = seen[key] = seen.get(key, 0) + 1
        path = paths.pair_path(
            base, cand, run["suite"], values["task_id"], run["batch"], run["trial"], duplicate
        )
        infos.append(
            PairInfo(
                values["pair_id"],
                run["suite"],
                values["task_id"],
                run["batch"],
                run["trial"],
                values["baseline_run_id"],
                values["candidate_run_id"],
                path,
                values,
                run_text.title(runs_by_id[values["candidate_run_id"]]["meta"])
                or run_text.title(run["meta"]),
            )
        )
    return infos, every.unpaired, latest, nights


def _latest_night(
    con: duckdb.DuckDBPyConnection,
    every: Evaluation,
    runs_by_id: dict[str, dict[str, Any]],
    base: str,
    cand: str,
    night: str,
) -> Evaluation:
    """``night`` evaluated as ``gate --batch NIGHT`` evaluates it. Its pairs are those of the
    every-night evaluation ``every`` on that night, so they are judged again, not computed
    again; only a night where a task has two baseline runs or more (whose A/A divergence is
    the task's noise floor, a pair of baseline runs ``every`` did not compute) is evaluated
    anew."""
    pairs = [p for p in every.pairs if runs_by_id[p["baseline_run_id"]]["batch"] == night]
    keys = {
        p["pair_id"]: f"{runs_by_id[p['baseline_run_id']]['suite']}/{p['task_id']}" for p in pairs
    }
    runs_of_task: dict[str, set[str]] = defaultdict(set)
    for p in pairs:
        runs_of_task[keys[p["pair_id"]]].add(p["baseline_run_id"])
    if any(len(ids) > 1 for ids in runs_of_task.values()):
        return evaluate_labels(
            con, base, cand, baseline_batch=night, candidate_batch=night, with_steps=False
        )
    judging = Judging()
    latest = Evaluation(
        pairs,
        [u for u in every.unpaired if u.batch == night],
        every.paired_by,
        list(judging.thresholds),
        task_keys=keys,
    )
    return judged(latest, judging)


def _suite_notes(con: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    """Each suite's README notes (archives made before notes existed have none)."""
    exists = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'suite_notes'"
    ).fetchall()[0][0]
    notes: dict[str, list[str]] = defaultdict(list)
    if exists:
        for suite, text in con.execute(
            "SELECT suite, text FROM suite_notes ORDER BY suite, path"
        ).fetchall():
            notes[suite].append(text)
    return dict(notes)


def _comparison(
    con: duckdb.DuckDBPyConnection,
    runs_by_id: dict[str, dict[str, Any]],
    base: str,
    cand: str,
    step_nights: Collection[str] | None,
    cache: EvaluationCache | None,
) -> Comparison:
    """One label pair's comparison (see ``_pairs``)."""
    pairs, unpaired, latest, nights = _pairs(con, runs_by_id, base, cand, step_nights, cache)
    of_run: dict[str, PairInfo] = {}
    for info in pairs:
        of_run[info.baseline_run_id] = info
        of_run[info.candidate_run_id] = info
    floors = {} if latest is None else latest.repeat_tdi
    return Comparison(base, cand, pairs, unpaired, of_run, floors, latest, nights)


def _runs_of(runs: Sequence[Mapping[str, Any]], nights: Collection[str | None]) -> list[str]:
    """The ids of the runs of ``nights``."""
    wanted = set(nights)
    return [r["run_id"] for r in runs if r["batch"] in wanted]


def load_site_data(
    con: duckdb.DuckDBPyConnection,
    baseline_label: str,
    candidate_label: str,
    step_nights: Collection[str] | None = None,
    *,
    compare: Sequence[tuple[str, str]] | None = None,
    chosen_by: str = "",
    cache: EvaluationCache | None = None,
) -> SiteData:
    """Load runs, steps, the nightly series and the comparisons (``compare``: label pairs,
    default the one of ``baseline_label`` and ``candidate_label``; the first is the site's
    main one); the steps only of the runs of ``step_nights`` when given (the nights with step
    pages)."""
    con.execute(load_sql("run_resolved"))  # the table macro site_runs and site_nightly read
    runs = _rows(con, "site_runs")
    runs_by_id = {r["run_id"]: r for r in runs}
    wanted = list(compare) if compare else [(baseline_label, candidate_label)]
    comparisons = [_comparison(con, runs_by_id, b, c, step_nights, cache) for b, c in wanted]
    main = comparisons[0]
    data = SiteData(
        baseline_label=main.baseline_label,
        candidate_label=main.candidate_label,
        runs=runs,
        runs_by_id=runs_by_id,
        steps=NightSteps(con, runs_by_id, step_nights),
        nightly=_rows(con, "site_nightly"),
        pairs=main.pairs,
        unpaired=main.unpaired,
        pair_of_run=main.pair_of_run,
        repeat_tdi=main.repeat_tdi,
        latest=main.latest,
        nights=main.nights,
        comparisons=comparisons,
        chosen_by=chosen_by,
    )
    paged_ids = [] if step_nights is None else _runs_of(runs, step_nights)
    paged_runs = {"all_runs": step_nights is None, "run_ids": paged_ids}
    data.step_hashes = {
        r["run_id"]: r["steps_hash"] for r in _rows(con, "site_step_hashes", paged_runs)
    }
    data.suite_notes = _suite_notes(con)
    data.iterations = load_iterations(con)
    data.convergence = load_convergence(con)
    all_nights = {r["batch"] for r in runs}
    paged = all_nights if step_nights is None else all_nights & set(step_nights)
    spent = None if paged == all_nights else _runs_of(runs, paged)
    data.spend = avoidable_spend(con, spent)  # the runs with run pages: their findings show
    data.spend_nights = None if spent is None else len(paged)
    data.reliability = reliability_profiles(con, by_suite=True)
    return data
