"""Trajectory findings with a flap rate (divergence/findings.py, sql/finding_flaps.sql): hand
worked on three baseline repeats, against a slow direct loop over every repeat pair
(hypothesis), and a simulation of candidates drawn from the baseline's own distribution."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence
from itertools import pairwise, permutations
from typing import Any

import duckdb
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.divergence.findings import (
    MAX_FLAP_RATE,
    FlapPair,
    baseline_runs,
    finding,
    folded_line,
    pair_findings,
    summary,
)

Step = tuple[str, dict[str, Any], str]  # action, input, status


def _archive(runs: dict[str, Sequence[Step]]) -> duckdb.DuckDBPyConnection:
    """A connection whose table ``steps`` holds ``runs`` (the columns the findings read)."""
    rows = [
        (run, idx, action, json.dumps(inp, sort_keys=True), sorted(inp), status)
        for run, steps in runs.items()
        for idx, (action, inp, status) in enumerate(steps)
    ]
    columns = list(zip(*rows, strict=True)) if rows else [[]] * 6
    table = pa.table(
        {
            "run_id": pa.array(columns[0], pa.string()),
            "idx": pa.array(columns[1], pa.int32()),
            "action": pa.array(columns[2], pa.string()),
            "input": pa.array(columns[3], pa.string()),
            "input_keys": pa.array(columns[4], pa.list_(pa.string())),
            "status": pa.array(columns[5], pa.string()),
        }
    )
    con = duckdb.connect()
    con.register("given_steps", table)
    con.execute(
        "CREATE TABLE steps AS SELECT run_id, idx, action, CAST(input AS JSON) AS input,"
        " input_keys, status FROM given_steps"
    )
    return con


def _judge(
    runs: dict[str, Sequence[Step]], baseline: Sequence[str], candidate: str, against: str
) -> list[Any]:
    con = _archive(runs)
    found = pair_findings(con, [FlapPair(against, candidate, "g")], [(r, "g") for r in baseline])
    return found[0]


BASE: list[Step] = [
    ("search_flights", {"to": "SFO"}, "ok"),
    ("get_user", {"id": 7}, "ok"),
    ("book", {"flight": "UA1"}, "ok"),
]


def test_an_injected_tool_call_is_a_stable_finding() -> None:
    runs = {f"b{k}": BASE for k in range(3)}
    runs["c"] = [*BASE[:2], ("cancel", {"id": 7}, "ok"), BASE[2]]
    (only,) = _judge(runs, ["b0", "b1", "b2"], "c", "b0")
    assert (only.kind, only.key, only.flap_rate, only.repeat_pairs) == ("new_tool", "cancel", 0, 6)
    assert only.stable is True and only.verdict == "stable"
    assert folded_line([only]) is None


def test_a_finding_the_repeats_show_is_flapping() -> None:
    # b2 calls get_user twice: b0->b2 and b1->b2 show step_added get_user (2 of 6 ordered
    # pairs), b2->b0 and b2->b1 show step_removed (the other 2)
    twice = [BASE[0], BASE[1], BASE[1], BASE[2]]
    runs = {"b0": BASE, "b1": BASE, "b2": twice, "c": twice}
    found = _judge(runs, ["b0", "b1", "b2"], "c", "b0")
    kinds = {(f.kind, f.key): f for f in found}
    added = kinds[("step_added", "get_user")]
    assert added.flap_rate == 2 / 6 and added.stable is False and added.verdict == "flapping"
    loop = kinds[("new_loop", "get_user")]  # the same call twice, back to back
    assert loop.flap_rate == 2 / 6 and not loop.stable
    line = folded_line(found)
    assert line == "2 flapping finding(s) folded (seen in 33 % of the baseline's own repeats)"


def test_two_runs_are_too_few_repeats() -> None:
    runs = {"b0": BASE, "b1": BASE, "c": [*BASE, ("cancel", {}, "ok")]}
    (only,) = _judge(runs, ["b0", "b1"], "c", "b0")
    assert only.repeat_pairs == 2 and only.stable is None and only.verdict == "too_few_repeats"
    assert folded_line([only]) == (
        "1 finding(s) not judged: too few baseline repeats (n=2 baseline runs; 3 needed)"
    )


def test_baseline_runs_of_repeat_pairs() -> None:
    assert [baseline_runs(m * (m - 1)) for m in range(1, 30)] == list(range(1, 30))


def test_summary_of_records_folds_flapping_and_unjudged() -> None:
    records = [
        finding("new_tool", "cancel", 0, 6).record(),
        finding("step_added", "get_user", 2, 6).record(),
        finding("new_loop", "get_user", 6, 6).record(),
    ]
    found = summary(records)
    assert [f.key for f in found.stable] == ["cancel"] and len(found.flapping) == 2
    assert found.headline == "Findings: 1 stable of 3."
    assert found.folded == (
        "2 flapping finding(s) folded (seen in 33-100 % of the baseline's own repeats)"
    )
    assert summary([]).headline.startswith("Findings: none")
    few = summary([finding("new_tool", "x", 0, 0).record()])
    assert few.unjudged_line == (
        "1 finding(s) not judged: too few baseline repeats (n=1 baseline run; 3 needed)"
    )


def test_each_kind_of_finding() -> None:
    cand: list[Step] = [
        ("get_user", {"id": 8}, "error"),  # reordered before search_flights; id changed
        ("search_flights", {"to": "SFO"}, "ok"),
        ("search_flights", {"to": "SFO"}, "ok"),  # a back-to-back repeat
    ]  # book removed
    found = _judge({"b": BASE, "c": cand}, ["b"], "c", "b")
    assert {(f.kind, f.key) for f in found} == {
        ("reordered", "get_user before search_flights"),
        ("arg_changed", "get_user.id"),
        ("status_flipped", "get_user:+error"),
        ("step_added", "search_flights"),
        ("new_loop", "search_flights"),
        ("step_removed", "book"),
    }
    assert all(f.repeat_pairs == 0 and f.flap_rate is None for f in found)


def test_finding_rule() -> None:
    assert finding("new_tool", "x", 0, 6).stable is True
    assert finding("new_tool", "x", 19, 420).stable is True  # 1 of 21 runs: 4.5 %
    assert finding("new_tool", "x", 19, 380).stable is False  # 1 of 20 runs: 5 %
    assert finding("new_tool", "x", 0, 2).stable is None


# --- a slow reference: the findings of one ordered pair, straight from the definitions ----


def _reference(base: Sequence[Step], cand: Sequence[Step]) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    bc, cc = Counter(s[0] for s in base), Counter(s[0] for s in cand)
    for action in cc:
        if action not in bc:
            found.add(("new_tool", action))
        elif cc[action] > bc[action]:
            found.add(("step_added", action))
    found |= {("step_removed", a) for a in bc if cc[a] < bc[a]}

    def looped(steps: Sequence[Step]) -> set[str]:
        return {b[0] for a, b in pairwise(steps) if a[:2] == b[:2]}

    found |= {("new_loop", a) for a in looped(cand) - looped(base)}
    both = [a for a in cc if a in bc]

    def first(steps: Sequence[Step]) -> dict[str, int]:
        out: dict[str, int] = {}
        for k, step in enumerate(steps):
            out.setdefault(step[0], k)
        return out

    fb, fc = first(base), first(cand)
    for x in both:
        for y in both:
            if fb[x] < fb[y] and fc[y] < fc[x]:
                found.add(("reordered", f"{y} before {x}"))

    def args(steps: Sequence[Step], action: str) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for a, inp, _ in steps:
            if a == action:
                for key, value in inp.items():
                    out.setdefault(key, set()).add(json.dumps(value))
        return out

    def fails(steps: Sequence[Step], action: str) -> set[str]:
        return {s for a, _, s in steps if a == action and s != "ok"}

    for action in both:
        ab, ac = args(base, action), args(cand, action)
        found |= {("arg_changed", f"{action}.{k}") for k in ab.keys() | ac.keys()
                  if ab.get(k) != ac.get(k)}  # fmt: skip
        sb, sc = fails(base, action), fails(cand, action)
        found |= {("status_flipped", f"{action}:+{s}") for s in sc - sb}
        found |= {("status_flipped", f"{action}:-{s}") for s in sb - sc}
    return found


_step = st.tuples(
    st.sampled_from(["a", "b", "c"]),
    st.one_of(
        st.just({}),
        st.fixed_dictionaries({"k": st.integers(0, 2)}),
        st.fixed_dictionaries({"k": st.integers(0, 1), "j": st.sampled_from(["x", "y"])}),
    ),
    st.sampled_from(["ok", "ok", "error", "retry"]),
)
_run = st.lists(_step, max_size=6)


@settings(max_examples=30, deadline=None)
@given(st.lists(_run, min_size=1, max_size=5), _run)
def test_flap_rate_matches_a_direct_loop_over_every_repeat_pair(
    baseline: list[list[Step]], candidate: list[Step]
) -> None:
    runs: dict[str, Sequence[Step]] = {f"b{k}": steps for k, steps in enumerate(baseline)}
    runs["c"] = candidate
    names = sorted(r for r in runs if r != "c")
    got = {(f.kind, f.key): f for f in _judge(runs, names, "c", "b0")}
    assert set(got) == _reference(runs["b0"], candidate)
    repeat = list(permutations(names, 2))
    for (kind, key), item in got.items():
        seen = sum((kind, key) in _reference(runs[x], runs[y]) for x, y in repeat)
        assert item.repeat_pairs == len(repeat)
        assert item.flap_rate == (seen / len(repeat) if repeat else None)


# --- simulation: candidates from the baseline's own distribution ---------------------------


def _draw(rng: random.Random) -> list[Step]:
    """One run of a noisy agent: a fixed script, where each run may look the user up twice,
    retry the search, swap two lookups, pick another seat, or (1 run in 50) check the weather."""
    steps: list[Step] = [("search_flights", {"to": "SFO"}, "ok"), ("get_user", {"id": 7}, "ok")]
    if rng.random() < 0.5:
        steps.append(("get_user", {"id": 7}, "ok"))
    steps.append(("get_flight", {"no": "UA1"}, "ok"))
    if rng.random() < 0.5:
        steps[0], steps[1] = steps[1], steps[0]
    if rng.random() < 0.3:
        steps.insert(0, ("search_flights", {"to": "SFO"}, "error"))
    if rng.random() < 0.02:
        steps.append(("weather", {"city": "SFO"}, "ok"))
    steps.append(("book", {"flight": "UA1", "seat": rng.choice(["12A", "14C"])}, "ok"))
    return steps


def test_simulation_candidates_like_the_baseline_rarely_show_a_stable_finding() -> None:
    """Over 250 tasks of 20 baseline trials: a candidate drawn like the baseline shows a
    stable finding in at most 5 % of pairs; one injected extra tool call always shows as a
    stable new_tool finding."""
    rng = random.Random(7)
    trials, tasks = 20, 250
    runs: dict[str, Sequence[Step]] = {}
    pairs, baseline = [], []
    for t in range(tasks):
        for k in range(trials):
            runs[f"{t}/b{k}"] = _draw(rng)
            baseline.append((f"{t}/b{k}", str(t)))
        runs[f"{t}/same"] = _draw(rng)
        extra = _draw(rng)
        extra.insert(rng.randrange(len(extra) + 1), ("refund", {"id": t}, "ok"))
        runs[f"{t}/extra"] = extra
        pairs += [
            FlapPair(f"{t}/b0", f"{t}/same", str(t)),
            FlapPair(f"{t}/b0", f"{t}/extra", str(t)),
        ]
    found = pair_findings(_archive(runs), pairs, baseline)
    same, injected = found[0::2], found[1::2]
    noisy = sum(any(f.stable for f in items) for items in same)
    assert noisy / tasks <= MAX_FLAP_RATE, noisy
    assert all(any(f.stable and (f.kind, f.key) == ("new_tool", "refund") for f in items)
               for items in injected)  # fmt: skip


def test_groups_judged_in_one_call_are_judged_apart() -> None:
    # two tasks in one query: each pair's flap rates count only its own group's repeats
    twice = [BASE[0], BASE[1], BASE[1], BASE[2]]
    runs: dict[str, Sequence[Step]] = {
        "x0": BASE, "x1": BASE, "x2": twice, "xc": twice,
        "y0": twice, "y1": twice, "y2": twice, "y3": BASE, "yc": [*BASE, ("cancel", {}, "ok")],
    }  # fmt: skip
    con = _archive(runs)
    groups = [(r, "x") for r in ("x0", "x1", "x2")] + [(r, "y") for r in ("y0", "y1", "y2", "y3")]
    together = pair_findings(con, [FlapPair("x0", "xc", "x"), FlapPair("y3", "yc", "y")], groups)
    apart = [
        pair_findings(con, [FlapPair("x0", "xc", "x")], groups[:3])[0],
        pair_findings(con, [FlapPair("y3", "yc", "y")], groups[3:])[0],
    ]
    assert together == apart
    assert {f.repeat_pairs for f in together[0]} == {6}
    assert {f.repeat_pairs for f in together[1]} == {12}


# --- groups of one baseline run skip the repeat counts -------------------------------------

_WITHOUT_SKIP = "    INNER JOIN sizes AS z ON z.gid = r.gid AND z.m >= 2\n"


def _flap_rows(con: duckdb.DuckDBPyConnection, sql: str, groups: list[list[str]]) -> list[Any]:
    """The raw rows of finding_flaps.sql: each group's first run against the candidate "c"."""
    pairs = pa.table(
        {
            "pid": pa.array(range(len(groups)), pa.int64()),
            "grp": pa.array([f"g{k}" for k in range(len(groups))], pa.string()),
            "b": pa.array([runs[0] for runs in groups], pa.string()),
            "c": pa.array(["c"] * len(groups), pa.string()),
        }
    )
    members = [(run, f"g{k}") for k, runs in enumerate(groups) for run in runs]
    runs = pa.table(
        {
            "run_id": pa.array([r for r, _ in members], pa.string()),
            "grp": pa.array([g for _, g in members], pa.string()),
        }
    )
    con.register("rg_flap_pairs", pairs)
    con.register("rg_flap_runs", runs)
    return con.execute(sql).fetchall()


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(_run, min_size=1, max_size=3), min_size=1, max_size=4), _run)
def test_groups_of_one_run_give_the_rows_counting_every_group_gives(
    groups: list[list[list[Step]]], candidate: list[Step]
) -> None:
    # the query counts repeats only in groups of two runs or more; counted in every group, as
    # it was, a group of one run gives seen 0 and n 0 all the same
    from reportgen._sql import load_sql

    sql = load_sql("finding_flaps")
    assert _WITHOUT_SKIP in sql
    runs: dict[str, Sequence[Step]] = {"c": candidate}
    names = []
    for k, group in enumerate(groups):
        names.append([f"b{k}_{j}" for j in range(len(group))])
        runs.update(zip(names[-1], group, strict=True))
    con = _archive(runs)
    assert _flap_rows(con, sql, names) == _flap_rows(con, sql.replace(_WITHOUT_SKIP, ""), names)
