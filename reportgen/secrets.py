"""Secret shapes, one list for every surface: the site's redaction (DuckDB RE2, vectorised
over the archive: reportgen.site.redaction) and every text that leaves the process outside a
build (Markdown, terminal and CI-log lines: :func:`redact_text`, called by reportgen.escape).

Each pattern is specific enough not to match ordinary prose and is valid in both RE2 and
Python's ``re``. Zero-width characters are removed before matching (a key split by U+200B is
still a key): :data:`ZERO_WIDTH`.

Base64-wrapped keys: a Basic authorization header is redacted whatever it encodes; a base64
run that holds a key with a long, distinctive prefix (``sk-ant-``, ``github_pat_``, an
``aws_secret_access_key=`` assignment, a PEM block...) is found by the prefix's base64 spelling
at each of the three byte alignments (:func:`_wrapped`: RE2 needs no decoding, so the site
finds them in its one vectorised pass); :func:`redact_text` also decodes every base64 run of
24 characters or more and redacts the run when the decoded bytes hold any secret shape."""

from __future__ import annotations

import base64
import binascii
import re

_B64 = "A-Za-z0-9+/"
#: Key prefixes whose base64 spelling is long enough (6 characters or more at every
#: alignment) not to turn up by chance in an image or an archive encoded in base64.
WRAPPED_PREFIXES = (
    "sk-ant-", "sk-proj-", "sk-svcacct-", "sk-admin-", "github_pat_", "sk_live_", "rk_live_",
    "aws_secret_access_key", "AWS_SECRET_ACCESS_KEY", "-----BEGIN ",
)  # fmt: skip


def _wrapped(prefixes: tuple[str, ...]) -> str:
    """A pattern matching a whole base64 run holding any of ``prefixes`` encoded."""
    return f"[{_B64}]*(?:{_fragments(prefixes)})[{_B64}]*={{0,2}}"


def _fragments(prefixes: tuple[str, ...]) -> str:
    """An alternation of ``prefixes`` encoded in base64: for each prefix and each of its three
    alignments in the encoded bytes, the characters that only its own bits determine."""
    fragments = set()
    for prefix in prefixes:
        raw = prefix.encode()
        for shift in range(3):
            encoded = base64.b64encode(b"\0" * shift + raw).decode()
            first = -(-8 * shift // 6)  # the first character holding none of the filler
            last = 8 * (shift + len(raw)) // 6  # characters wholly inside the prefix
            fragment = encoded[first:last]
            assert len(fragment) >= 6, prefix
            fragments.add(re.escape(fragment))
    return "|".join(sorted(fragments))


MARKER = "[REDACTED]"

#: Built-in secret shapes: name -> pattern. docs/site.md lists them. A key's prefix starts a
#: word (``\b``): ``task-0001-...`` holds ``sk-`` but is no key.
SECRET_PATTERNS: dict[str, str] = {
    "anthropic/openai key": r"\bsk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
    "google api key": r"\bAIza[0-9A-Za-z_-]{35}",
    "github token": r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
    "aws access key id": r"\b(?:AKIA|ASIA)[0-9A-Z]{16}",
    # the name, then (quoted, JSON-escaped at any depth, URL-encoded or as an env list's
    # "value") the key
    "aws secret key": (
        r"(?i:aws_secret_access_key)(?:\\*[\"'])?"
        r"(?:\s*(?:[:=]|%3[aAdD])|\s*,\s*\\*[\"']?value\\*[\"']?\s*:)"
        r"\s*(?:\\*[\"'])?(?:[A-Za-z0-9/+=]|%2[bBfF]|%3[dD]){40,}"
    ),
    "slack token": r"\bxox[abposr]-[A-Za-z0-9-]{10,}",
    "stripe key": r"\b[rs]k_live_[0-9A-Za-z]{16,}",
    "hugging face token": r"\bhf_[A-Za-z0-9]{30,}",
    "bearer token": r"\b(?i:bearer)\s+[A-Za-z0-9._~+/-]{16,}=*",
    "private key block": (
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----"
    ),
    "password in url": r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@\"'<>]+:[^/\s@\"'<>]+@",
    # an Authorization header's Basic credentials (base64 of user:password), JSON-quoted or not
    "basic auth credentials": (
        r"(?i:authorization)\\*[\"']?\s*[:=]\s*\\*[\"']?\s*(?i:basic)\s+[A-Za-z0-9+/]{8,}={0,2}"
    ),
    "base64-wrapped key": _wrapped(WRAPPED_PREFIXES),
}
#: Invisible characters removed from text before secrets are looked for.
ZERO_WIDTH = "[\u200b\u200c\u200d\u2060\ufeff]"

# Python's re backtracks where RE2 does not: the base64-wrapped pattern (a leading run) is
# left to the decoding below, which finds every shape it finds and more.
_ANY = re.compile(
    "|".join(f"(?:{p})" for k, p in SECRET_PATTERNS.items() if k != "base64-wrapped key")
)
_ZERO_WIDTH = re.compile(ZERO_WIDTH)
_B64_RUN = re.compile(f"[{_B64}]{{24,}}={{0,2}}")
_B64_MIN = 24
_WRAPPED_PREFIX = re.compile(_fragments(WRAPPED_PREFIXES))
_HEX = re.compile("[0-9A-Fa-f]+")


def redact_text(text: str) -> str:
    """``text`` with each built-in secret shape replaced by :data:`MARKER` (zero-width
    characters removed first, only when the text holds a secret once they are gone), and each
    base64 run of 24 characters or more that decodes to text holding one."""
    if _ANY.search(text):
        text = _ANY.sub(MARKER, text)
    else:
        visible = _ZERO_WIDTH.sub("", text)
        if visible != text and _ANY.search(visible):
            text = _ANY.sub(MARKER, visible)
    if len(text) < _B64_MIN or not _B64_RUN.search(text):
        return text
    return _B64_RUN.sub(_unwrapped, text)


def _unwrapped(match: re.Match[str]) -> str:
    """The base64 run ``match`` as is, or MARKER when it decodes (at any of the four
    character offsets: the run may start inside a word) to text holding a secret shape."""
    run = match.group(0).rstrip("=")
    if _HEX.fullmatch(run):  # a hash or an id: base64 of text is never hex digits alone
        return match.group(0)
    if _WRAPPED_PREFIX.search(run):  # what the site's pattern finds, found here too
        return MARKER
    for offset in range(4):
        body = run[offset:]
        body = body[:-1] if len(body) % 4 == 1 else body + "=" * (-len(body) % 4)
        try:
            decoded = binascii.a2b_base64(body).decode("latin-1")
        except (binascii.Error, ValueError):
            continue
        if _ANY.search(decoded) or _ANY.search(_ZERO_WIDTH.sub("", decoded)):
            return MARKER
    return match.group(0)
