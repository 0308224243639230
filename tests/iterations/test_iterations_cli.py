"""`reportgen iterations`: exit codes 0/1/2/3, --json, --markdown, gates with `>`, help text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reportgen.archive import connect
from tests.iterations.helpers import make_app, write_records
from tests.iterations.test_iterations_handworked import RECORDS

runner = CliRunner()
APP = make_app()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(APP, ["iterations", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def loop(tmp_path: Path) -> Path:
    return write_records(tmp_path / "loop.jsonl", RECORDS)


def test_text_report(loop: Path) -> None:
    code, out, err = run(str(loop))
    assert (code, err) == (0, "")
    assert "certified 2 of 3 steps in 9 attempts" in out
    assert "spend per certified step: 1,875 tokens, $1.69" in out
    assert "thrash: a" in out
    assert "step a: certified at attempt 5" in out and "THRASH" in out
    assert "(build-only" in out and "(test-suite" in out
    for column in ("n_failing", "resolved", "persisting", "new", "patch distance", "tokens"):
        assert column in out


def test_json_report(loop: Path) -> None:
    code, out, _ = run(str(loop), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["format"] == "reportgen.iterations/1"
    (r,) = data["runs"]
    assert r["usd_per_certified_step"] == 1.6875 and r["thrash_steps"] == ["a"]
    assert r["steps"][0]["thrash"]["attempts"] == [2, 3, 4]
    assert data["gates"]["passed"] is True and data["gates"]["verdicts"] == []


def test_markdown_report(loop: Path) -> None:
    code, out, _ = run(str(loop), "--markdown")
    assert code == 0
    assert out.startswith("## r\n")
    assert "| iter | attempt | n_failing | resolved | persisting | new |" in out
    assert "| 2 | 2 | 2 | 1 | 1 | 1 | 12 | 0.75 | 1/4 | 220 | 0.2500 | no |" in out


def test_gates_equal_passes_above_fails(loop: Path) -> None:
    # usd per certified step is 1.6875, tool error rate 5/24
    assert run(str(loop), "--max-spend-per-certified-step", "1.6875")[0] == 0
    assert run(str(loop), "--max-tool-error-rate", "0.25")[0] == 0
    code, out, err = run(str(loop), "--max-spend-per-certified-step", "1.5", "--json")
    assert code == 3
    data = json.loads(out)  # the report is printed in full before the gate fails
    assert data["gates"]["passed"] is False
    assert "usd_per_certified_step: $1.6875 > $1.5" in err
    code, _, err = run(str(loop), "--max-tool-error-rate", "0.2")
    assert code == 3 and "tool_error_rate: 0.2083 > 0.2" in err
    code, out, err = run(str(loop), "--fail-on-thrash", "--markdown")
    assert code == 3 and "- FAIL: r: thrash_steps: a" in out and "thrash_steps: a" in err
    assert run(str(loop), "--fail-on-thrash", "--thrash-attempts", "4")[0] == 0


@pytest.mark.parametrize(
    "args",
    [
        ["--max-tool-error-rate", "1.5"],
        ["--max-tool-error-rate", "nan"],
        ["--max-spend-per-certified-step", "-1"],
        ["--max-spend-per-certified-step", "lots"],
        ["--thrash-attempts", "0"],
        ["--json", "--markdown"],
    ],
)
def test_usage_errors_exit_2(loop: Path, args: list[str]) -> None:
    assert run(str(loop), *args)[0] == 2


def test_nothing_to_read_is_a_usage_error() -> None:
    code, _, err = run()
    assert code == 2 and "give iteration record files" in err


def test_bad_input_exits_1(tmp_path: Path) -> None:
    bad = write_records(
        tmp_path / "bad.jsonl", [{"run": "r", "iter": -1, "step": "s", "attempt": 1}]
    )
    code, out, err = run(str(bad))
    assert code == 1 and out == "" and "iter" in err
    assert run(str(tmp_path / "missing.jsonl"))[0] == 1


def test_db_keeps_the_archive_and_reports_without_paths(tmp_path: Path, loop: Path) -> None:
    db = tmp_path / "a.duckdb"
    assert run(str(loop), "--db", str(db))[0] == 0
    con = connect(db, read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM iterations").fetchone() == (9,)
    finally:
        con.close()
    code, out, _ = run("--db", str(db), "--run", "r", "--json")
    assert code == 0 and json.loads(out)["runs"][0]["run_id"] == "r"
    code, _, err = run("--db", str(db), "--run", "nope")
    assert code == 1 and "nope" in err
    assert run("--db", str(tmp_path / "none.duckdb"))[0] == 1


def test_help_names_every_option() -> None:
    result = runner.invoke(APP, ["iterations", "--help"], env={"COLUMNS": "200"})
    code, out = result.exit_code, result.stdout
    assert code == 0
    for option in (
        "--db",
        "--json",
        "--markdown",
        "--max-spend-per-certified-step",
        "--max-tool-error-rate",
        "--fail-on-thrash",
        "--thrash-attempts",
    ):
        assert option in out
