"""Terminal and CI-log output of compare, gate, --explain and --tree: agent text never starts a
line (so never a GitHub Actions workflow command such as ``::add-mask::``) and carries no
control character or ANSI escape."""

from __future__ import annotations

import copy
import io
import json
import random
import re
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from reportgen.cli import app
from reportgen.divergence.compare import Comparison
from reportgen.divergence.explain import explain, tree
from reportgen.divergence.pairing import Unpaired
from reportgen.divergence.tables import print_terminal
from reportgen.escape import term_text
from reportgen.ingest import ingest
from tests.hostile.conftest import HOSTILE, ROOT, one_line, write_runs

runner = CliRunner()
_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def _check(stdout: str) -> None:
    for line in stdout.split("\n"):
        assert not line.lstrip().startswith("::"), line
    assert not _CONTROL.search(stdout), repr(_CONTROL.search(stdout))


def test_term_text_keeps_agent_text_on_one_inert_line() -> None:
    for text in HOSTILE:
        shown = term_text(text)
        assert "\n" not in shown and "\r" not in shown and "\x1b" not in shown
        assert not _CONTROL.search(shown)
    assert term_text("a\n::error::x\x1b[0m") == "a\\n::error::x\\x1b[0m"


@pytest.mark.parametrize(
    "flags", [[], ["--explain"], ["--tree"], ["--explain", "--tree"], ["--max-divergence", "0"]]
)
def test_compare_output_has_no_workflow_commands(
    hostile_folders: tuple[Path, Path], flags: list[str]
) -> None:
    base, cand = hostile_folders
    result = runner.invoke(app, ["compare", str(base), str(cand), *flags])
    assert result.exit_code in (0, 3), result.output
    assert "pwned" in result.stdout and "add-mask" in result.stdout  # shown, as text
    _check(result.stdout)


@pytest.mark.parametrize("flags", [[], ["--explain"], ["--markdown"], ["--max-loops", "0"]])
def test_gate_output_has_no_workflow_commands(hostile_db: Path, flags: list[str]) -> None:
    result = runner.invoke(app, ["gate", "--db", str(hostile_db), *flags])
    assert result.exit_code in (0, 3), result.output
    assert "pwned" in result.stdout
    _check(result.stdout)


def _random_text(rng: random.Random) -> str:
    pieces = ["::", "::error::", "::add-mask::", "\n", "\r", "\r\n", " ", "\x1b[2J", "\x85",
              "\u2028", "\t", "\x00", "a", "[red]", "[/]", ":smile:", "|", "`", "\x9b31m"]  # fmt: skip
    return "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))


def test_no_line_starts_with_a_workflow_command_whatever_the_agent_text(
    hostile_folders: tuple[Path, Path],
) -> None:
    base, cand = hostile_folders
    result = runner.invoke(app, ["compare", str(base), str(cand), "--json"])
    pairs = json.loads(result.stdout)["pairs"]
    rng = random.Random(8)
    for _ in range(300):
        pair = copy.deepcopy(rng.choice(pairs))
        pair["pair_id"] = _random_text(rng)
        pair["baseline_run_id"] = _random_text(rng)
        pair["candidate_run_id"] = _random_text(rng)
        for row in pair["step_diffs"]:
            row["action"] = _random_text(rng)
            for side in ("baseline_step", "candidate_step"):
                if row.get(side):
                    row[side]["action"] = _random_text(rng)
                    row[side]["status"] = rng.choice([row[side]["status"], _random_text(rng)])
        for loop in pair["loops_detected"]:
            loop["steps"] = [_random_text(rng) for _ in loop["steps"]]
        _check(explain(pair))
        _check(tree(pair))
        buffer = io.StringIO()
        unpaired = Unpaired(
            "candidate", _random_text(rng), "s", f"x {_random_text(rng)}", _random_text(rng), 0
        )
        comparison = Comparison(pairs=[pair], unpaired=[unpaired], thresholds=[])
        print_terminal(Console(file=buffer, width=40, force_terminal=False), comparison)
        _check(buffer.getvalue())


def test_gate_failure_line_on_stderr_is_one_inert_line(hostile_db: Path) -> None:
    """The failed gate's stderr line names failed pairs, whose ids hold newlines, ``::``
    commands and ANSI escapes: still one line, none of them live."""
    result = runner.invoke(app, ["gate", "--db", str(hostile_db), "--max-divergence", "0"])
    assert result.exit_code == 3, result.output
    line = one_line(result.stderr, "failed a gate")
    assert "\\x1b[31mred" in line  # a failed pair's id, named as text
    _check(result.stderr)


def test_spend_never_starts_a_line_with_a_run_id(tmp_path: Path) -> None:
    """Runs whose ids and suites are workflow commands and escapes, each with a repeated
    identical call (a finding, so spend names the run)."""
    call = {"type": "tool", "action": "read", "input": {"path": "a"}, "output": "x",
            "status": "ok", "tokens_in": 100, "tokens_out": 10, "cost_usd": 0.01}  # fmt: skip
    runs = [
        {
            "run_id": f"::error::pwned{i}\n::add-mask::s\x1b[2J",
            "task_id": "t",
            "suite": "::warning::s\r",
            "label": "x",
            "steps": [call, call, call],
        }
        for i in range(2)
    ]
    db = tmp_path / "a.duckdb"
    ingest([write_runs(tmp_path / "in" / "runs.jsonl", runs)], db)
    result = runner.invoke(app, ["spend", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert "pwned" in result.stdout
    _check(result.stdout)


def test_iterations_prints_run_and_step_names_inert(tmp_path: Path) -> None:
    sample = ROOT / "sample_runs" / "iterations" / "backlog-thrashing.jsonl"
    records = [json.loads(line) for line in sample.read_text().splitlines() if line.strip()]
    for record in records:
        record["run"] = "::add-mask::x\r\x1b[2J"
        record["step"] = f"{record.get('step', 's')}\n::error::pwned\x1b]0;title\x07"
    file = write_runs(tmp_path / "loop.jsonl", records)
    result = runner.invoke(app, ["iterations", str(file)])
    assert result.exit_code in (0, 3), result.output
    assert "pwned" in result.stdout and "add-mask" in result.stdout
    _check(result.stdout)
    _check(result.stderr)
