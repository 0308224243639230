"""Terminal and CI-log output of compare, gate, --explain and --tree: agent text never starts a
line (so never a GitHub Actions workflow command such as ``::add-mask::``) and carries no
control character or ANSI escape."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reportgen.cli import app
from reportgen.reports.escape import term_text
from tests.hostile.conftest import HOSTILE

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
