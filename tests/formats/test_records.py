"""``record_batches`` gives each file's records as Python would split them: a ``.json``
document whole (``many`` when it is an array), each non-blank line of a ``.jsonl`` file (gzip
inflated), in file order, whatever the batch size, from the bytes a file's measure kept or
from the file."""

from __future__ import annotations

import gzip
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen.formats import source as source_module
from reportgen.formats.records import record_batches
from reportgen.formats.source import measure, measure_all

line = st.sampled_from(['{"a": 1}', '{"b": "x y"}', "", "   ", "\t", "[1, 2]", '{"c": "\\n"}\r'])


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([".json", ".jsonl", ".jsonl.gz"]),
            st.lists(line, min_size=1, max_size=6),
        ),
        min_size=1,
        max_size=4,
    ),
    st.integers(1, 64),
    st.booleans(),
)
def test_records_as_python_splits_them(
    tmp_path: Path, files: list[tuple[str, list[str]]], chunk: int, kept: bool
) -> None:
    sources, want = [], []
    for n, (suffix, lines) in enumerate(files):
        path = tmp_path / f"f{n}{suffix}"
        if suffix == ".json":  # one document, white space around it
            doc = next((x for x in lines if x.strip()), '{"a": 1}').strip()
            text = f"\n {doc}\n\n"
            data = text.encode()
            want.append((str(path), doc.startswith("["), text))
        else:
            if not any(x.strip() for x in lines):
                lines = [*lines, '{"a": 1}']
            data = ("\n".join(lines) + "\n").encode()
            want += [(str(path), False, x + "\n") for x in lines if x.strip()]
        path.write_bytes(gzip.compress(data) if suffix.endswith(".gz") else data)
        measured = measure(path, path.name, 1 << 20)
        assert measured.data == (None if suffix.endswith(".gz") else data)
        sources.append(measured if kept else replace(measured, data=None))
    got = [
        row
        for table in record_batches(sources, chunk_bytes=chunk)
        for row in zip(
            *(table[c].to_pylist() for c in ("source_file", "many", "content")), strict=True
        )
    ]
    assert got == want


def test_measure_all_keeps_bytes_up_to_its_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = []
    for n in range(5):
        path = tmp_path / f"f{n}.json"
        path.write_bytes(b'{"a": %d}' % (10**n))
        paths.append((path, path.name))
    sizes = [len(p.read_bytes()) for p, _ in paths]
    monkeypatch.setattr(source_module, "KEEP_TOTAL_BYTES", sum(sizes[:3]))
    got = list(measure_all(paths, 1 << 20))
    assert [s.data for s in got] == [p.read_bytes() for p, _ in paths[:3]] + [None, None]


@pytest.mark.parametrize("kept", [True, False])
def test_a_typed_document_comes_with_its_steps_list_emptied(tmp_path: Path, kept: bool) -> None:
    step = '{"type": "tool_call", "action": "a", "status": "ok", "input": {"steps": [1]}}'
    typed = tmp_path / "typed.json"
    typed.write_text(f'{{"run_id": "r", "steps": [{step}, {step}], "meta": {{"x": []}}}}\n')
    untyped = tmp_path / "untyped.json"
    untyped.write_text('{"run_id": 7, "steps": []}')
    lines = tmp_path / "runs.jsonl"
    lines.write_text(f'{{"run_id": "r", "steps": [{step}]}}\n')
    sources = [measure(p, p.name, 1 << 20) for p in (typed, untyped, lines)]
    assert [s.typed_steps for s in sources] == [True, False, True]
    sources = sources if kept else [replace(s, data=None) for s in sources]
    (table,) = record_batches(sources)
    assert table["head"].to_pylist() == [
        '{"run_id": "r", "steps": [], "meta": {"x": []}}\n',
        None,
        None,
    ]
