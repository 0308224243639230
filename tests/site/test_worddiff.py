"""Word diffs of modified steps: hand-worked cases, the two sides rebuilt from any diff
(hypothesis), escaping, folding of long texts, and in Chromium a hand-made pair whose pair
page marks exactly the changed words."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rapidfuzz.distance import Indel

from reportgen.divergence import textdiff
from reportgen.divergence.textdiff import MAX_CHANGED, Piece, WordDiff, word_pieces
from reportgen.ingest import ingest
from reportgen.site import build_site
from reportgen.site.worddiff import REWRITE, REWRITTEN, readable, tokens, word_diff
from tests.site.browser_pages import SCREENSHOTS, chromium_page, rendered_html


def _marked(html: str, tag: str) -> list[str]:
    return [unescape(x) for x in re.findall(rf"<{tag}>(.*?)</{tag}>", html, re.S)]


def _side(html: str, drop: str) -> str:
    """One side of a diff: the other side's marked words removed, tags stripped."""
    html = re.sub(rf"<{drop}>.*?</{drop}>", "", html, flags=re.S)
    return unescape(re.sub(r"<[^>]+>", "", html))


def test_changed_words_are_marked_and_nothing_else() -> None:
    html = str(word_diff("the quick brown fox jumps", "the quick red fox leaps"))
    assert _marked(html, "del") == ["brown", "jumps"]
    assert _marked(html, "ins") == ["red", "leaps"]


def test_equal_texts_give_no_diff_and_json_compares_with_sorted_keys() -> None:
    assert word_diff("same", "same") is None
    a = readable(json.dumps({"b": 1, "a": [1, 2]}))
    b = readable(json.dumps({"a": [1, 2], "b": 1}))
    assert a == b and a.startswith('{\n  "a"')
    assert readable(json.dumps("plain text")) == "plain text"
    assert readable("not json {") == "not json {"


def test_agent_text_is_escaped() -> None:
    ctx = "the quick brown fox jumps over the lazy dog and "
    before, after = ctx + "<b>x</b> again", ctx + "<script>x</script> again"
    html = str(word_diff(before, after))
    assert "<script" not in html and "<b>" not in html and "&lt;" in html
    assert _side(html, "ins") == before
    assert _side(html, "del") == after


def test_long_unchanged_text_folds_around_the_change() -> None:
    words = [f"w{i}" for i in range(2000)]
    after = list(words)
    after[1000] = "CHANGED"
    html = str(word_diff(" ".join(words), " ".join(after)))
    assert _marked(html, "del") == ["w1000"] and _marked(html, "ins") == ["CHANGED"]
    assert html.count('class="fold"') == 2 and len(html) < 1000
    assert "w999" in html and "w1001" in html  # context kept beside the change


def test_a_rewritten_text_is_said_to_be_not_diffed() -> None:
    assert word_diff("alpha beta gamma delta", "zzzz yyyy xxxx wwww vvvv") is REWRITE


@given(
    st.text(alphabet="ab c.\n", max_size=60),
    st.text(alphabet="ab c.\n", max_size=60),
)
def test_both_sides_rebuild_from_the_diff(before: str, after: str) -> None:
    html = word_diff(before, after)
    if before == after:
        assert html is None
        return
    assert "".join(tokens(before)) == before
    if html is REWRITE:  # most words changed: said, not diffed
        words_a = [t for t in tokens(before) if not t.isspace()]
        words_b = [t for t in tokens(after) if not t.isspace()]
        assert (
            Indel.normalized_similarity(before, after) < REWRITTEN
            or Indel.normalized_similarity(words_a, words_b) < REWRITTEN
        )
        return
    assert _side(str(html), "ins") == before
    assert _side(str(html), "del") == after


@given(st.text())
def test_the_words_are_the_tokens_that_are_not_spaces(text: str) -> None:
    assert textdiff._words(tokens(text)) == textdiff._WORD.findall(text)


def _reference_pieces(before: str, after: str) -> WordDiff | None:
    """word_pieces as first written: Indel's opcodes walked one by one (a change is a run of
    deletes and inserts), each unchanged stretch through ``_fold``."""
    if before == after:
        return None
    words_a, words_b = textdiff._WORD.findall(before), textdiff._WORD.findall(after)
    if (
        Indel.normalized_similarity(before, after) < REWRITTEN
        or Indel.normalized_similarity(words_a, words_b) < REWRITTEN
    ):
        return WordDiff("rewritten")
    a, b = tokens(before), tokens(after)
    ops = cast(list[tuple[str, int, int, int, int]], Indel.opcodes(a, b).as_list())
    parts: list[Piece] = []
    shown, i, n = 0, 0, len(ops)
    while i < n:
        tag, a0, a1, b0, b1 = ops[i]
        if tag == "equal":
            parts += textdiff._fold("".join(a[a0:a1]), i == 0, i == n - 1)
            i += 1
            continue
        removed: list[str] = []
        added: list[str] = []
        while i < n and ops[i][0] != "equal":
            _tag, a0, a1, b0, b1 = ops[i]
            removed += a[a0:a1]
            added += b[b0:b1]
            i += 1
        if shown > MAX_CHANGED:
            parts.append(Piece("more"))
            break
        old, new = "".join(removed), "".join(added)
        shown += len(old) + len(new)
        parts += [Piece("del", old)] if old else []
        parts += [Piece("ins", new)] if new else []
    return WordDiff("diff", tuple(parts))


_PHRASES = st.lists(
    st.sampled_from(
        ["alpha ", "beta ", "gamma, ", "delta\n", "é ", "x" * 150 + " ", "  ", ".", "<>&"]
    ),
    max_size=40,
).map("".join)


@given(_PHRASES, _PHRASES)
def test_word_pieces_match_the_opcode_walk(before: str, after: str) -> None:
    assert word_pieces(before, after) == _reference_pieces(before, after)


@given(_PHRASES, st.lists(st.tuples(st.integers(0, 2_000), st.sampled_from(["", "Z ", "yy"]))))
def test_word_pieces_match_the_opcode_walk_on_long_texts(
    text: str, edits: list[tuple[int, str]]
) -> None:
    before = text * 20
    after = list(before)
    for at, new in edits:
        if after:
            after[at % len(after)] = new
    assert word_pieces(before, "".join(after)) == _reference_pieces(before, "".join(after))


def _run(label: str, path: str, text: str) -> dict[str, Any]:
    return {
        "run_id": f"2026-11-28/words/{label}",
        "task_id": "words",
        "label": label,
        "suite": "handmade",
        "started_at": "2026-11-28T02:00:00Z",
        "steps": [
            {"type": "tool", "action": "read_file", "input": {"path": "a.py"}, "output": "ok",
             "status": "ok"},
            {"type": "tool", "action": "edit_file",
             "input": {"path": path, "mode": "fast"} if label == "baseline" else {"mode": "fast", "path": path},
             "output": text, "status": "ok"},
        ],
    }  # fmt: skip


@pytest.mark.browser
def test_a_changed_error_message_is_diffed(tmp_path: Path) -> None:
    runs = []
    for label, wait in (("baseline", "30"), ("candidate", "60")):
        run = _run(label, "src/app.py", "x")
        run["steps"][1].update(status="error", output=None, error=f"tool timed out after {wait} s")
        runs.append(run)
    traces = tmp_path / "pair.jsonl"
    traces.write_text("".join(json.dumps(r) + "\n" for r in runs), encoding="utf-8")
    ingest([traces], tmp_path / "db.duckdb")
    build_site(tmp_path / "db.duckdb", tmp_path / "site", build_time="2026-11-29T00:00:00Z")
    [page] = (tmp_path / "site" / "compare").rglob("words/*.html")
    drawn = rendered_html(page)  # the word diffs are drawn from the page's data
    part = re.search(r'data-part="error">.*?</pre>', drawn, re.S)
    assert part is not None
    assert _marked(part.group(0), "del") == ["30"] and _marked(part.group(0), "ins") == ["60"]


@pytest.mark.browser
def test_a_page_diffs_up_to_its_budget_then_says_so(tmp_path: Path) -> None:
    words = " ".join(f"word{i}" for i in range(100))
    runs = []
    for label in ("baseline", "candidate"):
        run = _run(label, "src/app.py", "x")
        run["steps"] = [
            {"type": "tool", "action": "read_file", "input": {"path": f"f{i}.py"},
             "output": words + (f" end{i}" if label == "baseline" else f" END{i} {words}"),
             "status": "ok"}
            for i in range(40)
        ]  # fmt: skip
        runs.append(run)
    traces = tmp_path / "pair.jsonl"
    traces.write_text("".join(json.dumps(r) + "\n" for r in runs), encoding="utf-8")
    ingest([traces], tmp_path / "db.duckdb")
    build_site(tmp_path / "db.duckdb", tmp_path / "site", build_time="2026-11-29T00:00:00Z")
    [page] = (tmp_path / "site" / "compare").rglob("words/*.html")
    text = rendered_html(page)  # the word diffs are drawn from the page's data
    diffed = text.count("<ins>END")
    skipped = re.search(r'<span class="diffs-skipped">(\d+) more modified steps', text)
    assert skipped and diffed + int(skipped.group(1)) == 40 and diffed >= 5


@pytest.mark.browser
def test_a_hand_made_pair_marks_exactly_the_changed_words(tmp_path: Path) -> None:
    traces = tmp_path / "pair.jsonl"
    runs = [
        _run("baseline", "src/app.py", "the quick brown fox jumps over the lazy dog"),
        _run("candidate", "src/main.py", "the quick red fox jumps over the sleepy dog"),
    ]
    traces.write_text("".join(json.dumps(r) + "\n" for r in runs), encoding="utf-8")
    db = tmp_path / "pair.duckdb"
    ingest([traces], db)
    build_site(db, tmp_path / "site", build_time="2026-11-29T00:00:00Z")
    [page] = (tmp_path / "site" / "compare" / "baseline..candidate").rglob("words/*.html")
    with chromium_page() as tab:
        shown = tab.open(page)
        rows = shown.locator("tr.word-diff-row")
        assert rows.count() == 1  # only the modified step (the matched one has no diff)
        marked = shown.evaluate(
            """() => Array.from(document.querySelectorAll("tr.word-diff-row .wdiff-part")).map(p =>
                [p.dataset.part, Array.from(p.querySelectorAll("pre del")).map(e => e.textContent),
                 Array.from(p.querySelectorAll("pre ins")).map(e => e.textContent)])"""
        )
        assert marked == [
            ["input", ["app"], ["main"]],  # keys reordered: not a change
            ["output", ["brown", "lazy"], ["red", "sleepy"]],
        ]
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shown.locator("table.diff").screenshot(path=str(SCREENSHOTS / "pair-inline-diff.png"))
        assert tab.problems == []


def test_changes_past_the_limit_are_summarised_as_the_opcode_walk_does() -> None:
    words = [f"w{i}" for i in range(3000)]
    after = [w if i % 3 else "CHANGED" for i, w in enumerate(words)]
    diff = word_pieces(" ".join(words), " ".join(after))
    assert diff is not None and diff.pieces[-1] == Piece("more")
    assert diff == _reference_pieces(" ".join(words), " ".join(after))


def test_a_word_diff_holds_its_pieces_as_columns() -> None:
    pieces = (Piece("same", "a "), Piece("del", "b"), Piece("ins", "c"), Piece("fold", hidden=9))
    diff = WordDiff("diff", pieces)
    assert diff.marks == "sdif" and diff.texts == ("a ", "b", "c", "") and diff.hidden[-1] == 9
    assert diff.pieces == pieces and diff == WordDiff.of_columns("sdif", diff.texts, diff.hidden)
    assert hash(diff) == hash(WordDiff("diff", list(pieces))) and diff != WordDiff("rewritten")
    assert WordDiff("too_long", sizes=(3, 4)).pieces == () and "sizes=(3, 4)" in repr(
        WordDiff("too_long", sizes=(3, 4))
    )
    with pytest.raises(AttributeError):
        diff.kind = "rewritten"
    with pytest.raises(ValueError):
        WordDiff.of_columns("sd", ("a",), (0,))
