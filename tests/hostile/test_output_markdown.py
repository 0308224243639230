"""--markdown (a PR comment, $GITHUB_STEP_SUMMARY): agent text never becomes an image, a link,
an autolink or raw HTML."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from typer.testing import CliRunner

from reportgen.cli import app
from reportgen.divergence.tables import MARKDOWN_BYTES, columns
from reportgen.escape import md_code, md_text
from reportgen.secrets import redact_text
from tests.hostile.conftest import HOSTILE, write_runs

runner = CliRunner()
#: A scheme or www. autolink GitHub would form: no backslash before ":" or "." breaks it.
_AUTOLINK = re.compile(r"(?i)(?:https?|ftp|mailto|javascript):|www\.|[\w.+-]@[\w-]+\.")


def _html(text: str) -> str:
    md = MarkdownIt("commonmark").enable("table").enable("strikethrough")
    return md.render(text)


def _check(markdown: str) -> None:
    html = _html(markdown)
    assert "<img" not in html and "<a " not in html and "<script" not in html, html
    assert "<em>" not in html and "<strong>" not in html and "<s>" not in html, html
    assert not _AUTOLINK.search(markdown), _AUTOLINK.search(markdown)


def test_md_text_renders_as_the_text_itself() -> None:
    for text in HOSTILE:
        html = _html(md_text(text))
        _check(md_text(text))
        flat = " ".join(text.split())
        shown = re.sub(r"<[^>]+>", "", html).strip()
        shown = shown.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
        shown = shown.replace("&amp;", "&").replace("\u2060", "")
        assert " ".join(shown.split()) == " ".join(
            re.sub(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]", " ", text).split()
        ), (text, shown, flat)


def test_md_code_is_one_code_span() -> None:
    for text in (*HOSTILE, "``x`", "`", " a "):
        html = _html(md_code(text))
        assert html.count("<code>") == 1, (text, html)
        assert "<a " not in html and "<img" not in html


def test_compare_markdown_keeps_agent_text_inert(hostile_folders: tuple[Path, Path]) -> None:
    base, cand = hostile_folders
    result = runner.invoke(app, ["compare", str(base), str(cand), "--markdown"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert text.startswith("### reportgen")
    assert "Unpaired runs:" in text
    # every agent text outside code spans is checked; code spans never link
    outside = re.sub(r"(`+) .*? \1|(`+)[^`]*?\2", "", text)
    _check(outside)
    html = _html(text)
    assert "<img" not in html and "<a " not in html
    table = [line for line in text.splitlines() if line.startswith("| ")]
    cells = len(columns()) + 2  # every column, and the empty ends outside the first and last |
    assert all(len(re.split(r"(?<!\\)\|", line)) == cells for line in table), table


def test_md_text_fuzz() -> None:
    import html as html_lib
    import random

    pieces = ["![", "](", ")", "[", "]", "http://", "https://", "www.", "x@y.com", "<", ">",
              "`", "``", "*", "**", "_", "\\", "|", "&lt;", "&amp;", "&#60;", "\n", "a", " ",
              "b.com", "~~", "$", "#1", ":", "<http://e.x>", "javascript:"]  # fmt: skip
    rng = random.Random(7)
    for _ in range(2000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 10)))
        escaped = md_text(text)
        _check(escaped)
        rendered = _html(escaped)
        assert "<code>" not in rendered and "<a" not in rendered, (text, rendered)
        shown = html_lib.unescape(re.sub(r"<[^>]+>", "", rendered)).replace("\u2060", "")
        meant = redact_text(text)  # what looks like a password in a URL is redacted
        assert " ".join(shown.split()) == " ".join(meant.split()), (text, escaped, shown)


#: GitHub's references as GitHub finds them in a comment's rendered text.
_REFERENCE = re.compile(r"(?i)\bgh-\d|(?<![\w\u2060])#\d|(?<![\w\u2060])@\w")


@pytest.mark.parametrize("text", ["GH-3", "fix gh-12 now", "see #3", "ping @octocat", "a/b#7"])
def test_md_text_links_no_issue_or_person(text: str) -> None:
    """GitHub links GH-3, #3 and @name in a comment's text even when backslash-escaped: the
    escaped text shows the same characters but none of them forms a reference."""
    shown = re.sub(r"<[^>]+>", "", _html(md_text(text)))
    assert not _REFERENCE.search(shown), shown
    assert shown.replace("\u2060", "").strip() == text


def test_markdown_fits_a_github_comment(tmp_path: Path) -> None:
    """A PR whose 250 tasks each have a 1 kB id: the comment stays under GitHub's 65,536-
    character limit, keeps its heading, verdict and thresholds, and counts the rows left out."""
    runs = {
        side: [
            {
                "run_id": f"{side}-{i}",
                "task_id": f"task-{i:03d}-" + "x" * 1000,
                "label": side,
                "suite": "big",
                "steps": [{"type": "tool", "action": "a", "status": "ok"}] * (1 + (i % 3)),
            }
            for i in range(250)
        ]
        for side in ("baseline", "candidate")
    }
    folders = [write_runs(tmp_path / side / "runs.jsonl", runs[side]).parent for side in runs]
    result = runner.invoke(app, ["compare", *map(str, folders), "--markdown"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert len(text.encode()) <= MARKDOWN_BYTES + 1  # the newline the CLI ends it with
    assert text.startswith("### reportgen")
    shown = sum(1 for line in text.splitlines() if line.startswith("| big/task"))
    assert 0 < shown < 250
    assert f"... {250 - shown} more pair(s) not shown" in text
    assert text.rstrip().splitlines()[-1].startswith("No gates set")  # the thresholds line


def test_iterations_markdown_stays_within_githubs_comment_limit(tmp_path: Path) -> None:
    """3,000 steps of 40 runs: the Markdown is capped as compare's is, whole steps left out
    from the end with a line counting them, and the gates still come last."""
    from tests.iterations.helpers import make_app, write_records

    records = [
        {
            "run": f"run-{r}",
            "iter": s + 1,
            "step": f"step-{s}-" + "x" * 40,
            "attempt": 1,
            "check": "pytest",
            "exit": 1,
            "failing": ["tests/test_a.py::test_one"],
        }
        for r in range(40)
        for s in range(75)
    ]
    loop = write_records(tmp_path / "loop.jsonl", records)
    result = runner.invoke(make_app(), ["iterations", str(loop), "--markdown", "--fail-on-thrash"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert len(text.encode()) <= MARKDOWN_BYTES
    more = re.search(r"\.\.\. (\d+) more steps of (\d+) runs not shown", text)
    assert more is not None, text[-500:]
    shown = text.count("\n### ")
    assert shown + int(more[1]) == 40 * 75
    assert text.startswith("## run-0\n")
    _check(text)
