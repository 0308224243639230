"""An archive loaded by an older reportgen, whose tau2-bench, tau-bench and SWE-agent runs carry
the suite and label of before the identity table (docs/formats.md), is told to be re-ingested:
one notice per format; an archive loaded now gets none."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from reportgen.ingest import ingest

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
FOLDERS = [DATA / name for name in ("tau2-bench", "tau-bench", "swe-agent")]


def test_runs_of_the_old_identity_are_told_to_be_reingested(tmp_path: Path) -> None:
    if not all(f.is_dir() for f in FOLDERS):
        pytest.skip(f"{DATA} is missing (the shared real data)")
    db = tmp_path / "a.duckdb"
    assert [n for n in ingest(FOLDERS, db).notices if "older reportgen" in n] == []
    con = duckdb.connect(str(db))
    try:  # what reportgen wrote before: the model as the suite, the domain as the label
        con.execute(
            "UPDATE runs SET suite = 'tau2-bench/' || json_extract_string(meta, '$.agent_llm')"
            " WHERE format = 'tau2-bench'"
        )
        con.execute(
            "UPDATE runs SET suite = 'tau-bench/gpt-4o', label = 'airline' WHERE format = 'tau-bench'"
        )
        con.execute("UPDATE runs SET suite = 'swe-agent' WHERE format = 'swe-agent'")
    finally:
        con.close()
    one = tmp_path / "one" / "x.json"
    one.parent.mkdir()
    one.write_text('{"task_id": "t", "steps": []}')
    notices = [n for n in ingest([one], db).notices if "older reportgen" in n]
    assert [n.split(" run(s)")[0] for n in notices] == [
        "5 swe-agent",
        "200 tau-bench",
        "96 tau2-bench",
    ]
    assert all("re-ingest their files into a new archive" in n for n in notices)
