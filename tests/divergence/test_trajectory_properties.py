"""Property tests: the fast functions equal slow, obviously-correct pure-Python versions.

The slow versions are written here from DESIGN.md, independently of the implementation: the
full O(n*m) LCS table with the DESIGN traceback, AgentDiff-style loop scanning over every block
length, and the recovery window walk over the aligned diff rows.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.divergence.reference import (
    Step,
    align,
    compare_pair,
    detect_loops,
    lcs_length,
    recovery_step_ratio,
)

# ------------------------------------------------------------------ slow references


def slow_table(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[list[int]]:
    """The full LCS table, cell by cell."""
    dp = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                dp[i][j] = dp[i - 1][j - 1] + 1
            else:
                dp[i][j] = max(dp[i - 1][j], dp[i][j - 1])
    return dp


def slow_align(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[tuple[int | None, int | None]]:
    """DESIGN.md traceback on the full table."""
    dp = slow_table(a, b)
    i, j = len(a), len(b)
    rows: list[tuple[int | None, int | None]] = []
    while i > 0 or j > 0:
        if i > 0 and j > 0 and a[i - 1] == b[j - 1]:
            rows.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif j > 0 and (i == 0 or dp[i][j - 1] >= dp[i - 1][j]):
            rows.append((None, j - 1))
            j -= 1
        else:
            rows.append((i - 1, None))
            i -= 1
    return rows[::-1]


def slow_loops(
    sigs: Sequence[Hashable], payloads: Sequence[Hashable]
) -> list[tuple[int, int, int, bool]]:
    """Try every block length at every position, shortest first (AgentDiff's scan)."""
    n = len(sigs)
    found = []
    i = 0
    while i < n:
        for k in range(1, (n - i) // 2 + 1):
            count = 1
            while i + (count + 1) * k <= n and list(
                sigs[i + count * k : i + (count + 1) * k]
            ) == list(sigs[i : i + k]):
                count += 1
            if count >= 2:
                stagnant = all(
                    payloads[i + it * k + s] == payloads[i + s]
                    for s in range(k)
                    for it in range(1, count)
                )
                found.append((i, k, count, stagnant))
                i += count * k
                break
        else:
            i += 1
    return found


def slow_recovery(
    rows: list[tuple[int | None, int | None]], wasted: Sequence[bool], side: int
) -> tuple[int, int]:
    """Walk the diff rows of one side (0 baseline, 1 candidate) as DESIGN.md's RSR rules say."""
    total = 0
    open_since: int | None = None
    open_counted = 0
    for row in rows:
        idx = row[side]
        if idx is None:
            continue
        if wasted[idx]:
            if open_since is None:
                open_since = idx
            continue
        if open_since is None:
            continue
        total += 1
        open_counted += 1
        if row[0] is not None and row[1] is not None:
            open_since = None
            open_counted = 0
    return total, (open_counted if open_since is not None else 0)


# ------------------------------------------------------------------ strategies

small_seq = st.lists(st.integers(0, 3), max_size=40)
long_seq = st.lists(st.integers(0, 5), min_size=60, max_size=160)

steps_strategy = st.lists(
    st.builds(
        Step,
        type=st.sampled_from(["tool_call", "llm_call"]),
        action=st.sampled_from(["a", "b", "c"]),
        input=st.one_of(
            st.none(),
            st.dictionaries(st.sampled_from(["x", "y"]), st.integers(0, 1), max_size=2),
        ),
        output=st.sampled_from([None, "o", {"r": 1}]),
        status=st.sampled_from(["ok", "ok", "ok", "success", "error", "retry", "abandoned"]),
    ),
    max_size=25,
)


@settings(max_examples=300, deadline=None)
@given(small_seq, small_seq)
def test_lcs_and_alignment_equal_full_table(a: list[int], b: list[int]) -> None:
    """LCS length and alignment equal the full-table DP and traceback."""
    dp = slow_table(a, b)
    assert lcs_length(a, b) == dp[len(a)][len(b)]
    got = align(a, b)
    assert got == slow_align(a, b)
    assert sum(1 for x, y in got if x is not None and y is not None) == dp[len(a)][len(b)]


@settings(max_examples=60, deadline=None)
@given(long_seq, long_seq)
def test_alignment_on_long_sequences(a: list[int], b: list[int]) -> None:
    """Bit-parallel rows wider than a machine word still give the exact traceback."""
    assert align(a, b) == slow_align(a, b)
    assert lcs_length(a, b) == slow_table(a, b)[len(a)][len(b)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 2), max_size=40), st.data())
def test_loops_equal_naive_scan(sigs: list[int], data: st.DataObject) -> None:
    """Loop blocks and stagnancy equal the try-every-length scan."""
    inputs = data.draw(st.lists(st.integers(0, 1), min_size=len(sigs), max_size=len(sigs)))
    outputs = data.draw(st.lists(st.integers(0, 1), min_size=len(sigs), max_size=len(sigs)))
    got = [
        (lp.start_index, lp.length, lp.iterations, lp.stagnant)
        for lp in detect_loops(sigs, inputs, outputs)
    ]
    assert got == slow_loops(sigs, list(zip(inputs, outputs, strict=True)))


@settings(max_examples=300, deadline=None)
@given(steps_strategy, steps_strategy)
def test_compare_pair_equals_slow_versions(base: list[Step], cand: list[Step]) -> None:
    """Every metric of compare_pair equals its slow recomputation."""
    got = compare_pair(base, cand)
    b_sigs = [s.signature for s in base]
    c_sigs = [s.signature for s in cand]
    rows = slow_align(b_sigs, c_sigs)
    lcs = slow_table(b_sigs, c_sigs)[len(base)][len(cand)]
    total = len(base) + len(cand)
    assert got["trajectory_divergence_index"] == (0.0 if total == 0 else 1.0 - 2.0 * lcs / total)
    assert [(d["baseline_index"], d["candidate_index"]) for d in got["step_diffs"]] == rows

    wasted = {"error", "retry", "abandoned"}
    b_wasted = [s.status in wasted for s in base]
    c_wasted = [s.status in wasted for s in cand]
    b_rec = slow_recovery(rows, b_wasted, 0)
    c_rec = slow_recovery(rows, c_wasted, 1)
    assert (got["baseline_recovery_steps"], got["baseline_unrecovered_steps"]) == b_rec
    assert (got["candidate_recovery_steps"], got["candidate_unrecovered_steps"]) == c_rec
    assert got["recovery_step_ratio"] == recovery_step_ratio(baseline=b_rec[0], candidate=c_rec[0])
    assert got["baseline_wei"] == (sum(b_wasted) / len(base) if base else 0.0)

    def payload(s: Step) -> tuple[str, str]:
        return (json.dumps(s.input, sort_keys=True), json.dumps(s.output, sort_keys=True))

    expected_loops = [
        ("baseline", *lp) for lp in slow_loops(b_sigs, [payload(s) for s in base])
    ] + [("candidate", *lp) for lp in slow_loops(c_sigs, [payload(s) for s in cand])]
    got_loops = [
        (lp["side"], lp["start_index"], lp["length"], lp["iterations"], lp["stagnant"])
        for lp in got["loops_detected"]
    ]
    assert got_loops == expected_loops

    # payloads compare as values (Python ==: key order and 1 vs 1.0 do not count)
    norm = {"success": "ok"}
    for d in got["step_diffs"]:
        bi, ci = d["baseline_index"], d["candidate_index"]
        if bi is None:
            assert d["status"] == "added"
        elif ci is None:
            assert d["status"] == "removed"
        else:
            b, c = base[bi], cand[ci]
            same = (
                norm.get(b.status, b.status) == norm.get(c.status, c.status)
                and b.input == c.input
                and b.output == c.output
            )
            assert d["status"] == ("matched" if same else "modified")
