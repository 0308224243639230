"""Trajectory findings of a pair that know the baseline's own noise: each finding (a tool
called anew, a step added or removed, an argument changed, a reorder, a status flip, a new
back-to-back repeat) carries its flap rate, the share of the baseline's own repeat pairs
(every ordered pair of distinct baseline runs of the same task and night) that show the same
finding. A finding the baseline's repeats (almost) never show is ``stable``: a change the
candidate made, not the agent's everyday variation. One query (``sql/finding_flaps.sql``)
computes the findings of every judged pair and of every repeat pair at once."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import isqrt
from typing import Final, Literal

import duckdb
import numpy as np
import pyarrow as pa

from reportgen._sql import load_sql
from reportgen.archive import arrow
from reportgen.divergence.records import FindingRecord

#: The kinds of finding, in the order --explain lists them.
KINDS: Final = (
    "new_tool",
    "step_added",
    "step_removed",
    "arg_changed",
    "status_flipped",
    "reordered",
    "new_loop",
)
#: A finding is stable when less than this share of the baseline's repeat pairs show it (with
#: fewer than 21 baseline runs: when none does).
MAX_FLAP_RATE: Final = 0.05
#: Fewer baseline runs of the task and night than this: too few repeats to tell (3 runs give
#: 6 ordered repeat pairs; 2 runs give one comparison, seen both ways).
MIN_REPEAT_RUNS: Final = 3
MIN_REPEAT_PAIRS: Final = MIN_REPEAT_RUNS * (MIN_REPEAT_RUNS - 1)

Verdict = Literal["stable", "flapping", "too_few_repeats"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One trajectory finding of a pair (``kind``, ``key``: its identity, e.g. ``new_tool``
    ``search_flights``), with the share of the baseline's ``repeat_pairs`` ordered repeat
    pairs that show it (``flap_rate``; None: no repeat pair) and whether it is ``stable``
    (None: too few repeats to tell). Fields in name order: ``--json`` writes them so."""

    flap_rate: float | None
    key: str
    kind: str
    repeat_pairs: int
    stable: bool | None

    def record(self) -> FindingRecord:
        """The finding as a pair record holds it (``--json``)."""
        return {
            "kind": self.kind,
            "key": self.key,
            "flap_rate": self.flap_rate,
            "repeat_pairs": self.repeat_pairs,
            "stable": self.stable,
        }

    @staticmethod
    def of_record(record: FindingRecord) -> Finding:
        return Finding(
            record["flap_rate"], record["key"], record["kind"], record["repeat_pairs"],
            record["stable"],
        )  # fmt: skip

    @property
    def rate_words(self) -> str:
        """The flap rate in words: "0 % of 12 repeat pairs", or "no repeat pairs"."""
        if self.flap_rate is None:
            return "no repeat pairs"
        return f"{100 * self.flap_rate:.0f} % of {self.repeat_pairs} repeat pairs"

    @property
    def verdict(self) -> Verdict:
        if self.stable is None:
            return "too_few_repeats"
        return "stable" if self.stable else "flapping"


def finding(kind: str, key: str, seen: int, n: int) -> Finding:
    """A finding seen in ``seen`` of ``n`` repeat pairs, judged by MAX_FLAP_RATE and
    MIN_REPEAT_PAIRS."""
    rate = seen / n if n else None
    stable = None if n < MIN_REPEAT_PAIRS or rate is None else rate < MAX_FLAP_RATE
    return Finding(rate, key, kind, n, stable)


@dataclass(frozen=True, slots=True)
class FlapPair:
    """A pair to judge: its baseline run, its candidate run and the group of baseline runs
    whose repeats it is judged against (e.g. ``suite/task/batch``)."""

    baseline_run_id: str
    candidate_run_id: str
    group: str


def pair_findings(
    con: duckdb.DuckDBPyConnection,
    pairs: Sequence[FlapPair],
    baseline_runs: Sequence[tuple[str, str]],
) -> list[list[Finding]]:
    """The findings of each pair (in ``pairs`` order; each list stable first, then by kind and
    key), each with its flap rate over the repeat pairs of the pair's group, whose runs
    ``baseline_runs`` lists as (run id, group)."""
    if not pairs:
        return []
    runs = sorted(set(baseline_runs))
    judged = arrow.table(
        {
            "pid": arrow.numbers(np.arange(len(pairs), dtype=np.int64), pa.int64()),
            "grp": arrow.strings([p.group for p in pairs]),
            "b": arrow.strings([p.baseline_run_id for p in pairs]),
            "c": arrow.strings([p.candidate_run_id for p in pairs]),
        }
    )
    groups = arrow.table(
        {"run_id": arrow.strings([r for r, _ in runs]), "grp": arrow.strings([g for _, g in runs])}
    )
    cursor = con.cursor()
    try:
        cursor.register("rg_flap_pairs", judged)
        cursor.register("rg_flap_runs", groups)
        table = cursor.sql(load_sql("finding_flaps")).to_arrow_table()
    finally:
        cursor.close()
    return _grouped(table, len(pairs))


_KIND_ORDER = {kind: at for at, kind in enumerate(KINDS)}


def _grouped(table: pa.Table, pairs: int) -> list[list[Finding]]:
    """The rows of ``finding_flaps.sql`` as each pair's findings: judged and ordered (stable,
    flapping, too few repeats; then by kind and key) column by column, then cut per pair."""
    # columns through lists: a ChunkedArray's to_numpy() and pa.array() import pandas
    seen = np.array(table["seen"].to_pylist(), dtype=np.int64)
    n = np.array(table["n"].to_pylist(), dtype=np.int64)
    rate = np.divide(seen, n, out=np.zeros(len(n)), where=n > 0)
    judged = n >= MIN_REPEAT_PAIRS
    stable = judged & (rate < MAX_FLAP_RATE)
    rank = np.where(judged, np.where(stable, 0, 1), 2)
    kind_list = table["kind"].to_pylist()
    kinds = np.array([_KIND_ORDER.get(k, len(KINDS)) for k in kind_list], dtype=np.int64)
    pid = np.array(table["pid"].to_pylist(), dtype=np.int64)
    # the SQL orders by pid, kind, key: a stable sort on (pid, rank, kind order) keeps the keys
    at = np.lexsort((kinds, rank, pid))
    order = at.tolist()
    keys = table["key"].to_pylist()
    rates, counts = rate[at].tolist(), n[at].tolist()
    stables, judges = stable[at].tolist(), judged[at].tolist()
    made = [
        Finding(None if c == 0 else r, keys[i], kind_list[i], c, s if j else None)
        for i, r, c, s, j in zip(order, rates, counts, stables, judges, strict=True)
    ]
    cuts = np.searchsorted(pid[at], np.arange(pairs + 1)).tolist()
    return [made[cuts[k] : cuts[k + 1]] for k in range(pairs)]


def baseline_runs(repeat_pairs: int) -> int:
    """The baseline runs m whose ordered repeat pairs number ``repeat_pairs`` = m (m - 1) (the
    pair's own baseline run is one: at least 1)."""
    return (1 + isqrt(1 + 4 * repeat_pairs)) // 2


def rate_text(item: Finding) -> str:
    """A finding's flap rate in words: "0 % of 12 repeat pairs", or "no repeat pairs"."""
    return item.rate_words


def describe(item: Finding) -> str:
    """A finding in words, e.g. "new_tool search_flights (0 % of 12 repeat pairs)"."""
    return f"{item.kind} {item.key} ({rate_text(item)})"


@dataclass(frozen=True, slots=True)
class FindingsSummary:
    """A pair's findings as every report shows them (``--explain``, the Markdown, the pair
    page): the stable ones by name, the flapping ones counted and folded, those with too few
    baseline repeats said so; read from the pair record's ``findings`` (never recomputed)."""

    stable: tuple[Finding, ...]
    flapping: tuple[Finding, ...]
    unjudged: tuple[Finding, ...]  # too few baseline repeats to tell

    @property
    def total(self) -> int:
        return len(self.stable) + len(self.flapping) + len(self.unjudged)

    @property
    def headline(self) -> str:
        """ "Findings: 2 stable of 7.", or that there is none."""
        if not self.total:
            return "Findings: none (same tools, as often, in the same order, same arguments)."
        return f"Findings: {len(self.stable)} stable of {self.total}."

    @property
    def flapping_line(self) -> str | None:
        """ "3 flapping finding(s) folded (seen in 17-100 % of the baseline's own repeats)"."""
        if not self.flapping:
            return None
        rates = sorted(round(100 * (f.flap_rate or 0)) for f in self.flapping)
        shown = f"{rates[0]}" if rates[0] == rates[-1] else f"{rates[0]}-{rates[-1]}"
        return (
            f"{len(self.flapping)} flapping finding(s) folded (seen in {shown} % of the"
            " baseline's own repeats)"
        )

    @property
    def unjudged_line(self) -> str | None:
        """ "7 finding(s) not judged: too few baseline repeats (n=1 baseline run; 3 needed)"."""
        if not self.unjudged:
            return None
        runs = max(baseline_runs(f.repeat_pairs) for f in self.unjudged)
        return (
            f"{len(self.unjudged)} finding(s) not judged: too few baseline repeats (n={runs}"
            f" baseline run{'s' if runs != 1 else ''}; {MIN_REPEAT_RUNS} needed)"
        )

    @property
    def folded(self) -> str | None:
        """What is folded, in one line (None: nothing)."""
        parts = [x for x in (self.flapping_line, self.unjudged_line) if x]
        return "; ".join(parts) if parts else None

    def detail_lines(self, describe: Callable[[Finding], str], shown: int, lead: str) -> list[str]:
        """The lines under the headline: the first ``shown`` stable findings (``describe``d),
        how many more there are, and what is folded; each line led by ``lead``."""
        lines = [f"{lead}stable: {describe(f)}" for f in self.stable[:shown]]
        if len(self.stable) > shown:
            lines.append(f"{lead}... {len(self.stable) - shown} more stable finding(s)")
        if self.folded:
            lines.append(f"{lead}{self.folded}.")
        return lines


def summary(records: Sequence[FindingRecord]) -> FindingsSummary:
    """A pair record's ``findings`` as :class:`FindingsSummary` (their order kept: stable
    first, then by kind and key)."""
    found = [Finding.of_record(r) for r in records]
    return FindingsSummary(
        tuple(f for f in found if f.verdict == "stable"),
        tuple(f for f in found if f.verdict == "flapping"),
        tuple(f for f in found if f.verdict == "too_few_repeats"),
    )


def folded_line(findings: Sequence[Finding]) -> str | None:
    """What the flapping findings of a pair fold into, in one line (None: nothing folded):
    "3 flapping finding(s) folded (seen in 17-100 % of the baseline's own repeats)", or "7
    finding(s) not judged: too few baseline repeats (n=2 baseline runs; 3 needed)"."""
    return summary([f.record() for f in findings]).folded
