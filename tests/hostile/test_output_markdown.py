"""--markdown (a PR comment, $GITHUB_STEP_SUMMARY): agent text never becomes an image, a link,
an autolink or raw HTML."""

from __future__ import annotations

import re
from pathlib import Path

from markdown_it import MarkdownIt
from typer.testing import CliRunner

from reportgen.cli import app
from reportgen.divergence.tables import columns
from reportgen.escape import md_code, md_text
from tests.hostile.conftest import HOSTILE

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
        shown = shown.replace("&amp;", "&")
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
        shown = html_lib.unescape(re.sub(r"<[^>]+>", "", rendered))
        assert " ".join(shown.split()) == " ".join(text.split()), (text, escaped, shown)
