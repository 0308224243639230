"""The Recorder: what it writes, that it resumes, and that ingest + SQL derive the same values."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reportgen.archive import connect
from reportgen.ingest import ingest
from reportgen.iterations import Recorder, analyse


def go_output(failing: list[str], line: int, secs: str) -> str:
    """`go test` output; line numbers and durations change between attempts, ids must not."""
    lines = []
    for name in failing:
        lines += [f"--- FAIL: {name} ({secs}s)", f"    auth_test.go:{line}: unexpected status"]
    lines += ["FAIL", f"FAIL\texample.com/shop/auth\t{secs}s"] if failing else ["ok"]
    return "\n".join(lines) + "\n"


def patch(n: int) -> str:
    return "--- a/auth.go\n+++ b/auth.go\n" + "".join(f"+line {i}\n" for i in range(n))


# (step, failing tests, check line number, patch size, exit)
LOOP = [
    ("auth", ["TestLogin", "TestLogout", "TestExpiry"], 19, 3, 1),
    ("auth", ["TestLogin", "TestExpiry"], 23, 5, 1),
    ("auth", ["TestExpiry", "TestRefresh"], 27, 9, 1),
    ("auth", [], 0, 10, 0),
    ("cache", ["TestEvict"], 40, 2, 1),
    ("cache", [], 0, 2, 0),
]


def drive(recorder: Recorder) -> list[dict[str, Any]]:
    written = []
    for i, (step, failing, line, size, code) in enumerate(LOOP):
        written.append(
            recorder.record(
                step=step,
                check="go test ./...",
                exit_code=code,
                output=go_output(failing, line, f"0.{i}1"),
                patch=patch(size),
                tool_calls=5,
                tool_errors=i % 2,
                tokens_in=1000 * (i + 1),
                tokens_out=100,
                usd=0.01 * (i + 1),
                secs=1.5,
            )
        )
    return written


def test_record_normalises_and_derives(tmp_path: Path) -> None:
    written = drive(Recorder(tmp_path / "loop.jsonl", "run-1"))
    first, second, third = written[:3]
    assert first["normaliser"] == "go"
    assert first["failing"] == [
        "go:example.com/shop/auth::TestExpiry",
        "go:example.com/shop/auth::TestLogin",
        "go:example.com/shop/auth::TestLogout",
    ]
    assert first["new"] == first["failing"] and first["resolved"] == []
    assert "patch_distance" not in first  # no previous patch of the step
    assert second["resolved"] == ["go:example.com/shop/auth::TestLogout"]
    assert second["persisting"] == [
        "go:example.com/shop/auth::TestExpiry",
        "go:example.com/shop/auth::TestLogin",
    ]
    assert third["new"] == ["go:example.com/shop/auth::TestRefresh"]
    assert 0 < second["patch_distance"] < 1
    assert [w["attempt"] for w in written] == [1, 2, 3, 4, 1, 2]
    assert [w["iter"] for w in written] == [1, 2, 3, 4, 5, 6]
    assert written[3]["certified"] is True and written[0]["certified"] is False
    assert written[0]["patch_lines"] == 3
    assert "patch" not in written[0] and "output" not in written[0]
    lines = (tmp_path / "loop.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in lines] == written


def test_lines_stay_about_a_kilobyte(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path / "big.jsonl", "run-big", tail_chars=200)
    huge = go_output([f"TestCase{i}" for i in range(8)], 10, "1.5") + "noise line\n" * 100_000
    recorder.record(step="s", check="go test ./...", exit_code=1, output=huge, patch="+x\n" * 7000)
    line = (tmp_path / "big.jsonl").read_text()
    assert len(line.encode()) < 1500
    assert json.loads(line)["output_tail"] == huge[-200:]


def test_resume_continues_iterations_and_sets(tmp_path: Path) -> None:
    path = tmp_path / "loop.jsonl"
    Recorder(path, "r").record(step="s", failing=["a", "b"], exit_code=1)
    Recorder(path, "other").record(step="s", failing=["z"], exit_code=1)
    again = Recorder(path, "r").record(step="s", failing=["b"], exit_code=1)
    assert (again["iter"], again["attempt"]) == (2, 2)
    assert (again["resolved"], again["persisting"], again["new"]) == (["a"], ["b"], [])


def test_unknown_failing_set_leaves_derived_sets_out(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path / "x.jsonl", "r")
    first = recorder.record(step="s", exit_code=1)
    second = recorder.record(step="s", failing=["a"], exit_code=1)
    assert "failing" not in first
    assert "resolved" not in second and second["failing"] == ["a"]


@pytest.mark.parametrize(
    "bad",
    [{"tokens_in": -1}, {"tool_calls": 1.5}, {"usd": float("nan")}, {"secs": -2.0}, {"step": ""}],
)
def test_bad_values_are_refused(tmp_path: Path, bad: dict[str, Any]) -> None:
    kwargs: dict[str, Any] = {"step": "s", **bad}
    with pytest.raises(ValueError):
        Recorder(tmp_path / "x.jsonl", "r").record(**kwargs)
    assert not (tmp_path / "x.jsonl").exists()


def test_round_trip_matches_sql(tmp_path: Path) -> None:
    """Records written by the Recorder ingest as they are, and the SQL re-deriving the sets
    and patch distances from the stripped records gives the Recorder's values."""
    path = tmp_path / "as-written" / "loop.jsonl"
    path.parent.mkdir()
    written = drive(Recorder(path, "run-1", keep_patch=True))
    derived = ("resolved", "persisting", "new", "patch_distance")
    stripped = tmp_path / "stripped" / "loop.jsonl"
    stripped.parent.mkdir()
    stripped.write_text(
        "".join(
            json.dumps({k: v for k, v in w.items() if k not in derived} | {"run": "run-2"}) + "\n"
            for w in written
        )
    )
    db = tmp_path / "a.duckdb"
    ingest([path, stripped], db)
    con = connect(db, read_only=True)
    try:
        given, recomputed = analyse(con)
    finally:
        con.close()
    assert (given.run_id, recomputed.run_id) == ("run-1", "run-2")
    rows_given = [a for s in given.steps for a in s.attempts]
    rows_sql = [a for s in recomputed.steps for a in s.attempts]
    by_iter = {w["iter"]: w for w in written}
    for g, r in zip(rows_given, rows_sql, strict=True):
        w = by_iter[g.iter]
        assert (g.resolved, g.persisting, g.new) == (w["resolved"], w["persisting"], w["new"])
        assert (r.resolved, r.persisting, r.new) == (g.resolved, g.persisting, g.new)
        assert r.patch_distance == pytest.approx(w.get("patch_distance"))
        assert g.patch_distance == pytest.approx(w.get("patch_distance"))
        assert r.diff_volume == w["patch_lines"] == g.diff_volume
    assert given.certified_steps == recomputed.certified_steps == 2
    assert given.tool_error_rate == recomputed.tool_error_rate == pytest.approx(3 / 30)
