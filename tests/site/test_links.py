"""Every relative link and asset reference in the built site resolves, anchors included."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

from reportgen.site import BuildReport
from reportgen.site.stepdata import read_steps_script, unpack_json
from tests.site.conftest import html_pages
from tests.site.html import parse_file


@cache
def _ids(file: Path) -> frozenset[str]:
    """The page's ids, with the step rows (``step-<idx>``) a run page draws from its step data
    script (``<run>.steps.js``, reportgen/site/stepdata.py)."""
    elements = list(parse_file(file).iter())
    ids = {el.attrs["id"] for el in elements if "id" in el.attrs}
    for table in (el for el in elements if "data-rows" in el.attrs):  # a pair page's rows
        rows = unpack_json(table.attrs["data-rows"].encode())
        ids.update(f"row-{i}" for i in range(len(rows)))
        ids.update("first-divergence" for row in rows if row.get("f"))
    script = file.with_suffix(".steps.js")
    if script.is_file():
        ids.update(f"step-{step['i']}" for step in read_steps_script(script)[1]["steps"])
    return frozenset(ids)


def broken_links(site: Path, *, allow_web_links: bool = False) -> list[str]:
    """Relative href/src values that point at no file or no anchor (filter states are not
    anchors). ``allow_web_links`` accepts http(s) links in ``<a>`` (from Markdown notes)."""
    broken = []
    for file in html_pages(site):
        for el in parse_file(file).iter():
            for key in ("href", "src", "data-src"):
                value = el.attrs.get(key)
                if value is None:
                    continue
                parts = urlsplit(value)
                if allow_web_links and el.tag == "a" and parts.scheme in ("http", "https"):
                    continue
                if parts.scheme or parts.netloc or value.startswith("/"):
                    broken.append(f"{file}: not relative: {value}")
                    continue
                target = (file.parent / unquote(parts.path)).resolve() if parts.path else file
                if not target.is_file() or site.resolve() not in target.parents:
                    broken.append(f"{file}: {value}")
                elif (
                    parts.fragment
                    and "=" not in parts.fragment
                    and unquote(parts.fragment) not in _ids(target)
                ):
                    broken.append(f"{file}: no anchor {value}")
    return broken


def test_demo_site_links_resolve(demo_site: tuple[Path, BuildReport]) -> None:
    assert broken_links(demo_site[0]) == []


def test_hostile_site_links_resolve(hostile_site: Path) -> None:
    assert broken_links(hostile_site, allow_web_links=True) == []
