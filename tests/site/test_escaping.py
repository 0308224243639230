"""Agent text is hostile: it must show up as text everywhere and never run or link."""

from __future__ import annotations

from pathlib import Path

from reportgen.site.stepdata import read_steps_script
from tests.site.conftest import IMG, JS_LINK, TEXTAREA, XSS, html_pages
from tests.site.html import parse

RAW = (XSS, IMG, TEXTAREA, "</script><script>alert(4)</script>")


def test_hostile_text_never_appears_raw(hostile_site: Path) -> None:
    for file in html_pages(hostile_site):
        html = file.read_text(encoding="utf-8")
        for raw in RAW:
            assert raw not in html, (file, raw)


def test_no_hostile_elements_or_links(hostile_site: Path) -> None:
    for file in html_pages(hostile_site):
        doc = parse(file)
        assert doc.select("img") == [], file
        assert doc.select("textarea") == [], file
        assert doc.select("b") == [], file
        for el in doc.iter():
            assert not any(k.startswith("on") for k in el.attrs), (file, el.tag, el.attrs)
            for key in ("href", "src"):
                value = el.attrs.get(key, "").strip().lower()
                assert not value.startswith(("javascript:", "data:", "vbscript:")), (file, value)
        for script in doc.select("script"):
            assert "src" in script.attrs or script.attrs.get("type") == "application/json"


def test_hostile_text_is_shown_as_text(hostile_site: Path) -> None:
    [run] = [p for p in hostile_site.rglob("runs/**/*.html") if "candidate" in p.name]
    doc = parse(run)
    text = doc.text
    assert XSS in text and TEXTAREA in text and JS_LINK in text and IMG in text
    notes = doc.one("section", class_="notes")
    links = [a.attrs["href"] for a in notes.select("a")]
    assert links == ["https://example.com"], "the javascript: link is dropped, the safe one kept"
    assert f"[click me]({JS_LINK})" in notes.text


def test_chart_json_cannot_close_its_script_block(hostile_site: Path) -> None:
    for file in html_pages(hostile_site):
        html = file.read_text(encoding="utf-8")
        start = 0
        while (at := html.find('<script type="application/json"', start)) >= 0:
            end = html.index("</script>", at)
            block = html[at:end]
            assert "<" not in block[block.index(">") + 1 :], file
            start = end + 1


def test_hostile_ids_give_safe_paths(hostile_site: Path) -> None:
    for file in hostile_site.rglob("*"):
        rel = file.relative_to(hostile_site).as_posix()
        assert all(ch.isalnum() or ch in "-._/" for ch in rel), rel
        assert "<" not in rel and ".." not in rel.replace("baseline..candidate", "")


def test_step_data_scripts_only_assign_escaped_json(hostile_site: Path) -> None:
    import json
    import re

    scripts = sorted(hostile_site.rglob("*.steps.js"))
    assert scripts
    for file in scripts:
        text = file.read_text(encoding="utf-8")
        for raw in ("<", ">", "&", "\u2028", "\u2029"):
            assert raw not in text, (file, raw)
        head = "window.RG_RUN_STEPS=window.RG_RUN_STEPS||{};window.RG_RUN_STEPS["
        assert text.startswith(head) and text.endswith('";\n'), file
        key, _, value = text[len(head) : -3].partition(']="')
        assert isinstance(json.loads(key), str)
        assert re.fullmatch("[A-Za-z0-9+/]*={0,2}", value), file  # base64: no quote, no markup
        assert read_steps_script(file)[1]["steps"]
