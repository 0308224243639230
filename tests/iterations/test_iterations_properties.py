"""Hypothesis: the SQL agrees with a slow, independent pure-Python model on random loops, and
the set laws (resolved | persisting = previous set, persisting | new = current set, the three
pairwise disjoint) hold through the SQL path, including records loaded by the real ingest.

The model re-derives everything from the raw records: previous-attempt sets, the LCS-based
line-level patch ratio (2 * LCS / (|a| + |b|) over the changed lines, by dynamic
programming), the stall/stretch rule of the
thrash signal, and the per-run aggregates."""

from __future__ import annotations

import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.iterations import analyse
from tests.iterations.helpers import in_memory, ingested

IDS = ["f1", "f2", "f3", "f4", "f5"]
K = 3
LOW = 0.5


def diff_lines(patch: str) -> list[str]:
    """The changed lines of a patch, slowly: lines starting with + or - (not the ``+++ ``/
    ``--- `` headers), trailing blanks stripped; when there are none, every non-blank line."""
    out = []
    for line in patch.split("\n"):
        if line[:1] in ("+", "-") and line[:4] not in ("+++ ", "--- "):
            out.append(line.rstrip())
    return out or [line.rstrip() for line in patch.split("\n") if line.strip()]


def line_ratio(a: str, b: str) -> float:
    """The patch distance: Indel similarity of the two patches' changed lines."""
    return lcs_ratio(diff_lines(a), diff_lines(b))


def lcs_ratio(a: list[str], b: list[str]) -> float:
    """Indel similarity: 2 * LCS / (len a + len b); two empty sequences are identical."""
    if not a and not b:
        return 1.0
    dp = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a, 1):
        for j, y in enumerate(b, 1):
            dp[i][j] = dp[i - 1][j - 1] + 1 if x == y else max(dp[i - 1][j], dp[i][j - 1])
    return 2 * dp[len(a)][len(b)] / (len(a) + len(b))


@st.composite
def loops(draw: st.DrawFn) -> list[dict[str, Any]]:
    """One run: random steps, attempt numbers (duplicates allowed), failing sets (sometimes
    unknown), patches (sometimes absent), spend and certification."""
    n = draw(st.integers(1, 14))
    rows = []
    for i in range(n):
        failing = draw(st.none() | st.lists(st.sampled_from(IDS), max_size=5))
        exit_code = draw(st.none() | st.sampled_from([0, 1]))
        rows.append(
            {
                "run_id": "r",
                "iter": i + 1,
                "step": draw(st.sampled_from(["s1", "s2", "s3"])),
                "attempt": draw(st.integers(0, 6)),
                "exit_code": exit_code,
                "failing": failing,
                "patch": draw(st.none() | st.text(alphabet="ab +-\n", max_size=24)),
                "tool_calls": draw(st.none() | st.integers(0, 5)),
                "tool_errors": draw(st.none() | st.integers(0, 5)),
                "tokens_in": draw(st.none() | st.integers(0, 1000)),
                "tokens_out": draw(st.none() | st.integers(0, 100)),
                "usd": draw(st.none() | st.sampled_from([0.0, 0.125, 0.25, 1.5])),
                "certified": draw(st.none() | st.booleans()),
            }
        )
    return rows


def model(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Everything the SQL derives, computed the slow way."""
    by_step: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_step[r["step"]].append(r)
    attempts: dict[int, dict[str, Any]] = {}
    steps: dict[str, dict[str, Any]] = {}
    for step, group in by_step.items():
        group.sort(key=lambda r: (r["attempt"], r["iter"]))
        prev: set[str] | None = set()
        prev_patch: str | None = None
        best: int | None = None
        stretches: list[list[dict[str, Any]]] = []
        for seq, r in enumerate(group):
            cur = None if r["failing"] is None else set(r["failing"])
            certified = r["certified"] if r["certified"] is not None else r["exit_code"] == 0
            known = cur is not None and prev is not None
            ratio = None
            if r["patch"] is not None and prev_patch is not None and seq > 0:
                ratio = line_ratio(prev_patch, r["patch"])
            rate = None
            if r["tool_calls"]:
                rate = (r["tool_errors"] or 0) / r["tool_calls"]
            a = {
                "step": step,
                "certified": bool(certified),
                "n_failing": None if cur is None else len(cur),
                "resolved": sorted(prev - cur) if known else None,  # type: ignore[operator]
                "persisting": sorted(prev & cur) if known else None,  # type: ignore[operator]
                "new": sorted(cur - prev) if known else None,  # type: ignore[operator]
                "patch_distance": ratio,
                "tool_error_rate": rate,
                "tokens": (r["tokens_in"] or 0) + (r["tokens_out"] or 0),
                "usd": r["usd"] or 0.0,
                "failing": cur,
                "prev": prev,
                "iter": r["iter"],
                "attempt": r["attempt"],
            }
            attempts[r["iter"]] = a
            n = a["n_failing"]
            moved = seq == 0 or a["certified"] or n is None or best is None or n < best
            if moved:
                stretches.append([a])
            else:
                stretches[-1].append(a)
            if n is not None:
                best = n if best is None else min(best, n)
            prev = cur
            prev_patch = r["patch"]
        longest = max(reversed(stretches), key=lambda s: len(s) - 1)
        stalled = longest[1:]
        core = set.intersection(*[x["failing"] or set() for x in longest])
        if any(x["failing"] is None for x in longest):
            core = set()
        cert = [x for x in group if attempts[x["iter"]]["certified"]]
        steps[step] = {
            "certified_iter": min((x["iter"] for x in cert), default=None),
            "stalled": len(stalled),
            "attempts": [x["attempt"] for x in stalled],
            "thrash": len(stalled) >= K,
            "core": sorted(core) if stalled else [],
            "unchanged": all(x["failing"] == x["prev"] for x in stalled),
        }
    tokens = sum(a["tokens"] for a in attempts.values())
    usd = sum(a["usd"] for a in attempts.values())
    n_cert = sum(1 for s in steps.values() if s["certified_iter"] is not None)
    last = max((s["certified_iter"] for s in steps.values() if s["certified_iter"]), default=None)
    after = [a for a in attempts.values() if a["iter"] > (last if last is not None else -1)]
    calls = [r["tool_calls"] for r in rows if r["tool_calls"] is not None]
    errors = [r["tool_errors"] or 0 for r in rows if r["tool_calls"] is not None]
    return {
        "attempts": attempts,
        "steps": steps,
        "run": {
            "certified_steps": n_cert,
            "tokens": tokens,
            "usd": usd,
            "tokens_per_certified_step": tokens / n_cert if n_cert else None,
            "last_certified_iter": last,
            "marginal_tokens": sum(a["tokens"] for a in after),
            "marginal_attempts": len(after),
            "tool_error_rate": sum(errors) / sum(calls) if calls and sum(calls) else None,
            "thrash_steps": sorted(s for s, v in steps.items() if v["thrash"]),
        },
    }


def sql(rows: list[dict[str, Any]]) -> Any:
    con = in_memory(rows)
    try:
        (run,) = analyse(con, min_stalled=K, low_patch_distance=LOW)
    finally:
        con.close()
    return run


@settings(max_examples=80, deadline=None)
@given(loops())
def test_derived_sets_and_patch_distance(rows: list[dict[str, Any]]) -> None:
    expected = model(rows)["attempts"]
    run = sql(rows)
    check_set_laws(run)
    for step in run.steps:
        for a in step.attempts:
            want = expected[a.iter]
            assert a.n_failing == want["n_failing"]
            assert (a.resolved, a.persisting, a.new) == (
                want["resolved"],
                want["persisting"],
                want["new"],
            )
            assert a.patch_distance == pytest.approx(want["patch_distance"])
            assert a.tool_error_rate == pytest.approx(want["tool_error_rate"])
            assert a.certified == want["certified"]


def check_set_laws(run: Any) -> None:
    """resolved | persisting == previous set; persisting | new == current; all disjoint."""
    for step in run.steps:
        previous: list[str] | None = []
        for a in step.attempts:
            if a.resolved is not None and a.persisting is not None and a.new is not None:
                assert previous is not None and a.failing is not None
                assert set(a.resolved) | set(a.persisting) == set(previous)
                assert set(a.persisting) | set(a.new) == set(a.failing)
                assert not set(a.resolved) & set(a.persisting)
                assert not set(a.resolved) & set(a.new)
                assert not set(a.persisting) & set(a.new)
            previous = a.failing


@settings(max_examples=80, deadline=None)
@given(loops())
def test_thrash_and_run_aggregates(rows: list[dict[str, Any]]) -> None:
    expected = model(rows)
    run = sql(rows)
    want = expected["run"]
    assert run.certified_steps == want["certified_steps"]
    assert run.tokens == want["tokens"]
    assert run.usd == pytest.approx(want["usd"])
    assert run.tokens_per_certified_step == pytest.approx(want["tokens_per_certified_step"])
    assert run.last_certified_iter == want["last_certified_iter"]
    assert (run.marginal_attempts, run.marginal_tokens) == (
        want["marginal_attempts"],
        want["marginal_tokens"],
    )
    assert run.tool_error_rate == pytest.approx(want["tool_error_rate"])
    assert sorted(run.thrash_steps) == want["thrash_steps"]
    for step in run.steps:
        w = expected["steps"][step.step]
        assert step.certified_iter == w["certified_iter"]
        if step.thrash is None:
            assert w["stalled"] == 0
            continue
        assert step.thrash.stalled == w["stalled"]
        assert step.thrash.attempts == w["attempts"]
        assert step.thrash.flagged == w["thrash"]
        assert step.thrash.core_failing == w["core"]
        assert (step.thrash.failing_set == "unchanged") == w["unchanged"]


TESTS = ["TestA", "TestB", "TestC", "TestD/sub", "TestE"]
PKG = "example.com/m/p"


def go_output(names: list[str], salt: int) -> str:
    """`go test` output failing ``names`` (durations vary with ``salt``, as between reruns)."""
    lines = [f"--- FAIL: {n} (0.{salt % 97:02d}s)" for n in sorted(set(names))]
    lines += ["FAIL", f"FAIL\t{PKG}\t{salt % 13}.{salt % 7}1s"] if names else [f"ok  \t{PKG}\t0.1s"]
    return "\n".join(lines) + "\n"


@st.composite
def ingested_loops(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Iteration records as a harness writes them: each attempt's failing set given as ids, as
    raw `go test` output, or unknown."""
    records = []
    for i in range(draw(st.integers(1, 10))):
        names = draw(st.lists(st.sampled_from(TESTS), max_size=5))
        record: dict[str, Any] = {
            "run": "r",
            "iter": i + 1,
            "step": draw(st.sampled_from(["s1", "s2"])),
            "attempt": i + 1,
            "check": "go test ./...",
        }
        how = draw(st.sampled_from(["ids", "output", "output", "unknown"]))
        if how == "ids":
            record["failing"] = [f"go:{PKG}::{n}" for n in names]
        elif how == "output":
            record["output"] = go_output(names, draw(st.integers(0, 10_000)))
        records.append(record)
    return records


@settings(max_examples=25, deadline=None)
@given(ingested_loops())
def test_set_laws_through_ingest(records: list[dict[str, Any]]) -> None:
    """Through the real loader (raw output normalised at ingest, sets derived in SQL): resolved |
    persisting == previous, persisting | new == current, pairwise disjoint, and known whenever
    both sets are known."""
    with tempfile.TemporaryDirectory() as tmp:
        con = ingested(Path(tmp), records)
        try:
            (run,) = analyse(con)
        finally:
            con.close()
    check_set_laws(run)
    expected: dict[int, set[str] | None] = {}
    for r in records:
        if "failing" in r:
            expected[r["iter"]] = set(r["failing"])
        elif "output" in r:
            names = {line.split()[2] for line in r["output"].splitlines() if "--- FAIL" in line}
            expected[r["iter"]] = {f"go:{PKG}::{n}" for n in names}
        else:
            expected[r["iter"]] = None
    for step in run.steps:
        previous: set[str] | None = set()
        for a in step.attempts:
            current = expected[a.iter]
            assert (None if a.failing is None else set(a.failing)) == current
            if previous is not None and current is not None:
                assert a.resolved is not None and a.persisting is not None and a.new is not None
                assert set(a.resolved) == previous - current
                assert set(a.persisting) == previous & current
                assert set(a.new) == current - previous
            else:
                assert a.resolved is None and a.persisting is None and a.new is None
            previous = current
