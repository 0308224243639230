"""docs/reading-the-report.md quotes real output: check it still is what the commands print."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from reportgen.cli import app
from reportgen.demo import run_demo

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "reading-the-report.md"


def test_explain_and_tree_in_the_guide_are_current(tmp_path: Path) -> None:
    db, _, _ = run_demo(tmp_path, site=False)
    args = [
        "compare",
        "--db",
        str(db),
        "--batch",
        "2026-11-28",
        "--task",
        "fix-login",
        "--max-loops",
        "0",
    ]
    result = CliRunner().invoke(app, [*args, "--explain", "--tree"], env={"COLUMNS": "200"})
    assert result.exit_code == 3
    printed = result.stdout[result.stdout.index("== nightly/fix-login") :].rstrip()
    quoted = re.search(r"## `--explain`.*?```\n(.*?)\n```", GUIDE.read_text(encoding="utf-8"), re.S)
    assert quoted is not None
    assert quoted.group(1) == printed
    table = CliRunner().invoke(app, args, env={"COLUMNS": "200"}).stdout
    assert "│ nightly/fix-login/2026-11-28 │ 0.294 │ 0.00→0 │      1 │      2 │ 2.00 │" in table
