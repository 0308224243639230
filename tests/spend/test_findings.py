"""Avoidable spend, one hand-worked run per finding kind, totals per run and per suite, and
the JSON of ``reportgen spend``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reportgen.cli import make_app
from reportgen.spend import SpendOptions, avoidable_spend
from tests.spend.helpers import archive, llm, tool


def kinds(con, run_id: str = "r") -> list[tuple[str, int | None, int | None]]:  # type: ignore[no-untyped-def]
    return [(f.kind, f.step, f.ref_step) for f in avoidable_spend(con).run(run_id).findings]


def test_identical_call_repeat_after_the_first(tmp_path: Path) -> None:
    # step 0 issues two calls (each its share: 0.01 / 2), step 3 one (0.02)
    steps = [llm(100, cost=0.01), tool("Glob", 0, pattern="*.py"), tool("Glob", 0, pattern="*.md"),
             llm(200, cost=0.02), tool("Glob", 3, pattern="*.py"), llm(300, cost=0.03),
             tool("Glob", 5, pattern="*.py")]  # fmt: skip
    con = archive(tmp_path, {"r": steps})
    spent = avoidable_spend(con).run("r")
    assert [(f.kind, f.step, f.ref_step) for f in spent.findings] == [
        ("identical_call", 4, 1),
        ("identical_call", 6, 1),
    ]
    assert [f.tokens for f in spent.findings] == [210, 310]  # the issuing call's tokens
    assert spent.cost_usd == pytest.approx(0.05)
    assert "repeats the Glob call of step 1" in spent.findings[0].explanation


def test_same_output_after_a_change_is_not_identical(tmp_path: Path) -> None:
    steps = [
        llm(100),
        tool("Glob", 0, output="a", pattern="*"),
        tool("Glob", 0, output="b", pattern="*"),
    ]
    assert kinds(archive(tmp_path, {"r": steps})) == []


def test_reread_unchanged_file_but_not_after_a_write(tmp_path: Path) -> None:
    steps = [llm(100), tool("Read", 0, output="v1", file_path="a.py"),   # 1
             llm(100), tool("Read", 2, output="v1 part", file_path="a.py", offset=5, limit=9),  # 3
             llm(100), tool("Edit", 4, file_path="a.py", old="x", new="y"),  # 5: write
             llm(100), tool("Read", 6, output="v2", file_path="a.py"),   # 7: changed, not a finding
             llm(100), tool("Bash", 8, command="sed -i s/a/b/ a.py"),   # 9: shell names a.py
             llm(100), tool("Read", 10, output="v3", file_path="a.py"),  # 11: not a finding
             llm(100), tool("Read", 12, output="b", file_path="b.py"),   # 13
             llm(100), tool("Bash", 14, command="ls"),                   # 15: names no file
             llm(100), tool("Read", 16, output="b2", file_path="b.py")]  # 17: reread # fmt: skip
    # step 3 reads lines 5-13 of the file step 1 read whole: a re-read too
    assert kinds(archive(tmp_path, {"r": steps})) == [("reread", 3, 1), ("reread", 17, 13)]


def test_reread_of_lines_already_read_by_shell_commands(tmp_path: Path) -> None:
    """Codex reads with sed -n / cat / head: the next chunk of a file is no re-read, lines an
    earlier read covers are; a pure read names the file without writing it."""
    steps = [
        llm(100),
        tool("exec_command", 0, cmd="sed -n '1,180p' src/a.ts"),  # 1
        llm(100),
        tool("exec_command", 2, cmd="sed -n '181,300p' src/a.ts"),  # 3: next
        llm(100),
        tool("exec_command", 4, cmd="sed -n '150,200p' src/a.ts"),  # 5: 2 reads
        llm(100),
        tool("exec_command", 6, cmd="sed -n '10,20p' src/a.ts"),  # 7: 1 covers it
        llm(100),
        tool("exec_command", 8, cmd="cat src/b.ts"),  # 9
        llm(100),
        tool("exec_command", 10, cmd="head -n 5 src/b.ts"),  # 11: 9 covers it
        llm(100),
        tool("apply_patch", 12, input="*** Update File: src/b.ts"),  # 13: write
        llm(100),
        tool("exec_command", 14, cmd="head -n 5 src/b.ts"),  # 15: changed since
        llm(100),
        tool("shell", 16, command=["bash", "-lc", "cat src/b.ts"]),  # 17: not since 13
    ]
    found = [f for f in kinds(archive(tmp_path, {"r": steps})) if f[0] == "reread"]
    assert found == [("reread", 7, 1), ("reread", 11, 9)]


def test_failed_retry_with_the_same_input(tmp_path: Path) -> None:
    steps = [llm(100), tool("Bash", 0, "error", command="make"),  # 1 fails
             llm(100), tool("Bash", 2, "error", command="make"),  # 3 retries it, fails again
             llm(100), tool("Bash", 4, command="make"),           # 5 retries it, passes
             llm(100), tool("Bash", 6, command="make"),           # 7 after a pass: not a retry
             llm(100), tool("Bash", 8, "error", command="make test"),
             llm(100), tool("Bash", 10, command="make test -k x")]  # changed input # fmt: skip
    found = kinds(archive(tmp_path, {"r": steps}))
    assert [f for f in found if f[0] == "failed_retry"] == [
        ("failed_retry", 3, 1),
        ("failed_retry", 5, 3),
    ]


@pytest.mark.parametrize("in_output", [False, True], ids=["column", "output-usage"])
def test_cache_rebuilt_after_a_pause(tmp_path: Path, in_output: bool) -> None:
    """Cache writes read from steps.cache_write_tokens, or from the output's usage where an
    older load kept them only there."""
    # claude-sonnet-4-5: cache write $3.75, read $0.30 per million
    model = "claude-sonnet-4-5"
    o = in_output
    steps = [
        llm(1000, at="2026-01-01T00:00:00Z", model=model, cache_write=1000, latency=2000,
            cache_in_output=o),
        llm(1000, at="2026-01-01T00:05:02Z", model=model, cache_write=4000,
            cache_in_output=o),  # 300 s gap: no
        llm(1000, at="2026-01-01T00:10:03Z", model=model, cache_write=8000,
            cache_in_output=o),  # 301 s: yes
        llm(1000, at="2026-01-01T00:30:00Z", model=model, cache_write=0, cache_in_output=o),
    ]  # fmt: skip
    spent = avoidable_spend(archive(tmp_path, {"r": steps})).run("r")
    assert [(f.kind, f.step, f.ref_step, f.tokens) for f in spent.findings] == [
        ("cache_rebuild", 2, 1, 8000)
    ]
    assert spent.findings[0].cost_usd == pytest.approx(8000 * (3.75 - 0.30) / 1e6)
    assert "301 s pause" in spent.findings[0].explanation


def test_long_context_turn_share_above_the_threshold(tmp_path: Path) -> None:
    steps = [llm(150_000, 0, cost=1.0), llm(200_000, 50_000, cost=1.0)]
    spent = avoidable_spend(archive(tmp_path, {"r": steps})).run("r")
    assert [(f.kind, f.step, f.tokens) for f in spent.findings] == [("long_context", 1, 50_000)]
    assert spent.findings[0].cost_usd == pytest.approx(1.0 * 50_000 / 250_000)
    smaller = avoidable_spend(
        archive(tmp_path, {"r": steps}), options=SpendOptions(long_context=100_000)
    )
    assert [f.tokens for f in smaller.run("r").findings] == [50_000, 100_000]


def test_expensive_subagent_and_the_unpriced_model(tmp_path: Path) -> None:
    runs = {"p": [llm(100, cost=1.0), tool("Task", 0, prompt="go"), tool("Task", 0, prompt="again")],
            "p:a": [llm(100, cost=0.6)], "p:b": [llm(100, cost=0.4)]}  # fmt: skip
    meta = {"p": {"children": [{"run_id": "p:a", "step": 1}, {"run_id": "p:b", "step": 2}]}}
    spent = avoidable_spend(archive(tmp_path, runs, **meta)).run("p")
    assert [(f.kind, f.step, f.detail, f.cost_usd) for f in spent.findings] == [
        ("expensive_subagent", 1, "p:a", 0.6)
    ]  # 0.4 is not above half of 1.0


def test_subagent_costs_count_steps_of_every_type(tmp_path: Path) -> None:
    # spend_steps keeps only tool and llm steps, but every step of a run with sub-agents or
    # of a sub-agent: the costs compared are the runs' whole costs
    other = {"type": "handoff", "action": "delegate", "status": "ok", "cost_usd": 1.0}
    runs = {"p": [llm(100, cost=1.0), dict(other)], "p:a": [{**other, "cost_usd": 1.5}],
            "q": [dict(other)]}  # fmt: skip
    meta = {"p": {"children": [{"run_id": "p:a", "step": 1}]}}
    report = avoidable_spend(archive(tmp_path, runs, **meta))
    assert [(f.kind, f.detail, f.cost_usd, f.amount) for f in report.run("p").findings] == [
        ("expensive_subagent", "p:a", 1.5, 0.75)
    ]
    assert report.run("q").findings == []
    assert report.gate_value("q") == 0.0


def test_a_step_found_twice_counts_once_and_suite_sums(tmp_path: Path) -> None:
    # step 3 is an identical call and a reread: counted once (both have its share, 0.02)
    steps = [llm(100, cost=0.02), tool("Read", 0, output="x", file_path="a.py"),
             llm(100, cost=0.02), tool("Read", 2, output="x", file_path="a.py")]  # fmt: skip
    con = archive(tmp_path, {"r": steps, "s": steps})
    report = avoidable_spend(con)
    spent = report.run("r")
    assert {f.kind for f in spent.findings} == {"identical_call", "reread"}
    assert (spent.tokens, spent.cost_usd, spent.by_kind) == (
        110,
        0.02,
        {"identical_call": 1, "reread": 1},
    )
    suite = (
        report.suites["default"]
        if "default" in report.suites
        else next(iter(report.suites.values()))
    )
    assert (suite.n_runs, suite.n_findings, suite.tokens) == (2, 4, 220)
    assert suite.cost_usd == pytest.approx(0.04)
    assert avoidable_spend(con, ["r"]).runs.keys() == {"r"}


def test_unknown_cost_is_not_zero(tmp_path: Path) -> None:
    steps = [llm(100, cost=None, model="house-model"), tool("Glob", 0, pattern="*"),
             tool("Glob", 0, pattern="*")]  # fmt: skip
    report = avoidable_spend(archive(tmp_path, {"r": steps}))
    spent = report.run("r")
    assert [(f.kind, f.cost_usd) for f in spent.findings] == [("identical_call", None)]
    assert (spent.n_unknown, spent.gate_value, report.gate_value("r")) == (1, None, None)
    assert "unknown cost" in spent.findings[0].explanation


def test_spend_command_json(tmp_path: Path) -> None:
    steps = [llm(100, cost=0.02), tool("Glob", 0, pattern="*"), tool("Glob", 0, pattern="*")]
    db = tmp_path / "a.duckdb"
    con = archive(tmp_path, {"r": steps})
    con.execute(f"ATTACH '{db}' AS out; COPY FROM DATABASE memory TO out; DETACH out")
    con.close()
    result = CliRunner().invoke(make_app(), ["spend", "--db", str(db), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [f["kind"] for f in data["runs"][0]["findings"]] == ["identical_call"]
    assert data["total"]["cost_usd"] == pytest.approx(0.01)
    text = CliRunner().invoke(make_app(), ["spend", "--db", str(db)])
    assert "identical_call" in text.stdout and "$0.0100" in text.stdout


def test_selection_by_run_and_suite(tmp_path: Path) -> None:
    steps = [llm(100, cost=0.02), tool("Glob", 0, pattern="*"), tool("Glob", 0, pattern="*")]
    con = archive(tmp_path, {"r": steps, "s": steps})
    con.execute("UPDATE runs SET suite = 'other' WHERE run_id = 's'")
    assert avoidable_spend(con, ["s"]).runs.keys() == {"s"}
    assert avoidable_spend(con, suite="other").runs.keys() == {"s"}
    assert avoidable_spend(con, ["r"], suite="other").runs == {}
    (suite_of_r,) = avoidable_spend(con, ["r"]).suites
    assert set(avoidable_spend(con).suites) == {"other", suite_of_r}
