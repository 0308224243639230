"""The AgentDiff 0.3.0 parity items of issue 19, each worked by hand, on the plain-Python
reference and on the archive path (SQL + kernels), plus the kernels against the reference on
random inputs. The black-box comparison with AgentDiff itself is test_agentdiff_parity.py."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import duckdb
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.archive import connect
from reportgen.archive.canonical import canonical_text
from reportgen.divergence import _kernels
from reportgen.divergence.compare import _attach_steps
from reportgen.divergence.metrics import Pair, insert_runs, pair_metrics
from reportgen.divergence.reference import (
    Run,
    Step,
    alignment_order,
    argument_diff,
    canonical_json,
    compare_pair,
    first_divergence,
    identical_calls,
    tdi,
)


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    c = connect()
    yield c
    c.close()


_made = itertools.count()


def both(con: duckdb.DuckDBPyConnection, b: Run, c: Run) -> dict[str, object]:
    """compare_pair of the two runs, checked equal to the archive path, which is returned."""
    k = next(_made)
    insert_runs(con, {f"b{k}": b, f"c{k}": c})
    got = pair_metrics(con, [Pair("p", "t", f"b{k}", f"c{k}")])[0]
    ours = {k: v for k, v in got.items() if k not in ("pair_id", "task_id") and "_run_id" not in k}
    assert ours == compare_pair(b, c)
    return dict(got)


def s(action: str, parent: int | None = None, **kw: object) -> Step:
    return Step("tool_call", action, parent=parent, **kw)  # type: ignore[arg-type]


# ------------------------------------------------------------------ nested alignment order


def test_alignment_order_by_hand() -> None:
    """Generation by generation: roots in step order, then children parent by parent."""
    #  0 r0, 1 a(r0), 2 r1, 3 b(r1), 4 c(r0), 5 d(a), 6 e(b)
    parents = [None, 0, None, 2, 0, 1, 3]
    assert alignment_order(parents) == ([0, 2, 1, 4, 3, 5, 6], False)
    # a parent that is no step of the run is no parent (AgentDiff: no such node, no edge)
    assert alignment_order([None, 7, -1]) == ([0, 1, 2], False)
    # a later parent is fine: the child follows it
    assert alignment_order([1, None]) == ([1, 0], False)
    # a cycle (or a step its own parent): step order, flagged
    assert alignment_order([1, 0, None]) == ([0, 1, 2], True)
    assert alignment_order([None, 1]) == ([0, 1], True)


def test_issue_example_nested_reorder(con: duckdb.DuckDBPyConnection) -> None:
    """Baseline A, B(parent A), C vs candidate A, C, B(parent A): TDI 0.0, as AgentDiff."""
    base = Run((s("A"), s("B", 0), s("C")))
    cand = Run((s("A"), s("C"), s("B", 0)))
    got = both(con, base, cand)
    assert got["trajectory_divergence_index"] == 0.0
    # rows in alignment order (A, C, B); indices stay each run's step indices
    assert [(d["baseline_index"], d["candidate_index"]) for d in got["step_diffs"]] == [  # type: ignore[index, union-attr]
        (0, 0),
        (2, 1),
        (1, 2),
    ]
    assert got["first_divergence"] is None
    assert (got["baseline_parent_cycle"], got["candidate_parent_cycle"]) == (False, False)


def test_parent_cycle_aligns_in_step_order(con: duckdb.DuckDBPyConnection) -> None:
    """A cycle in the candidate's parents: step order, and the pair says so."""
    base = Run((s("A"), s("C"), s("B", 0)))
    cand = Run((s("A", 2), s("C"), s("B", 0)))  # A <- B <- A
    got = both(con, base, cand)
    assert got["candidate_parent_cycle"] is True and got["baseline_parent_cycle"] is False
    # baseline order A, C, B; candidate in step order A, C, B: the same path
    assert got["trajectory_divergence_index"] == 0.0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.one_of(st.none(), st.integers(-1, 12)), max_size=12), max_size=6))
def test_kernel_orders_equal_reference(runs: list[list[int | None]]) -> None:
    """alignment_orders (Cython, all runs at once) equals alignment_order run by run."""
    parent = np.array([-1 if p is None else p for r in runs for p in r], dtype=np.int64)
    off = np.zeros(len(runs) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in runs], out=off[1:])
    order = np.empty(parent.size, dtype=np.int64)
    cycle = np.zeros(len(runs), dtype=np.int8)
    moved = _kernels.alignment_orders(parent, off, order, cycle)
    expected = [alignment_order(r) for r in runs]
    for k, (want, want_cycle) in enumerate(expected):
        assert order[off[k] : off[k + 1]].tolist() == want
        assert bool(cycle[k]) == want_cycle
    assert moved == any(o != list(range(len(o))) for o, _ in expected)


# ------------------------------------------------------------------ canonical payloads


def test_canonical_values() -> None:
    """Key order and integral floats do not count; booleans, strings and -0.0 as expected."""
    assert canonical_json({"y": 2, "x": 1}) == canonical_json({"x": 1, "y": 2})
    assert canonical_json({"x": 1.0}) == canonical_json({"x": 1}) == '{"x":1}'
    assert canonical_json([-0.0, 1e2, 0.5]) == "[0,100,0.5]"
    assert canonical_json(True) != canonical_json(1)
    assert canonical_json({"a": {"c": 1, "b": [2.0]}}) == '{"a":{"b":[2],"c":1}}'
    # the archive's function (orjson) gives equal texts exactly for equal canonical values
    for text, same in (
        ('{"y":2,"x":1}', '{"x":1,"y":2}'),
        ('{"x":1.0}', '{"x":1}'),
        ('"\\u00e9"', '"é"'),
        ("[1e2, -0.0]", "[100,0]"),
        ('{"n": 123456789012345678901234567890}', '{"n":123456789012345678901234567890}'),
    ):
        assert canonical_text(text) == canonical_text(same), text
    assert canonical_text("true") != canonical_text("1")
    assert canonical_text("not json") == "not json"
    assert canonical_text(None) is None


def test_reordered_keys_and_int_float_are_stagnant_and_matched(
    con: duckdb.DuckDBPyConnection,
) -> None:
    """The issue's examples: a stagnant loop for AgentDiff is one for reportgen, and a step
    whose input keys are only reordered is matched, not modified."""
    loop = Run((s("f", input={"x": 1, "y": 2}), s("f", input={"y": 2, "x": 1})))
    got = both(con, Run((s("f", input={"x": 1, "y": 2}),)), loop)
    assert [(x["side"], x["stagnant"]) for x in got["loops_detected"]] == [("candidate", True)]  # type: ignore[attr-defined]
    floats = Run((s("f", input={"x": 1}), s("f", input={"x": 1.0})))
    got = both(con, floats, floats)
    assert [x["stagnant"] for x in got["loops_detected"]] == [True, True]  # type: ignore[attr-defined]
    got = both(
        con,
        Run((s("f", input={"x": 1, "y": [1, 2]}, output={"r": 2.0}),)),
        Run((s("f", input={"y": [1.0, 2], "x": 1}, output={"r": 2}),)),
    )
    assert [d["status"] for d in got["step_diffs"]] == ["matched"]  # type: ignore[index, union-attr]


def test_old_archives_get_canonical_hashes(tmp_path: object) -> None:
    """An archive whose stored payload hashes predate canonical payloads is recomputed when
    opened (the probe value changed), so the stored hashes are value hashes."""
    from pathlib import Path

    db = Path(str(tmp_path)) / "a.duckdb"
    con = connect(db)
    insert_runs(con, {"b": Run((s("f", input={"x": 1}),)), "c": Run((s("f", input={"x": 1.0}),))})
    con.execute("UPDATE steps SET payload = hash(CAST(input AS VARCHAR))")  # the old way
    con.execute("UPDATE archive_info SET value = 'old' WHERE key = 'step_hashes'")
    con.close()
    con = connect(db)
    try:
        got = pair_metrics(con, [Pair("p", "t", "b", "c")])[0]
        assert got["step_diffs"][0]["status"] == "matched"
    finally:
        con.close()


# ------------------------------------------------------------------ error messages


def test_error_message_counts_for_modified_not_for_loops(con: duckdb.DuckDBPyConnection) -> None:
    """The issue's two cases: with a null output, two identical failing calls whose messages
    differ are a stagnant loop; two aligned error steps differing only in the message are
    modified, not matched."""
    fail = {"status": "error", "input": {"q": 1}}
    got = both(
        con,
        Run((s("f", **fail, error="timeout"),)),
        Run((s("f", **fail, error="timeout"), s("f", **fail, error="rate limited"))),
    )
    assert [(x["side"], x["stagnant"]) for x in got["loops_detected"]] == [("candidate", True)]  # type: ignore[attr-defined]
    got = both(
        con,
        Run((s("f", **fail, output={"r": 1}, error="timeout"),)),
        Run((s("f", **fail, output={"r": 1}, error="rate limited"),)),
    )
    assert [d["status"] for d in got["step_diffs"]] == ["modified"]  # type: ignore[index, union-attr]
    same = Run((s("f", **fail, output={"r": 1}, error="timeout"),))
    assert [d["status"] for d in both(con, same, same)["step_diffs"]] == ["matched"]  # type: ignore[index, union-attr]
    no_message = Run((s("f", **fail, output={"r": 1}),))
    assert [d["status"] for d in both(con, same, no_message)["step_diffs"]] == ["modified"]  # type: ignore[index, union-attr]


def test_error_messages_ingested_from_files(tmp_path: Path) -> None:
    """A native trace's ``error`` and an AgentDiff ``error_message`` land in steps.error, apart
    from the output; a message that is not a string is bad input naming the field."""
    from reportgen.errors import InputError
    from reportgen.ingest import ingest

    native = {"task_id": "t", "steps": [
        {"type": "tool", "action": "f", "status": "error", "error": "boom"},
        {"type": "tool", "action": "f", "status": "ok", "output": {"r": 1}},
    ]}  # fmt: skip
    (tmp_path / "n.json").write_text(json.dumps(native))
    agentdiff = {"trace_id": "ad", "agent_name": "a", "task_input": {}, "steps": [
        {"step_id": "s0", "step_index": 0, "step_type": "tool_call", "name": "f",
         "input_payload": {}, "output_payload": None, "status": "error",
         "error_message": "timeout", "latency_ms": 1.0},
    ]}  # fmt: skip
    (tmp_path / "a.json").write_text(json.dumps(agentdiff))
    db = tmp_path / "a.duckdb"
    ingest([tmp_path], db=db)
    archive = connect(db)
    try:
        rows = archive.execute(
            "SELECT idx, CAST(output AS VARCHAR), error FROM steps ORDER BY run_id DESC, idx"
        ).fetchall()
    finally:
        archive.close()
    assert sorted(rows, key=str) == sorted(
        [(0, None, "boom"), (1, '{"r":1}', None), (0, None, "timeout")], key=str
    )
    bad = tmp_path / "bad"
    bad.mkdir()
    native["steps"][0]["error"] = 3  # type: ignore[index]
    (bad / "n.json").write_text(json.dumps(native))
    with pytest.raises(InputError) as caught:
        ingest([bad], db=tmp_path / "b.duckdb")
    assert "steps[0].error" in str(caught.value) or "steps[].error" in str(caught.value)


def test_old_archive_gets_the_error_column(tmp_path: Path) -> None:
    """An archive written before steps.error existed gets it (NULL) when opened writable."""
    db = tmp_path / "old.duckdb"
    con = connect(db)
    insert_runs(con, {"b": Run((s("f"),))})
    con.execute("ALTER TABLE steps DROP COLUMN error")
    con.close()
    con = connect(db)
    try:
        assert con.execute("SELECT error FROM steps").fetchall() == [(None,)]
        assert pair_metrics(con, [Pair("p", "t", "b", "b")])[0]["step_diffs"][0]["status"] == (
            "matched"
        )
    finally:
        con.close()


# ------------------------------------------------------------------ empty runs, TDI helper


def test_empty_run_spends_nothing(con: duckdb.DuckDBPyConnection) -> None:
    """An empty candidate (no steps, no totals) against a non-empty baseline is -100 %; a run
    whose steps carry no cost stays unknown."""
    base = Run((s("a", tokens_in=10, cost_usd=0.5, latency_ms=20.0),))
    got = both(con, base, Run())
    assert got["cost_delta_percentage"] == -100.0
    assert got["token_delta_percentage"] == -100.0
    assert got["latency_delta_percentage"] == -100.0
    assert got["candidate_totals"] == {  # type: ignore[comparison-overlap]
        "steps": 0,
        "wasted_steps": 0,
        "tokens": 0,
        "cost_usd": 0.0,
        "latency_ms": 0.0,
    }
    got = both(con, base, Run((s("a"),)))
    assert got["cost_delta_percentage"] is None and "candidate" in str(got["cost_delta_note"])


def test_tdi_validates_like_agentdiff() -> None:
    """Negative counts raise ValueError; an LCS longer than the shorter run is clamped."""
    with pytest.raises(ValueError, match="non-negative"):
        tdi(0, 1, -1)
    with pytest.raises(ValueError, match="non-negative"):
        tdi(-1, 1, 0)
    assert tdi(3, 5, 100) == 0.25
    assert tdi(0, 0, 0) == 0.0
    assert tdi(2, 2, 1) == 0.5


# ------------------------------------------------------------------ argument_diff


def test_argument_diff_by_hand(con: duckdb.DuckDBPyConnection) -> None:
    """Keys added, removed and changed (values compared as values), sorted; None if equal."""
    assert argument_diff({"q": 1, "x": 1, "z": [1]}, {"q": 1.0, "x": 2, "y": 3}) == {
        "x": {"status": "changed", "old_value": 1, "new_value": 2},
        "y": {"status": "added", "new_value": 3},
        "z": {"status": "removed", "old_value": [1]},
    }
    assert argument_diff({"a": 1}, {"a": 1}) is None
    assert argument_diff(None, {"a": 1}) == {"a": {"status": "added", "new_value": 1}}
    base = Run((s("f", input={"x": 1}), s("g", input={"k": "a"}, output="one")))
    cand = Run((s("f", input={"x": 2}), s("g", input={"k": "a"}, output="two")))
    both(con, base, cand)
    # compare --json gives it where it attaches the steps (the inputs are read there anyway)
    insert_runs(con, {"arg-b": base, "arg-c": cand})
    records = pair_metrics(con, [Pair("p", "t", "arg-b", "arg-c")])
    _attach_steps(con, records)
    expected = [
        {"x": {"status": "changed", "old_value": 1, "new_value": 2}},
        None,  # only the output changed
    ]
    for rows in (
        records[0]["step_diffs"],
        compare_pair(base, cand, argument_diffs=True)["step_diffs"],
    ):
        assert [r["status"] for r in rows] == ["modified", "modified"]
        assert [r["argument_diff"] for r in rows] == expected  # type: ignore[typeddict-item]


# ------------------------------------------------------------------ identical calls, first divergence


def test_identical_calls_by_hand(con: duckdb.DuckDBPyConnection) -> None:
    """The same file read three times unchanged, not back to back: two identical calls; a
    read whose output changed, or another file, is none."""
    read = s("read", input={"path": "a.py"}, output="text")
    cand = Run(
        (
            read,
            s("edit", input={"path": "a.py"}),
            s("read", input={"path": "a.py"}, output="text"),
            s("read", input={"path": "b.py"}, output="text"),
            s("read", input={"path": "a.py"}, output="changed"),
            s("test"),
            Step("tool_call", "read", {"path": "a.py"}, "text"),
        )
    )
    assert identical_calls(cand.steps) == 2
    got = both(con, Run((read,)), cand)
    assert (got["baseline_identical_calls"], got["candidate_identical_calls"]) == (0, 2)


def test_first_divergence_is_end_of_common_prefix(con: duckdb.DuckDBPyConnection) -> None:
    """The LCS traceback pairs the baseline's only `a` with the candidate's last one; the first
    divergence is still where the sequences part: position 1."""
    base = Run((s("a"), s("b")))
    cand = Run((s("a"), s("x"), s("a"), s("b")))
    got = both(con, base, cand)
    rows = [(d["baseline_index"], d["candidate_index"]) for d in got["step_diffs"]]  # type: ignore[index, union-attr]
    assert rows == [(None, 0), (None, 1), (0, 2), (1, 3)]  # AgentDiff's traceback
    assert got["first_divergence"] == {"position": 1, "baseline_index": 1, "candidate_index": 1}
    assert first_divergence("ab", "ab") is None
    assert first_divergence("ab", "abc") == 2
    got = both(con, Run((s("a"),)), Run((s("a"), s("b"))))
    assert got["first_divergence"] == {"position": 1, "baseline_index": None, "candidate_index": 1}
