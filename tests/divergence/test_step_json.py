"""compare --json writes step_diffs as text (reportgen.divergence.step_json): every pair parses
to exactly the value the dict path (the oracle: steps attached as dicts, encoded by orjson)
gives, on the sample runs and on random pairs; reportgen's own keys are sorted; each pair is
one line."""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen.archive import connect
from reportgen.divergence import _kernels
from reportgen.divergence import compare as compare_module
from reportgen.divergence.compare import Comparison, compare_labels, compare_pairing, compare_paths
from reportgen.divergence.metrics import Pair, insert_runs
from reportgen.divergence.pairing import Pairing
from reportgen.divergence.reference import Run, Step, argument_diff
from reportgen.resources import shipped_dir
from reportgen.strict_json import dumps_bytes, iter_json


def _equal(a: Any, b: Any) -> bool:
    """Equal JSON values: objects whatever their key order, floats bit for bit (-0.0 is not
    0.0), numbers of the same type."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_equal, a, b))
    if isinstance(a, float) and isinstance(b, float):
        return struct.pack("<d", a) == struct.pack("<d", b)
    return type(a) is type(b) and a == b


def _written(comparison: Comparison) -> bytes:
    return b"".join(iter_json(comparison.to_json()))


def _pairs(text: bytes) -> list[Any]:
    value = orjson.loads(text)
    return list(value.get("pairs", [value]))


def _assert_same_content(oracle: Comparison, fast: Comparison) -> None:
    """The fast JSON parses to the oracle's, pair by pair, and everything else alike."""
    old, new = orjson.loads(dumps_bytes(oracle.to_json())), orjson.loads(_written(fast))
    old_pairs, new_pairs = _pairs(dumps_bytes(oracle.to_json())), _pairs(_written(fast))
    assert len(old_pairs) == len(new_pairs)
    for before, after in zip(old_pairs, new_pairs, strict=True):
        assert _equal(before, after), before["pair_id"]
    old.pop("pairs", None), new.pop("pairs", None)
    old.pop("step_diffs", None), new.pop("step_diffs", None)
    assert _equal(old, new)


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from reportgen.demo import run_demo

    db, _report, _summary = run_demo(tmp_path_factory.mktemp("demo") / "demo", site=False)
    return db


def test_demo_archive_same_content_in_several_batches(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(compare_module, "STEP_BATCH", 2)
    con = connect(demo_db, read_only=True)
    try:
        oracle = compare_labels(con, "baseline", "candidate")
        fast = compare_labels(con, "baseline", "candidate", steps_later=True)
        assert len(fast.pairs) > 2 and fast.step_json is not None
        assert all(not p["step_diffs"] for p in fast.pairs)  # no dicts held
        _assert_same_content(oracle, fast)
    finally:
        con.close()


def test_sample_runs_folders_same_content() -> None:
    night = shipped_dir("sample_runs") / "nightly" / "2026-11-28"
    sides = ([night / "baseline.jsonl"], [night / "candidate.jsonl"])
    oracle = compare_paths(*sides)
    con = connect(None)
    try:
        fast = compare_paths(*sides, steps_later=True, con=con)
        assert any(r["status"] == "modified" for p in oracle.pairs for r in p["step_diffs"])
        _assert_same_content(oracle, fast)
    finally:
        con.close()


def test_one_pair_is_the_pair_at_top_level(tmp_path: Path) -> None:
    con = connect(None)
    try:
        b = Run((Step("tool", "f", input={"x": 1}, cost_usd=-0.0),))
        c = Run((Step("tool", "f", input={"x": 2}, cost_usd=1e16),))
        insert_runs(con, {"b": b, "c": c})
        pairing = Pairing([Pair("p", "t", "b", "c")])
        oracle = compare_pairing(con, pairing)
        fast = compare_pairing(con, pairing, steps_later=True)
        _assert_same_content(oracle, fast)
        row = orjson.loads(_written(fast))["step_diffs"][0]
        assert row["argument_diff"] == {"x": {"status": "changed", "old_value": 1, "new_value": 2}}
    finally:
        con.close()


def _sorted_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    assert keys == sorted(keys), keys
    return dict(pairs)


def test_own_keys_sorted_and_one_pair_a_line(demo_db: Path) -> None:
    """Top level, pair, step_diffs row and step: keys sorted as written (payloads inside a
    step keep their stored order); ``pairs`` holds one pair per line."""
    con = connect(demo_db, read_only=True)
    try:
        text = _written(compare_labels(con, "baseline", "candidate", steps_later=True))
    finally:
        con.close()
    lines = text.split(b"\n")
    assert lines[:2] == [b"{", b'  "pairs": [']
    pair_lines = lines[2 : lines.index(b"  ],")]
    top = json.loads(text, object_pairs_hook=lambda kv: kv)
    _sorted_keys(top)
    pairs = dict(top)["pairs"]
    assert len(pair_lines) == len(pairs) > 1
    for line in pair_lines:
        pair = _sorted_keys(json.loads(line.rstrip(b","), object_pairs_hook=lambda kv: kv))
        for row in pair["step_diffs"]:
            fields = _sorted_keys(row)
            for side in ("baseline_step", "candidate_step"):
                if fields[side] is not None:
                    step = _sorted_keys(fields[side])
                    assert list(step) == sorted(compare_module._STEP_FIELDS)


# ------------------------------------------------------------------ random pairs

VALUES: list[Any] = [
    0, 1, 1.0, -0.0, 0.0, 0.1 + 0.2, 1e-05, 1e16, 1e300, 12345678901234567890123, -(2**63),
    math.nan, math.inf, "a", "a\n\"é", "\\u0041", "NaN", True, False, None, [1, 2], [1.0, 2],
    {"p": 1, "q": [1.0]}, {"q": [1], "p": 1}, {"z": {"y": None}},
]  # fmt: skip
NUMBERS: list[Any] = [None, 0.0, -0.0, 0.1 + 0.2, 1e-05, 1e16, 1e300, 5e-324, math.nan, math.inf]
LATENCIES: list[Any] = [None, 0.0, -0.0, 0.1 + 0.2, 1e-05, 850.0]  # (spend reads it as a time)


def _spelled(value: Any) -> Any:
    """The same value with every object's keys in reverse order."""
    if isinstance(value, dict):
        return {k: _spelled(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [_spelled(v) for v in value]
    return value


steps = st.lists(
    st.builds(
        Step,
        type=st.sampled_from(["tool", "llm"]),
        action=st.sampled_from(["a", "b", 'c"\u2028']),
        input=st.one_of(
            st.sampled_from([None, "text", [1], {}]),
            st.dictionaries(
                st.sampled_from(["x", "y", "k é"]), st.sampled_from(VALUES), max_size=3
            ),
        ),
        output=st.sampled_from([None, "o", {"r": 1, "a": 2}, 1.0]),
        status=st.sampled_from(["ok", "ok", "error", "retry", "odd"]),
        tokens_in=st.sampled_from([None, 0, 7, 123456]),
        cost_usd=st.sampled_from(NUMBERS),
        latency_ms=st.sampled_from(LATENCIES),
        error=st.sampled_from([None, "boom", 'tab\t"q"']),
    ),
    max_size=12,
)


def _respell(con: Any, runs: dict[str, Run]) -> None:
    """Store every input and output as other text of the same value (keys reversed, spaces),
    as a file may give it: the hashes still hold."""
    rows: dict[str, list[Any]] = {"run_id": [], "idx": [], "input": [], "output": []}
    for run_id, run in runs.items():
        for idx, s in enumerate(run.steps):
            rows["run_id"].append(run_id)
            rows["idx"].append(idx)
            for name, value in (("input", s.input), ("output", s.output)):
                rows[name].append(None if value is None else json.dumps(_spelled(value)))
    con.register("rg_respelled", pa.table(rows))
    con.execute(
        "UPDATE steps SET input = r.input, output = r.output FROM rg_respelled AS r"
        " WHERE steps.run_id = r.run_id AND steps.idx = r.idx"
    )
    con.unregister("rg_respelled")


def _runs(sides: list[list[Step]]) -> Iterator[tuple[str, Run]]:
    for n, side in enumerate(sides):
        yield f"r{n}", Run(tuple(side))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(steps, min_size=6, max_size=6), st.booleans())
def test_random_pairs_same_content(sides: list[list[Step]], respell: bool) -> None:
    runs = dict(_runs(sides))
    con = connect(None)
    try:
        insert_runs(con, runs)
        if respell:
            _respell(con, runs)
        pairing = Pairing([Pair(f"p{k}", "t", f"r{2 * k}", f"r{2 * k + 1}") for k in range(3)])
        oracle = compare_pairing(con, pairing)
        old = compare_module.STEP_BATCH
        compare_module.STEP_BATCH = 2
        try:
            fast = compare_pairing(con, pairing, steps_later=True)
            _assert_same_content(oracle, fast)
        finally:
            compare_module.STEP_BATCH = old
    finally:
        con.close()


def test_step_numbers_parse_to_the_same_floats() -> None:
    """Step numbers are written by DuckDB (``1e+16`` may read ``10000000000000000.0``): the
    same floats, bit for bit; a non-finite one is null, as reportgen's own."""
    con = connect(None)
    try:
        values = [v for v in NUMBERS if v is not None]
        b = Run(tuple(Step("tool", "f", cost_usd=v) for v in values))
        insert_runs(con, {"b": b, "c": b})
        fast = compare_pairing(con, Pairing([Pair("p", "t", "b", "c")]), steps_later=True)
        rows = orjson.loads(_written(fast))["step_diffs"]
        got = [r["baseline_step"]["cost_usd"] for r in rows]
        expect = [v if math.isfinite(v) else None for v in values]
        assert _equal(got, expect)
    finally:
        con.close()


# ------------------------------------------------------------------ the argument diff kernel


def _kernel_diffs(pairs: list[tuple[str | None, str | None]]) -> tuple[list[Any], list[int]]:
    """_kernels.argument_diffs of (before, after) input texts (None: no step)."""
    texts = [t for pair in pairs for t in pair if t is not None]
    where: dict[int, int] = {}
    rows: list[list[int]] = [[], []]
    for pair in pairs:
        for side, text in enumerate(pair):
            rows[side].append(-1 if text is None else len(where))
            if text is not None:
                where[len(where)] = len(where)
    data = b"".join(t.encode() for t in texts)
    off = np.cumsum([0, *(len(t.encode()) for t in texts)], dtype=np.int64)
    return _kernels.argument_diffs(
        np.array(rows[0], dtype=np.int64),
        np.array(rows[1], dtype=np.int64),
        off,
        np.frombuffer(data, dtype=np.uint8).copy(),
    )


inputs = st.one_of(
    st.sampled_from([None, "text", [1], 1.0]),
    st.dictionaries(
        st.sampled_from(["x", "y", "é", "a\\u0041"]), st.sampled_from(VALUES), max_size=3
    ),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(inputs, inputs, st.booleans(), st.booleans(), st.booleans()), max_size=8))
def test_argument_diff_kernel_equals_the_reference(cases: list[Any]) -> None:
    """Every row the kernel answers equals reference.argument_diff of the parsed inputs (a
    row it leaves is answered by the reference itself)."""
    pairs = [
        (
            None if gone_b else json.dumps(_spelled(b) if spell else b),
            None if gone_c else json.dumps(c, separators=(",", ":")),
        )
        for b, c, spell, gone_b, gone_c in cases
    ]
    texts, left = _kernel_diffs(pairs)
    for m, (b, c) in enumerate(pairs):
        if m in left:
            continue
        want = argument_diff(
            None if b is None else json.loads(b), None if c is None else json.loads(c)
        )
        got = None if texts[m] is None else orjson.loads(texts[m])
        assert _equal(got, orjson.loads(dumps_bytes(want))), (b, c)


def test_argument_diff_kernel_answers_plain_inputs_itself() -> None:
    pairs = [('{"path": "a.py", "n": 1}', '{"n": 2, "path": "a.py"}'), ('{"q": "x"}', '{"q": "x"}')]
    texts, left = _kernel_diffs(pairs)
    assert left == []
    assert texts == [b'{"n":{"new_value":2,"old_value":1,"status":"changed"}}', None]
    _, left = _kernel_diffs(
        [('{"a": 1}', '{"a": 1.0}'), ('{"a\\u0041": 1}', "{}"), ('{"a": NaN}', "{}")]
    )
    assert left == [0, 1, 2]


def test_no_pairs_only_unpaired_runs() -> None:
    con = connect(None)
    try:
        insert_runs(con, {"b": Run((Step("tool", "f"),))})
        pairing = Pairing([], [])
        fast = compare_pairing(con, pairing, steps_later=True)
        assert orjson.loads(_written(fast))["pairs"] == []
    finally:
        con.close()


def _number_texts(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(path, text) of every number of a value parsed with numbers kept as their text."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _number_texts(v, f"{path}/{k}")
    elif isinstance(value, list):
        for n, v in enumerate(value):
            yield from _number_texts(v, f"{path}/{n}")
    elif isinstance(value, _Text):
        yield path, str(value)


class _Text(str):
    """A number's text as written."""


def test_own_numbers_written_as_before(demo_db: Path) -> None:
    """Every number reportgen computes (metrics, totals, deltas, summary) has the same text in
    the one-line pairs as in the indented encoding of the dict path."""
    con = connect(demo_db, read_only=True)
    try:
        oracle = dumps_bytes(compare_labels(con, "baseline", "candidate").to_json())
        fast = _written(compare_labels(con, "baseline", "candidate", steps_later=True))
    finally:
        con.close()

    def numbers(text: bytes) -> list[tuple[str, str]]:
        value = json.loads(text, parse_float=_Text, parse_int=_Text)
        for pair in value["pairs"]:
            pair.pop("step_diffs")
        return list(_number_texts(value))

    found = numbers(fast)
    assert found == numbers(oracle)
    assert any("e" in text or "." in text for _, text in found)
