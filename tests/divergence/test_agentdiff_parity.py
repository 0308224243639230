"""Parity with the public reference, AgentDiff 0.3.0 (PyPI agent-trajectory-diff), run black-box.

The reference runs in its own interpreter: $REPORTGEN_REF_AGENTDIFF_PYTHON, else
/work/refvenv-diff/bin/python when it exists (``python3 -m venv /work/refvenv-diff &&
/work/refvenv-diff/bin/pip install agent-trajectory-diff==0.3.0``). Without it these tests skip.
Where DESIGN.md decides otherwise the test asserts the difference instead of equality.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from reportgen.archive import connect
from reportgen.divergence.agentdiff_export import to_agentdiff_trace
from reportgen.divergence.metrics import Pair, insert_runs, pair_metrics
from reportgen.divergence.reference import (
    Run,
    Step,
    canonical_json,
    compare_pair,
    detect_loops,
    run_totals,
)
from reportgen.ingest import ingest

from .cases import CASES, run, step

_DEFAULT_REF = Path("/work/refvenv-diff/bin/python")

# Reads [{"baseline": trace, "candidate": trace}, ...] on stdin, prints AgentDiff's JSON reports.
_RUNNER = """
import json, sys
from agentdiff import AgentTrace, compare
cases = json.load(sys.stdin)
out = []
for case in cases:
    report = compare(AgentTrace.model_validate(case["baseline"]),
                     AgentTrace.model_validate(case["candidate"]))
    out.append(report.model_dump_json(indent=2))
json.dump(out, sys.stdout)
"""


def _reference_python() -> str | None:
    """The interpreter that has agentdiff installed, or None."""
    env = os.environ.get("REPORTGEN_REF_AGENTDIFF_PYTHON")
    if env:
        return env
    return str(_DEFAULT_REF) if _DEFAULT_REF.exists() else None


@cache
def _reference_usable() -> str | None:
    """Why the reference cannot run, or None when it can."""
    python = _reference_python()
    if python is None:
        return "AgentDiff reference not found: set REPORTGEN_REF_AGENTDIFF_PYTHON"
    try:
        proc = subprocess.run(
            [python, "-c", "import agentdiff; print(agentdiff.__version__)"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except OSError as exc:
        return f"AgentDiff reference at {python} cannot start: {exc}"
    if proc.returncode != 0 or proc.stdout.strip() != "0.3.0":
        return (
            f"{python} has no agentdiff 0.3.0 ({proc.stdout.strip() or proc.stderr.strip()[-200:]})"
        )
    return None


@pytest.fixture(autouse=True)
def _need_reference() -> None:
    reason = _reference_usable()
    if reason is not None:
        pytest.skip(reason)


def reference(pairs: list[tuple[Run, Run]]) -> list[tuple[dict[str, Any], str]]:
    """AgentDiff's report for each pair, parsed and as its raw JSON text."""
    python = _reference_python()
    assert python is not None
    payload = [
        {"baseline": to_agentdiff_trace(b, "b"), "candidate": to_agentdiff_trace(c, "c")}
        for b, c in pairs
    ]
    proc = subprocess.run(
        [python, "-c", _RUNNER],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return [(json.loads(text), text) for text in json.loads(proc.stdout)]


def diff_rows(report: dict[str, Any]) -> list[tuple[str, int | None, int | None, str]]:
    """AgentDiff's step diffs as (status, baseline index, candidate index, name)."""
    return [
        (
            d["diff_status"],
            d["baseline_step"]["step_index"] if d["baseline_step"] else None,
            d["candidate_step"]["step_index"] if d["candidate_step"] else None,
            d["step_name"],
        )
        for d in report["step_diffs"]
    ]


def assert_parity(b: Run, c: Run, ours: dict[str, Any], ref: dict[str, Any], ref_text: str) -> None:
    """Equal where DESIGN.md follows AgentDiff; the documented difference where it does not."""
    for key in (
        "trajectory_divergence_index",
        "baseline_wei",
        "candidate_wei",
        "baseline_recovery_steps",
        "candidate_recovery_steps",
        "recovery_step_ratio",
    ):
        assert ours[key] == ref[key], key
        # same float, same JSON spelling
        match = re.search(rf'"{key}": ([^,\n]+)', ref_text)
        assert match is not None and json.dumps(ours[key]) == match.group(1), key
    ours_rows = [
        (d["status"], d["baseline_index"], d["candidate_index"], d["action"])
        for d in ours["step_diffs"]
    ]
    assert ours_rows == diff_rows(ref)
    for d, r in zip(ours["step_diffs"], ref["step_diffs"], strict=True):
        if d["status"] == "modified":  # the per-key input diff, as AgentDiff's argument_diff
            assert d["argument_diff"] == r["argument_diff"]

    bt, ct = run_totals(b), run_totals(c)
    for key, b_val, c_val in (
        ("cost", bt.cost_usd, ct.cost_usd),
        ("token", bt.tokens, ct.tokens),
        ("latency", bt.latency_ms, ct.latency_ms),
    ):
        value, ref_value = ours[f"{key}_delta_percentage"], ref[f"{key}_delta_percentage"]
        if b_val and c_val is not None:
            assert value == ref_value, key
        elif not b_val:
            # DESIGN.md: a zero or unknown baseline gives null plus a note; AgentDiff says 0 or 100.
            assert value is None and ours[f"{key}_delta_note"], key
            assert ref_value == (0.0 if not c_val else 100.0), key
        else:
            # An unknown candidate is unknown for reportgen; AgentDiff reads it as 0 (-100%).
            assert value is None and "candidate" in ours[f"{key}_delta_note"], key
            assert ref_value == -100.0, key

    # Loops: AgentDiff scans the candidate only and compares step names; reportgen scans both
    # runs by signature. Scanning the candidate's names with our code gives AgentDiff's loops.
    by_name = detect_loops(
        [s.action for s in c.steps],
        [canonical_json(s.input) for s in c.steps],
        [canonical_json(s.output) for s in c.steps],
    )
    ref_loops = [
        (lp["start_index"], lp["length"], lp["iterations"], lp["steps"], lp["stagnant"])
        for lp in ref["loops_detected"]
        if lp.get("type") != "graph_cycle"
    ]
    # A parent cycle: AgentDiff lists it among the loops; reportgen flags the run instead
    # (docs/agentdiff-parity.md). Both then align in step order.
    cycles = [lp for lp in ref["loops_detected"] if lp.get("type") == "graph_cycle"]
    assert ours["candidate_parent_cycle"] == bool(cycles)
    assert [
        (lp.start_index, lp.length, lp.iterations, lp.steps, lp.stagnant) for lp in by_name
    ] == ref_loops
    names_fix_signature = len({s.action for s in c.steps}) == len({s.signature for s in c.steps})
    if names_fix_signature:
        ours_candidate = [
            (lp["start_index"], lp["length"], lp["iterations"], lp["steps"], lp["stagnant"])
            for lp in ours["loops_detected"]
            if lp["side"] == "candidate"
        ]
        assert ours_candidate == ref_loops


def test_conformance_cases_against_reference() -> None:
    """Every conformance case: equal numbers, or the documented difference."""
    refs = reference([(case.baseline, case.candidate) for case in CASES])
    for case, (ref, text) in zip(CASES, refs, strict=True):
        ours = compare_pair(case.baseline, case.candidate, argument_diffs=True)
        assert_parity(case.baseline, case.candidate, ours, ref, text)


_VALUES = (0, 1, 1.0, 2, 2.0, -0.0, "s", [1, 2.0], {"n": 1, "m": 2}, {"m": 2.0, "n": 1})
_OUTPUTS = (None, {"r": 1}, {"r": 1.0}, {"r": 2}, {"a": 1, "b": [1]}, {"b": [1.0], "a": 1})
_ERRORS = (None, "timeout", "timeout", "rate limited", "")


def _random_input(rng: random.Random, keys: tuple[str, ...]) -> dict[str, Any]:
    """An input with the given keys in a random order and values that are often equal as
    values though spelled differently (1 and 1.0, reordered nested keys)."""
    order = list(keys)
    rng.shuffle(order)
    return {k: rng.choice(_VALUES[:3] if rng.random() < 0.6 else _VALUES) for k in order}


def _random_run(rng: random.Random, n_max: int, name_fixes_signature: bool) -> Run:
    """A random run in the shapes both tools read the same way (dict inputs, no {} output):
    some nested (parents earlier, later, or on a cycle), some empty, some with run totals."""
    kinds = {
        "a": ("tool_call", ("q",)),
        "b": ("llm_call", ()),
        "c": ("tool_call", ("p", "q")),
        "d": ("routing", ()),
    }
    n = rng.randrange(n_max + 1) if rng.random() < 0.9 else 0
    nesting = rng.choice(["flat", "flat", "tree", "any"])
    steps = []
    for i in range(n):
        name = rng.choice("abcd")
        typ, keys = kinds[name]
        if not name_fixes_signature:
            typ = rng.choice(["tool_call", "llm_call"])
            keys = tuple(k for k in ("p", "q") if rng.random() < 0.5)
        parent = None
        if nesting == "tree" and i and rng.random() < 0.7:
            parent = rng.randrange(i)
        elif nesting == "any" and rng.random() < 0.5:
            parent = rng.randrange(n)  # later steps and cycles too
        status = rng.choice(["ok"] * 5 + ["success", "error", "retry", "abandoned"])
        steps.append(
            Step(
                type=typ,
                action=name,
                input=_random_input(rng, keys),
                output=rng.choice(_OUTPUTS),
                status=status,
                error=rng.choice(_ERRORS if status in ("error", "retry") else (None,) * 5 + ("x",)),
                tokens_in=rng.randrange(50),
                tokens_out=rng.randrange(50),
                cost_usd=rng.choice([0.0, 0.001, rng.random() / 10]),
                latency_ms=float(rng.randrange(200)),
                parent=parent,
            )
        )
    if rng.random() < 0.5:
        return Run(tuple(steps))
    return Run(
        tuple(steps),
        tokens_in=rng.randrange(3),
        tokens_out=rng.randrange(100),
        cost_usd=rng.choice([0.0, rng.random()]),
        latency_ms=rng.choice([0.0, 1000.0 * rng.random()]),
    )


def _random_pairs(seed: int, count: int, name_fixes_signature: bool) -> list[tuple[Run, Run]]:
    """Random pairs, half of them a run and a perturbed copy (long alignments, recoveries)."""
    rng = random.Random(seed)
    pairs = []
    for _ in range(count):
        b = _random_run(rng, 12, name_fixes_signature)
        if rng.random() < 0.5:
            c = _random_run(rng, 12, name_fixes_signature)
        else:  # a perturbed copy: closer pairs make for long alignments and recoveries
            steps = (
                [replace(x, parent=None) for x in b.steps] if rng.random() < 0.5 else list(b.steps)
            )
            for _ in range(rng.randrange(4)):
                extra = _random_run(rng, 2, name_fixes_signature).steps
                pos = rng.randrange(len(steps) + 1)
                steps[pos:pos] = [replace(x, parent=None) for x in extra]
            for _ in range(rng.randrange(3)):  # error messages changed, nothing else
                if steps:
                    k = rng.randrange(len(steps))
                    steps[k] = replace(steps[k], error=rng.choice(_ERRORS))
            if any(x.parent is not None for x in steps):  # keep parents inside the run
                steps = [
                    x if x.parent is None or x.parent < len(steps) else replace(x, parent=None)
                    for x in steps
                ]
            c = Run(tuple(steps))
        pairs.append((b, c))
    return pairs


RANDOM_PAIRS = 400


@pytest.mark.parametrize("name_fixes_signature", [True, False])
def test_random_pairs_against_reference(name_fixes_signature: bool) -> None:
    """Hundreds of random pairs with repeats, errors and error messages, detours, nested and
    cyclic parents, reordered keys, 1 vs 1.0 and empty runs agree with AgentDiff (reference and archive)."""
    pairs = _random_pairs(2026 + name_fixes_signature, RANDOM_PAIRS, name_fixes_signature)
    refs = reference(pairs)
    con = connect()
    try:
        runs = {f"b{i}": b for i, (b, _) in enumerate(pairs)} | {
            f"c{i}": c for i, (_, c) in enumerate(pairs)
        }
        insert_runs(con, runs)
        got = pair_metrics(con, [Pair(f"p{i}", "t", f"b{i}", f"c{i}") for i in range(len(pairs))])
    finally:
        con.close()
    for (b, c), (ref, text), archived in zip(pairs, refs, got, strict=True):
        ours = compare_pair(b, c, argument_diffs=True)
        assert_parity(b, c, ours, ref, text)
        assert {k: v for k, v in archived.items() if k in ours} == compare_pair(b, c)


def _agentdiff_file_trace(rng: random.Random, trace_id: str) -> dict[str, Any]:
    """A random AgentDiff trace as a file would hold it: steps listed in step_index order,
    parents by step id (earlier, later, cyclic), reordered keys, token counts given as a
    total only or in parts, error messages, sometimes no steps at all."""
    n = rng.randrange(9) if rng.random() < 0.9 else 0
    steps = []
    for i in range(n):
        name = rng.choice("abc")
        keys = {"a": ("q",), "b": (), "c": ("p", "q")}[name]
        total_only = rng.random() < 0.5
        t_in, t_out = rng.randrange(40), rng.randrange(40)
        tokens: dict[str, Any] = (
            {"total_tokens": t_in + t_out}
            if total_only
            else {"prompt_tokens": t_in, "completion_tokens": t_out, "total_tokens": t_in + t_out}
        )
        tokens["estimated_cost_usd"] = rng.choice([0.0, 0.001])
        status = rng.choice(["success"] * 4 + ["error", "retry"])
        step: dict[str, Any] = {
            "step_id": f"{trace_id}-{i}",
            "step_index": i,
            "step_type": "llm_call" if name == "b" else "tool_call",
            "name": name,
            "input_payload": _random_input(rng, keys),
            "output_payload": rng.choice(_OUTPUTS),
            "status": status,
            "latency_ms": float(rng.randrange(100)),
            "tokens": tokens,
        }
        if status != "success" or rng.random() < 0.1:
            step["error_message"] = rng.choice(_ERRORS)
        if rng.random() < 0.3:
            step["parent_id"] = f"{trace_id}-{rng.randrange(n)}"
        steps.append(step)
    t_total = sum(x["tokens"]["total_tokens"] for x in steps)
    return {
        "trace_id": trace_id,
        "agent_name": "agent",
        "task_input": {"task_id": trace_id.split("/")[0]},
        "steps": steps,
        # AgentDiff reads only the run totals: give them as a total only, as its export does
        "total_latency_ms": sum(x["latency_ms"] for x in steps),
        "total_tokens": {"total_tokens": t_total, "estimated_cost_usd": 0.01 * len(steps)},
    }


FILE_PAIRS = 120


def test_agentdiff_files_through_the_adapter(tmp_path: Path) -> None:
    """AgentDiff trace files (total-only tokens, parents by id in any order, reordered keys,
    empty traces) ingested by reportgen give AgentDiff's numbers for the same files."""
    rng = random.Random(19)
    pairs = [
        (_agentdiff_file_trace(rng, f"t{i}/b"), _agentdiff_file_trace(rng, f"t{i}/c"))
        for i in range(FILE_PAIRS)
    ]
    for i, (b, c) in enumerate(pairs):
        (tmp_path / f"{i}-b.json").write_text(json.dumps(b))
        (tmp_path / f"{i}-c.json").write_text(json.dumps(c))
    refs = _reference_traces(pairs)
    db = tmp_path / "a.duckdb"
    ingest([tmp_path], db=db)
    con = connect(db)
    try:
        got = pair_metrics(
            con,
            [
                Pair(f"p{i}", f"t{i}", b["trace_id"], c["trace_id"])
                for i, (b, c) in enumerate(pairs)
            ],
        )
    finally:
        con.close()
    for (b, c), ref, ours in zip(pairs, refs, got, strict=True):
        for key in (
            "trajectory_divergence_index",
            "baseline_wei",
            "candidate_wei",
            "baseline_recovery_steps",
            "candidate_recovery_steps",
            "recovery_step_ratio",
        ):
            assert ours[key] == ref[key], (key, b["trace_id"])
        assert [
            (d["status"], d["baseline_index"], d["candidate_index"], d["action"])
            for d in ours["step_diffs"]
        ] == diff_rows(ref), b["trace_id"]
        # stagnant loops ignore error messages (AgentDiff compares input and output only)
        assert [
            (lp["start_index"], lp["length"], lp["iterations"], lp["steps"], lp["stagnant"])
            for lp in ours["loops_detected"]
            if lp["side"] == "candidate"
        ] == [
            (lp["start_index"], lp["length"], lp["iterations"], lp["steps"], lp["stagnant"])
            for lp in ref["loops_detected"]
            if lp.get("type") != "graph_cycle"
        ], c["trace_id"]
        base_tokens = b["total_tokens"]["total_tokens"]
        if base_tokens:  # a zero baseline: null plus a note (DESIGN.md), AgentDiff 0 or 100
            assert ours["token_delta_percentage"] == ref["token_delta_percentage"]
        if not c["steps"] and b["steps"]:
            assert ours["cost_delta_percentage"] == ref["cost_delta_percentage"] == -100.0


def _reference_traces(pairs: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[dict[str, Any]]:
    """AgentDiff's report for each pair of raw AgentDiff traces."""
    python = _reference_python()
    assert python is not None
    payload = [{"baseline": b, "candidate": c} for b, c in pairs]
    proc = subprocess.run(
        [python, "-c", _RUNNER],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return [json.loads(text) for text in json.loads(proc.stdout)]


def test_documented_differences() -> None:
    """The on-purpose differences from AgentDiff, seen on both tools."""
    empty = run()
    keyed = (run(step("a", "x")), run(step("a", "x"), step("a", "y")))
    two_recoveries = next(case for case in CASES if case.name == "two recoveries")
    absent_vs_empty_output = (
        Run((Step("tool_call", "a", {}, None),)),
        Run((Step("tool_call", "a", {}, {}),)),
    )
    pairs = [
        (empty, empty),
        keyed,
        (two_recoveries.baseline, two_recoveries.candidate),
        absent_vs_empty_output,
    ]
    (r_empty, _), (r_keyed, _), (r_two, _), (r_output, _) = reference(pairs)

    # 0 -> 0: AgentDiff 0.0, reportgen null with a note.
    ours = compare_pair(empty, empty)
    assert r_empty["cost_delta_percentage"] == 0.0
    assert ours["cost_delta_percentage"] is None and "is 0" in ours["cost_delta_note"]

    # Loops by signature: a{x}, a{y} is a loop for AgentDiff (same name), not for reportgen.
    assert len(r_keyed["loops_detected"]) == 1
    assert compare_pair(*keyed)["loops_detected"] == []

    # Loops of both runs: the baseline's q!, q is reported by reportgen only.
    assert r_two["loops_detected"] == []
    assert [
        lp["side"]
        for lp in compare_pair(two_recoveries.baseline, two_recoveries.candidate)["loops_detected"]
    ] == ["baseline"]

    # Payloads compare as JSON text: absent output (null) and {} differ for reportgen.
    assert r_output["step_diffs"][0]["diff_status"] == "matched"
    assert compare_pair(*absent_vs_empty_output)["step_diffs"][0]["status"] == "modified"
