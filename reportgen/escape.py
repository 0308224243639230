"""One escaping rule per output medium for text that comes from agent traces (task, run and
pair ids, step actions, messages). Agent text is hostile: it must show as text and never
become markup, a link, an image, a terminal escape or a CI workflow command; and it may hold
secrets: each function replaces the built-in secret shapes first (reportgen.secrets), so a
key in a task id never reaches a PR comment, a CI log or ``--explain``.

- Markdown (PR comments, $GITHUB_STEP_SUMMARY): :func:`md_text` backslash-escapes every
  character Markdown gives a meaning inside a line, ``.``, ``:`` and ``@`` included, so no
  autolink (``http://``, ``www.``, e-mail) can form, and puts an invisible word joiner into
  GitHub's references (``GH-3``, ``#3``, ``@user``) so none links to an issue or a person;
  :func:`md_code` makes a code span (GitHub links nothing inside one).
- XML (the site's Atom feed): :func:`xml_text` shows the characters XML 1.0 forbids as
  visible escapes.
- Terminal and CI logs: :func:`term_text` shows control characters (newlines, ANSI escapes,
  C1 controls, Unicode line separators) as visible ``\\xNN`` / ``\\uNNNN`` text, so agent text
  never starts a line; reportgen never starts a line with agent text itself, so no line can
  start with ``::`` (a GitHub Actions workflow command).
"""

from __future__ import annotations

import re

from reportgen.secrets import redact_text

#: Characters with a meaning inside a line of GitHub-flavoured Markdown: emphasis, code,
#: links and images, raw HTML and entities, tables, strikethrough, math, autolinks.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]()!<>|&~$:@.#])")
#: Line breaks and other control characters (C0, DEL, C1, Unicode line/paragraph separators).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_BACKTICKS = re.compile(r"`+")
#: GitHub's own references (``GH-12``, ``#12``, ``@name``), which it links after rendering
#: (a backslash does not stop them): a word joiner (U+2060, invisible) breaks them.
_REFERENCE = re.compile(r"(?i)(\bgh)(?=-\d)|(\\[#@])(?=\w)")
_JOINER = "\u2060"


def _visible(match: re.Match[str]) -> str:
    """A control character as visible text: ``\\n``, ``\\t``, ``\\x1b``, ``\\u2028``."""
    ch = match.group(0)
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    if ch in named:
        return named[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def md_text(text: object) -> str:
    """Agent text for Markdown: line breaks and control characters become spaces, and every
    Markdown-significant character is backslash-escaped (renders as itself)."""
    flat = _CONTROL.sub(" ", redact_text(str(text)))
    return _REFERENCE.sub(rf"\1\2{_JOINER}", _MD_SPECIAL.sub(r"\\\1", flat))


def md_code(text: object) -> str:
    """Agent text as a Markdown code span (shown verbatim, never a link): fenced with more
    backticks than the text holds in a row, padded with spaces; ``|`` escaped for tables."""
    flat = _CONTROL.sub(" ", redact_text(str(text))).replace("|", "\\|")
    longest = max((len(m) for m in _BACKTICKS.findall(flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith(("`", " ")) or flat.endswith(("`", " ")) or longest else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


#: Characters XML 1.0 forbids (C0 controls but tab, newline and carriage return; lone
#: surrogates; U+FFFE and U+FFFF).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: object) -> str:
    """Text for an XML document (the Atom feed): each character XML 1.0 forbids shown as a
    visible escape, so one id cannot make the whole document ill-formed; secrets redacted.
    ElementTree escapes the markup characters."""
    return _NOT_XML.sub(_visible, redact_text(str(text)))


def term_line(line: object) -> str:
    """A whole line for a terminal or CI log (one ``print`` of a report): :func:`term_text`,
    and a line that would start with ``::`` after its leading blanks (a GitHub Actions
    workflow command) gets its first colon shown as ``\\x3a``."""
    shown = term_text(line)
    blank = len(shown) - len(shown.lstrip())
    if shown.startswith("::", blank):
        return f"{shown[:blank]}\\x3a{shown[blank + 1 :]}"
    return shown


def term_text(text: object) -> str:
    """Agent text for a terminal or CI log: control characters (newlines and ANSI escapes
    among them) shown as visible escapes, so the text stays on its line and changes nothing."""
    return _CONTROL.sub(_visible, redact_text(str(text)))
