"""Divergence metrics for one baseline/candidate pair of step sequences.

Pure functions over small dataclasses: step signatures, LCS length and alignment, TDI, WEI,
recovery windows (RSR), loops, resource deltas and the aligned step diff. The archive path
(``divergence.pair_metrics``: SQL plus the vectorised kernels of ``udfs``) computes the same
numbers for many pairs at once; these functions are the slow reference it is tested against.
"""

from __future__ import annotations

import json
import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from rapidfuzz.distance import LCSseq

JSONValue = Any
Signature = tuple[str, str, tuple[str, ...]]
Side = Literal["baseline", "candidate"]
DiffStatus = Literal["matched", "added", "removed", "modified"]
AlignedIndices = tuple[int | None, int | None]

WASTED_STATUSES: Final = frozenset({"error", "retry", "abandoned"})

#: Why a resource delta is null; the SQL path reports the same codes.
DELTA_NOTES: Final[dict[str, str]] = {
    "baseline_unknown": "baseline {what} unknown (given neither by the run nor by its steps)",
    "candidate_unknown": "candidate {what} unknown (given neither by the run nor by its steps)",
    "baseline_zero": "baseline {what} is 0, so a percentage change is undefined",
    "not_finite": "the percentage change of {what} is too large to represent as a number",
}


def normalise_status(status: str) -> str:
    """Map the accepted spellings of a status to the stored one (``success`` is ``ok``)."""
    return "ok" if status == "success" else status


def canonical_value(value: JSONValue) -> JSONValue:
    """A payload as the value Python's ``==`` compares: objects with their keys sorted, and a
    float that equals an integer (``1.0``, ``-0.0``, ``1e2``) as that integer. Booleans stay
    booleans (``true`` is not ``1`` here, unlike Python; docs/agentdiff-parity.md)."""
    if isinstance(value, dict):
        return {k: canonical_value(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [canonical_value(v) for v in value]
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return value


def canonical_json(value: JSONValue) -> str:
    """Compact JSON text of a payload's canonical value: two payloads are equal (as AgentDiff's
    Python ``==`` says, key order and ``1`` vs ``1.0`` aside) exactly when these texts are."""
    return json.dumps(canonical_value(value), separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a trajectory, as the native trace format gives it (numbers: None = absent)."""

    type: str
    action: str
    input: JSONValue = None
    output: JSONValue = None
    status: str = "ok"
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    latency_ms: float | None = None
    parent: int | None = None  # index of the enclosing step in the run (any index; may cycle)
    error: str | None = None  # the error message, apart from the output (AgentDiff's error_message)

    @property
    def signature(self) -> Signature:
        """``(type, action, sorted top-level input keys)``: steps match when these are equal."""
        keys = tuple(sorted(self.input)) if isinstance(self.input, dict) else ()
        return (self.type, self.action, keys)

    @property
    def wasted(self) -> bool:
        """True for error, retry and abandoned steps (WEI counts these; they open RSR windows)."""
        return normalise_status(self.status) in WASTED_STATUSES

    @property
    def payload(self) -> tuple[str, str]:
        """Input and output as canonical JSON text, for stagnant loops and modified diffs."""
        return (canonical_json(self.input), canonical_json(self.output))


@dataclass(frozen=True, slots=True)
class Run:
    """A trajectory plus the run totals its trace gives (None = not given: sum the steps)."""

    steps: Sequence[Step] = ()
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    latency_ms: float | None = None


@dataclass(frozen=True, slots=True)
class Totals:
    """Resource totals of a run; None means unknown (neither the run nor a step gave it)."""

    tokens: int | None
    cost_usd: float | None
    latency_ms: float | None


@dataclass(frozen=True, slots=True)
class Loop:
    """A block of ``length`` steps repeated ``iterations`` times back to back from ``start_index``."""

    side: Side
    start_index: int
    length: int
    iterations: int
    steps: list[str] = field(default_factory=list)
    stagnant: bool = False

    def as_dict(self) -> dict[str, Any]:
        """The JSON contract form of the loop."""
        return {
            "side": self.side,
            "start_index": self.start_index,
            "length": self.length,
            "iterations": self.iterations,
            "steps": list(self.steps),
            "stagnant": self.stagnant,
        }


@dataclass(frozen=True, slots=True)
class StepDiff:
    """One row of the aligned diff: which steps of each side it pairs and how they compare."""

    status: DiffStatus
    baseline_index: int | None
    candidate_index: int | None
    action: str
    argument_diff: dict[str, Any] | None = None  # modified rows: the per-key input diff
    with_argument_diff: bool = False

    def as_dict(self) -> dict[str, Any]:
        """The JSON contract form of the diff row (``argument_diff`` on modified rows, when
        asked for)."""
        row: dict[str, Any] = {
            "status": self.status,
            "baseline_index": self.baseline_index,
            "candidate_index": self.candidate_index,
            "action": self.action,
        }
        if self.status == "modified" and self.with_argument_diff:
            row["argument_diff"] = self.argument_diff
        return row


# --------------------------------------------------------------------------- LCS and alignment


def _intern(a: Sequence[Hashable], b: Sequence[Hashable]) -> tuple[list[int], list[int]]:
    """Replace hashable items by small ints (equal items, equal ints) so comparisons are exact."""
    ids: dict[Hashable, int] = {}
    ia = [ids.setdefault(x, len(ids)) for x in a]
    ib = [ids.setdefault(x, len(ids)) for x in b]
    return ia, ib


def lcs_length(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Length of the longest common subsequence of two sequences (rapidfuzz, bit-parallel C++)."""
    if not a or not b:
        return 0
    ia, ib = _intern(a, b)
    return int(LCSseq.similarity(ia, ib))


def _dp_rows(a: Sequence[int], b: Sequence[int]) -> list[int]:
    """Every row of the LCS table as a bit vector, computed bit-parallel (Hyyro 2004).

    Bit ``j`` of row ``i`` is 0 exactly when ``dp[i][j + 1] = dp[i][j] + 1``, so
    ``dp[i][j] = j - popcount(row_i & (2**j - 1))``. One row costs a few big-int operations,
    O(len(b) / 64) machine words each, instead of len(b) Python steps."""
    mask = (1 << len(b)) - 1
    match: dict[int, int] = {}
    for j, x in enumerate(b):
        match[x] = match.get(x, 0) | (1 << j)
    row = mask
    rows = [row]
    for x in a:
        u = row & match.get(x, 0)
        row = ((row + u) | (row - u)) & mask
        rows.append(row)
    return rows


def align_ids(a: Sequence[int], b: Sequence[int]) -> list[AlignedIndices]:
    """The DESIGN.md traceback over integer ids (equal ids, equivalent steps); see :func:`align`."""
    rows = _dp_rows(a, b)
    out: list[AlignedIndices] = []
    i, j = len(a), len(b)
    while i > 0 and j > 0:
        if a[i - 1] == b[j - 1]:
            i -= 1
            j -= 1
            out.append((i, j))
            continue
        left = (j - 1) - (rows[i] & ((1 << (j - 1)) - 1)).bit_count()  # dp[i][j-1]
        up = j - (rows[i - 1] & ((1 << j) - 1)).bit_count()  # dp[i-1][j]
        if left >= up:
            j -= 1
            out.append((None, j))
        else:
            i -= 1
            out.append((i, None))
    out.extend((None, jj) for jj in range(j - 1, -1, -1))
    out.extend((ii, None) for ii in range(i - 1, -1, -1))
    out.reverse()
    return out


def align(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[AlignedIndices]:
    """LCS alignment of baseline ``a`` and candidate ``b`` as (baseline idx, candidate idx) pairs.

    Exactly the DESIGN.md traceback from the end: match when the current items are equal, else
    step back in the candidate when ``dp[i][j-1] >= dp[i-1][j]``, else in the baseline. Pairs with
    both indices are matches; ``(i, None)`` is a removed and ``(None, j)`` an added step."""
    ia, ib = _intern(a, b)
    return align_ids(ia, ib)


def alignment_order(parents: Sequence[int | None]) -> tuple[list[int], bool]:
    """The order AgentDiff aligns a run's steps in, and whether the parent graph has a cycle.

    networkx's topological sort of the parent -> child graph, generation by generation: every
    root (no parent, or a parent outside the run) in step order, then the children of the
    first generation (parent by parent in that generation's order, each parent's children in
    step order), and so on. A cycle (a step its own ancestor) gives step order instead."""
    n = len(parents)
    children: list[list[int]] = [[] for _ in range(n)]
    roots: list[int] = []
    for i, p in enumerate(parents):
        if p is None or not 0 <= p < n:
            roots.append(i)
        else:
            children[p].append(i)
    order: list[int] = []
    generation = roots
    while generation:
        order.extend(generation)
        generation = [c for node in generation for c in children[node]]
    if len(order) < n:  # the steps left out lie on or below a cycle
        return list(range(n)), True
    return order, False


def first_divergence(a: Sequence[Hashable], b: Sequence[Hashable]) -> int | None:
    """Where two aligned step sequences first differ: the length of their common prefix, or
    None when they are equal (whatever the LCS traceback pairs, this is the first step at
    which the runs took different paths)."""
    k = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            return k
        k += 1
    return None if len(a) == len(b) else k


def identical_calls(steps: Sequence[Step]) -> int:
    """Steps that repeat an earlier step of the run with the same signature, the same
    canonical input and the same canonical output, anywhere in the run (not only back to
    back): the same file read three times unchanged is two identical calls."""
    seen: set[tuple[Signature, tuple[str, str]]] = set()
    count = 0
    for s in steps:
        key = (s.signature, s.payload)
        if key in seen:
            count += 1
        seen.add(key)
    return count


def argument_diff(before: JSONValue, after: JSONValue) -> dict[str, Any] | None:
    """AgentDiff's per-key diff of two inputs (objects; anything else counts as ``{}``):
    ``added`` (new_value), ``removed`` (old_value), ``changed`` (both), keys sorted; None
    when no key differs. Values compare as canonical values."""
    a = before if isinstance(before, dict) else {}
    b = after if isinstance(after, dict) else {}
    out: dict[str, Any] = {}
    for k in sorted(set(a) | set(b)):
        if k not in a:
            out[k] = {"status": "added", "new_value": b[k]}
        elif k not in b:
            out[k] = {"status": "removed", "old_value": a[k]}
        elif not _same_value(a[k], b[k]):
            out[k] = {"status": "changed", "old_value": a[k], "new_value": b[k]}
    return out or None


_PLAIN = (str, int)


def _same_value(x: JSONValue, y: JSONValue) -> bool:
    """``canonical_json(x) == canonical_json(y)``, without the encoding when both are strings
    or both plain ints (exact types: a bool is no int here), the usual input values."""
    kind = x.__class__
    if kind is y.__class__ and kind in _PLAIN:
        return bool(x == y)
    return canonical_json(x) == canonical_json(y)


# --------------------------------------------------------------------------- scalar metrics


def tdi(len_a: int, len_b: int, lcs: int) -> float:
    """Trajectory Divergence Index ``1 - 2*LCS / (|A| + |B|)``; two empty traces give 0.0.

    As AgentDiff's ``calculate_tdi``: a negative count raises ValueError, and an LCS longer
    than the shorter trace is clamped to it, so the result is always in [0, 1]."""
    if len_a < 0 or len_b < 0 or lcs < 0:
        raise ValueError("Step and LCS counts must be non-negative")
    total = len_a + len_b
    if total == 0:
        return 0.0
    return 1.0 - (2.0 * min(lcs, len_a, len_b)) / total


def wei(statuses: Sequence[str]) -> float:
    """Wasted Effort Index: share of error/retry/abandoned steps; 0.0 for an empty run."""
    if not statuses:
        return 0.0
    wasted = sum(1 for s in statuses if normalise_status(s) in WASTED_STATUSES)
    return wasted / len(statuses)


def recovery_flags(wasted: Sequence[bool], aligned: Sequence[bool]) -> tuple[int, int]:
    """RSR window walk over one side's steps in order: (recovery steps, unrecovered steps).

    A wasted step opens the window and is not counted; each ok step while open counts one and,
    when aligned with the other run, closes the window. Counted steps whose window never closes
    are also reported as unrecovered."""
    counted = 0
    pending = 0  # counted steps of the window that is currently open
    open_ = False
    for is_wasted, is_aligned in zip(wasted, aligned, strict=True):
        if is_wasted:
            open_ = True
        elif open_:
            counted += 1
            pending += 1
            if is_aligned:
                open_ = False
                pending = 0
    return counted, (pending if open_ else 0)


def recovery(statuses: Sequence[str], aligned_flags: Sequence[bool]) -> tuple[int, int]:
    """Recovery and unrecovered steps of one run, from its statuses and aligned flags in order."""
    wasted = [normalise_status(s) in WASTED_STATUSES for s in statuses]
    return recovery_flags(wasted, aligned_flags)


def recovery_step_ratio(*, baseline: int, candidate: int) -> float:
    """Candidate over baseline recovery steps; both zero gives 0.0, a zero baseline the raw count."""
    if baseline <= 0 and candidate <= 0:
        return 0.0
    if baseline > 0:
        return candidate / baseline
    return float(candidate)


def pct_delta(
    baseline: float | None, candidate: float | None, what: str = "value"
) -> tuple[float | None, str | None]:
    """Percentage change from baseline to candidate, or (None, reason) when it is undefined.

    Undefined when either side is unknown or the baseline is 0 (no ``inf``, no made-up +100%),
    and when the change overflows a float (a tiny baseline, a huge candidate)."""
    code = delta_reason(baseline, candidate)
    if code is not None:
        return None, DELTA_NOTES[code].format(what=what)
    assert baseline is not None and candidate is not None
    try:
        value = ((candidate - baseline) / baseline) * 100.0
    except OverflowError:
        value = math.inf
    if not math.isfinite(value):
        return None, DELTA_NOTES["not_finite"].format(what=what)
    return value, None


def delta_reason(baseline: float | None, candidate: float | None) -> str | None:
    """The key of :data:`DELTA_NOTES` that makes a delta null, or None when it is defined."""
    if baseline is None:
        return "baseline_unknown"
    if candidate is None:
        return "candidate_unknown"
    if baseline == 0:
        return "baseline_zero"
    return None


# --------------------------------------------------------------------------- loops


def loop_blocks(signatures: Sequence[Hashable]) -> list[tuple[int, int, int]]:
    """Greedy scan for back-to-back repeats: (start, length, iterations) per loop, left to right.

    At each position the shortest block that is immediately repeated wins, repeats are counted,
    and the scan resumes after the last repeat (AgentDiff's scan). A block of length k can only
    repeat from i when item i recurs at i + k, so only those k are tried, and positions whose
    item does not recur within half the remaining length are skipped outright."""
    seq = list(signatures)
    n = len(seq)
    nxt = [n] * n  # next index holding the same item
    last: dict[Hashable, int] = {}
    for idx in range(n - 1, -1, -1):
        item = seq[idx]
        nxt[idx] = last.get(item, n)
        last[item] = idx
    blocks: list[tuple[int, int, int]] = []
    resume = 0
    for i in [i for i in range(n) if nxt[i] <= i + (n - i) // 2]:
        if i < resume:
            continue
        limit = i + (n - i) // 2
        p = nxt[i]
        while p <= limit:
            k = p - i
            pattern = seq[i:p]
            if seq[p : p + k] == pattern:
                end = p + k
                while end + k <= n and seq[end : end + k] == pattern:
                    end += k
                blocks.append((i, k, (end - i) // k))
                resume = end
                break
            p = nxt[p]
    return blocks


def is_stagnant(payloads: Sequence[Hashable], start: int, length: int, iterations: int) -> bool:
    """True when every repeat of the block has the same payload as the first iteration."""
    return all(
        payloads[start + t] == payloads[start + t % length]
        for t in range(length, length * iterations)
    )


def detect_loops(
    signatures: Sequence[Hashable],
    inputs: Sequence[Hashable],
    outputs: Sequence[Hashable],
    *,
    side: Side = "candidate",
    names: Sequence[str] | None = None,
) -> list[Loop]:
    """Loops of one run: blocks of steps whose signatures repeat back to back at least twice.

    ``stagnant`` when every repeat has the same input and output as the first iteration.
    ``names`` label the steps (default: the action of tuple signatures, else ``str(sig)``)."""
    if names is None:
        names = [s[1] if isinstance(s, tuple) and len(s) > 1 else str(s) for s in signatures]
    payloads = list(zip(inputs, outputs, strict=True))
    return [
        Loop(
            side=side,
            start_index=start,
            length=length,
            iterations=iters,
            steps=list(names[start : start + length]),
            stagnant=is_stagnant(payloads, start, length, iters),
        )
        for start, length, iters in loop_blocks(signatures)
    ]


# --------------------------------------------------------------------------- diffs and totals


def step_diffs(
    baseline: Sequence[Step],
    candidate: Sequence[Step],
    alignment: Iterable[AlignedIndices],
    *,
    argument_diffs: bool = False,
) -> list[StepDiff]:
    """The aligned diff: matched, or modified when the status, input, output or error message
    of a match differs (loops and identical calls ignore the message, as AgentDiff does); ``argument_diffs`` gives modified rows their per-key input diff (the JSON
    output adds it where it attaches the steps: reportgen.divergence.compare)."""
    out: list[StepDiff] = []
    for bi, ci in alignment:
        if bi is None:
            assert ci is not None
            out.append(StepDiff("added", None, ci, candidate[ci].action))
        elif ci is None:
            out.append(StepDiff("removed", bi, None, baseline[bi].action))
        else:
            b, c = baseline[bi], candidate[ci]
            same = (
                normalise_status(b.status) == normalise_status(c.status)
                and b.payload == c.payload
                and b.error == c.error
            )
            if same:
                out.append(StepDiff("matched", bi, ci, b.action))
            else:
                diff = argument_diff(b.input, c.input) if argument_diffs else None
                out.append(StepDiff("modified", bi, ci, b.action, diff, argument_diffs))
    return out


def _fold(values: Iterable[float | None]) -> float | None:
    """Left-to-right float sum of the given values (None when none is given); SQL folds alike."""
    acc: float | None = None
    for v in values:
        if v is not None:
            acc = (0.0 if acc is None else acc) + v
    return acc


def _int_sum(values: Iterable[int | None]) -> int | None:
    """Sum of the given ints, None when none is given."""
    given = [v for v in values if v is not None]
    return sum(given) if given else None


def run_totals(run: Run) -> Totals:
    """Run totals where the run gives them, else the sums of its steps; unknown stays None.

    A run without steps that gives no total spent nothing: its totals are 0, not unknown."""
    steps = run.steps
    if not steps:
        tokens = (
            None
            if run.tokens_in is None and run.tokens_out is None
            else (run.tokens_in or 0) + (run.tokens_out or 0)
        )
        return Totals(
            tokens=0 if tokens is None else tokens,
            cost_usd=0.0 if run.cost_usd is None else run.cost_usd,
            latency_ms=0.0 if run.latency_ms is None else run.latency_ms,
        )
    t_in = run.tokens_in if run.tokens_in is not None else _int_sum(s.tokens_in for s in steps)
    t_out = run.tokens_out if run.tokens_out is not None else _int_sum(s.tokens_out for s in steps)
    tokens = None if t_in is None and t_out is None else (t_in or 0) + (t_out or 0)
    cost = run.cost_usd if run.cost_usd is not None else _fold(s.cost_usd for s in steps)
    latency = run.latency_ms if run.latency_ms is not None else _fold(s.latency_ms for s in steps)
    return Totals(tokens=tokens, cost_usd=cost, latency_ms=latency)


# --------------------------------------------------------------------------- one pair


def _as_run(x: Run | Sequence[Step]) -> Run:
    """Accept a bare step list where no run totals are given."""
    return x if isinstance(x, Run) else Run(steps=tuple(x))


def compare_pair(
    baseline: Run | Sequence[Step],
    candidate: Run | Sequence[Step],
    *,
    argument_diffs: bool = False,
) -> dict[str, Any]:
    """Every divergence metric of one pair, in the JSON contract shape ``pair_metrics`` returns;
    ``argument_diffs``: modified rows also carry ``argument_diff``, as ``compare --json``
    gives them once the steps are attached."""
    base, cand = _as_run(baseline), _as_run(candidate)
    bs, cs = list(base.steps), list(cand.steps)
    b_sigs = [s.signature for s in bs]
    c_sigs = [s.signature for s in cs]
    # steps are aligned in AgentDiff's order (parents' generations); indices stay step indices
    b_order, b_cycle = alignment_order([s.parent for s in bs])
    c_order, c_cycle = alignment_order([s.parent for s in cs])
    b_seq = [b_sigs[i] for i in b_order]
    c_seq = [c_sigs[j] for j in c_order]
    alignment = [
        (None if bi is None else b_order[bi], None if ci is None else c_order[ci])
        for bi, ci in align(b_seq, c_seq)
    ]
    b_aligned = [False] * len(bs)
    c_aligned = [False] * len(cs)
    for bi, ci in alignment:
        if bi is not None and ci is not None:
            b_aligned[bi] = c_aligned[ci] = True
    b_rec, b_unrec = recovery_flags(
        [bs[i].wasted for i in b_order], [b_aligned[i] for i in b_order]
    )
    c_rec, c_unrec = recovery_flags(
        [cs[j].wasted for j in c_order], [c_aligned[j] for j in c_order]
    )
    first = first_divergence(b_seq, c_seq)

    sides: tuple[tuple[Side, list[Step], list[Signature]], ...] = (
        ("baseline", bs, b_sigs),
        ("candidate", cs, c_sigs),
    )
    loops = [
        loop.as_dict()
        for side, steps, sigs in sides
        for loop in detect_loops(
            sigs,
            [s.payload[0] for s in steps],
            [s.payload[1] for s in steps],
            side=side,
            names=[s.action for s in steps],
        )
    ]

    result: dict[str, Any] = {
        "trajectory_divergence_index": tdi(len(bs), len(cs), lcs_length(b_seq, c_seq)),
        "baseline_wei": wei([s.status for s in bs]),
        "candidate_wei": wei([s.status for s in cs]),
        "loops_detected": loops,
        "baseline_recovery_steps": b_rec,
        "candidate_recovery_steps": c_rec,
        "baseline_unrecovered_steps": b_unrec,
        "candidate_unrecovered_steps": c_unrec,
        "recovery_step_ratio": recovery_step_ratio(baseline=b_rec, candidate=c_rec),
        "baseline_identical_calls": identical_calls(bs),
        "candidate_identical_calls": identical_calls(cs),
        "first_divergence": None
        if first is None
        else {
            "position": first,
            "baseline_index": b_order[first] if first < len(bs) else None,
            "candidate_index": c_order[first] if first < len(cs) else None,
        },
        "baseline_parent_cycle": b_cycle,
        "candidate_parent_cycle": c_cycle,
    }
    bt, ct = run_totals(base), run_totals(cand)
    for key, what, b_val, c_val in (
        ("cost", "cost", bt.cost_usd, ct.cost_usd),
        ("token", "tokens", bt.tokens, ct.tokens),
        ("latency", "latency", bt.latency_ms, ct.latency_ms),
    ):
        value, note = pct_delta(b_val, c_val, what)
        result[f"{key}_delta_percentage"] = value
        if note is not None:
            result[f"{key}_delta_note"] = note
    result["step_diffs"] = [
        d.as_dict() for d in step_diffs(bs, cs, alignment, argument_diffs=argument_diffs)
    ]
    for side, steps, totals in (("baseline", bs, bt), ("candidate", cs, ct)):
        result[f"{side}_totals"] = {
            "steps": len(steps),
            "wasted_steps": sum(1 for s in steps if s.wasted),
            "tokens": totals.tokens,
            "cost_usd": totals.cost_usd,
            "latency_ms": totals.latency_ms,
        }
    return result
