"""The trajectory findings in the Markdown of compare/gate --markdown: rendered from the pair
records' ``findings`` (the records --json and --explain give), stable ones named, the others
counted and folded, agent text escaped, within the byte budget."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

from typer.testing import CliRunner

from reportgen.cli import app
from reportgen.demo import run_demo
from reportgen.divergence.explain import finding_lines
from reportgen.divergence.findings import finding, summary
from reportgen.divergence.records import PairRecord
from reportgen.divergence.tables import findings_markdown

runner = CliRunner()


def _pair(pair_id: str, *found: Any) -> PairRecord:
    return cast(PairRecord, {"pair_id": pair_id, "findings": [f.record() for f in found]})


STABLE = finding("new_tool", "cancel", 0, 6)
FLAPPING = finding("step_added", "get_user", 2, 6)
FEW = finding("new_tool", "x", 0, 2)


def test_stable_named_flapping_counted_and_the_rest_folded() -> None:
    lines = findings_markdown(
        [_pair("a", STABLE, FLAPPING), _pair("b", FLAPPING), _pair("c", FEW), _pair("d")],
        60_000,
    )
    text = "\n".join(lines)
    assert "- a: Findings: 1 stable of 2." in lines
    assert "  - stable: new_tool `cancel` (0 % of 6 repeat pairs)" in lines
    assert "  - 1 flapping finding(s) folded (seen in 33 % of the baseline's own repeats)." in lines
    # b and c have no stable finding: folded, counted in the summary line
    folded = text[text.index("<details>") : text.index("</details>")]
    assert "2 pair(s) with findings but no stable one (1 flapping finding(s), 1 pair(s) with" in (
        folded
    )
    assert "- b: Findings: 0 stable of 1." in folded and "- a:" not in folded
    assert "too few baseline repeats (n=2 baseline runs; 3 needed)" in folded
    assert "- d:" not in text  # no finding: nothing to say
    assert text.count("<details>") == text.count("</details>") == 1


def test_agent_text_is_escaped() -> None:
    evil = finding("new_tool", "<img src=x onerror=alert(1)>`|", 0, 6)
    lines = findings_markdown([_pair("[x](javascript:alert(1))", evil)], 60_000)
    text = "\n".join(lines)
    assert "<img" not in text.replace("`` <img src=x onerror=alert(1)>`\\| ``", "")
    assert "`` <img src=x onerror=alert(1)>`\\| ``" in text
    assert "[x](javascript" not in text and "\\[x\\]\\(javascript\\:alert\\(1\\)\\)" in text


def test_a_small_budget_cuts_whole_pairs_and_says_so() -> None:
    pairs = [_pair(f"p{k}", STABLE) for k in range(50)] + [_pair("z", FLAPPING)]
    lines = findings_markdown(pairs, 1_000)
    assert len("\n".join(lines).encode()) <= 1_000
    assert lines[-1].startswith("... (the findings of ") and "--json has every finding" in lines[-1]
    shown = sum(1 for line in lines if line.startswith("- p"))
    assert 0 < shown < 50 and f"findings of {51 - shown} more pair(s)" in lines[-1]
    assert "<details>" not in "\n".join(lines)  # the folded block comes after the stable pairs


def test_markdown_json_and_explain_render_the_same_records(tmp_path: Path) -> None:
    db, _, _ = run_demo(tmp_path, site=False)
    args = ["compare", "--db", str(db), "--batch", "2026-11-23"]
    records = json.loads(runner.invoke(app, [*args, "--json"]).stdout)["pairs"]
    markdown = runner.invoke(app, [*args, "--markdown"]).stdout
    explain = runner.invoke(app, [*args, "--explain"], env={"COLUMNS": "200"}).stdout
    with_findings = [p for p in records if p["findings"]]
    assert with_findings
    for pair in with_findings:
        found = summary(pair["findings"])
        assert found.headline in markdown
        for line in finding_lines(pair):  # --explain's lines, in the same words
            assert line in explain
        for item in found.stable[:12]:
            assert f"stable: {item.kind} `{item.key}` ({item.rate_words})" in markdown
        if found.folded:
            assert f"{found.folded}." in markdown


def test_no_room_left_gives_one_line_or_nothing() -> None:
    pairs = [_pair("a", STABLE)]
    assert findings_markdown(pairs, 100) == [
        "",
        "... (the findings of 1 more pair(s) are not shown; --json has every finding)",
    ]
    assert findings_markdown(pairs, 10) == []
