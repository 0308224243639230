"""A tiny DOM from the stdlib html.parser, for selector-style assertions on built pages."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from html.parser import HTMLParser
from pathlib import Path

VOID = {"meta", "link", "br", "img", "input", "hr", "area", "base", "col", "source", "wbr"}


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    parent: Element | None = None
    children: list[Element] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    content: list[str | Element] = field(default_factory=list)  # texts and children, in order

    @property
    def text(self) -> str:
        """The element's text in document order (its own texts and its children's)."""
        return "".join(c if isinstance(c, str) else c.text for c in self.content)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def iter(self) -> Iterator[Element]:
        for child in self.children:
            yield child
            yield from child.iter()

    def select(self, tag: str | None = None, **attrs: str) -> list[Element]:
        """Descendants with this tag and attributes (``class_`` matches one class)."""
        found = []
        for el in self.iter():
            if tag is not None and el.tag != tag:
                continue
            ok = True
            for key, value in attrs.items():
                if key == "class_":
                    ok = ok and value in el.classes
                else:
                    ok = ok and el.attrs.get(key.replace("_", "-")) == value
            if ok:
                found.append(el)
        return found

    def one(self, tag: str | None = None, **attrs: str) -> Element:
        found = self.select(tag, **attrs)
        assert len(found) == 1, f"expected one {tag} {attrs}, found {len(found)}"
        return found[0]


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.current = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        el = Element(tag, {k: v or "" for k, v in attrs}, self.current)
        self.current.children.append(el)
        self.current.content.append(el)
        if tag not in VOID:
            self.current = el

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        el = Element(tag, {k: v or "" for k, v in attrs}, self.current)
        self.current.children.append(el)
        self.current.content.append(el)

    def handle_endtag(self, tag: str) -> None:
        node: Element | None = self.current
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.current = node.parent

    def handle_data(self, data: str) -> None:
        self.current.texts.append(data)
        self.current.content.append(data)


def parse(source: str | Path) -> Element:
    text = source.read_text(encoding="utf-8") if isinstance(source, Path) else source
    builder = _Builder()
    builder.feed(text)
    builder.close()
    return builder.root


@cache
def parse_file(path: Path) -> Element:
    """``parse`` for built pages, cached: several tests walk every page of one site."""
    return parse(path)
