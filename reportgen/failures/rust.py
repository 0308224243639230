"""Rust: `cargo test` / `cargo nextest` failures and rustc/clippy errors.

Ids: `cargo:<test binary>::<test path>` for tests (e.g. `cargo:mycrate::auth::tests::login`),
`rustc:<file>:<code>:<message>` for compiler errors (e.g. `rustc:src/main.rs:E0308:mismatched
types`); an error with no source location is `rustc:error: <message>`.
"""

from __future__ import annotations

import re

from .base import Normaliser
from .scrub import scrub_message, scrub_name, scrub_path

_LINE = re.compile(
    r"\n(?:"
    r"test (?P<test>[^\n]+) \.\.\. FAILED"
    r"|---- (?P<stdout>[^\n]+) stdout ----"
    r"|[ \t]*Running (?:unittests |tests? )?(?P<src>[^\s(]+)?[ \t]*(?:\((?P<bin>[^)\n]+)\))?"
    r"|[ \t]*Doc-tests (?P<doc>\S+)"
    r"|--- STD(?:OUT|ERR):[ \t]+(?P<sbin>\S+) \S+ ---"
    r"|[ \t]*(?:FAIL|SIGSEGV|SIGABRT|SIGKILL|TIMEOUT|LEAK-FAIL) \[[ \d.]+m?s\] "
    r"(?:\([ \d]+/[ \d]+\) )?(?P<nbin>\S+) (?P<ntest>\S+)"
    r"|(?P<sev>error|warning)(?:\[(?P<code>E\d{4})\])?: (?P<msg>[^\n]+)"
    r"|[ \t]*--> (?P<loc>[^\n]+):\d+:\d+"
    r")[ \t]*$",
    re.M,
)
_BIN_HASH = re.compile(r"-[0-9a-f]{8,}(?:\.exe)?$")
_DOC_LINE = re.compile(r" \(line \d+\)$")
_SUMMARY_ERR = re.compile(
    r"^(?:could not compile|aborting due to|test failed, to rerun|\d+ targets? failed"
    r"|build failed|test run failed|Some errors have detailed|For more information)"
)


def _binary(src: str | None, bin_path: str | None) -> str:
    """Test binary name: `target/debug/deps/api-1a2b3c` -> `api` (the hash changes per build)."""
    path = bin_path or src or ""
    stem = path.replace("\\", "/").rsplit("/", 1)[-1]
    return _BIN_HASH.sub("", stem)


class RustNormaliser(Normaliser):
    """cargo test / nextest / build / check / clippy, and plain rustc."""

    name = "cargo"
    check_re = re.compile(r"\bcargo\s+(?:\+\S+\s+)?\w+|\brustc\b")
    sniff_res = (
        re.compile(
            r"\n(?:test \S[^\n]* \.\.\. (?:FAILED|ok)$|---- \S+ stdout ----$"
            r"|error(?:\[E\d{4}\])?: [^\n]*\n[ \t]*--> |test result: |[ \t]+Compiling \S+ v\d)",
            re.M,
        ),
    )

    def _parse(self, output: str) -> set[str]:
        """Tests are named within the binary announced by the last `Running`/`Doc-tests`."""
        ids: set[str] = set()
        binary = ""
        pending: tuple[str, str] | None = None  # (code, message) still waiting for `-->`

        def flush() -> None:
            nonlocal pending
            if pending is not None and not _SUMMARY_ERR.match(pending[1]):
                ids.add(f"rustc:error: {scrub_message(pending[1])}")
            pending = None

        for m in _LINE.finditer(output):
            name = m["test"] or m["stdout"]
            if name is not None:
                name = _DOC_LINE.sub("", name)
                prefix = f"{binary}::" if binary else ""
                ids.add(f"cargo:{prefix}{scrub_name(name)}")
            elif m["ntest"] is not None:
                ids.add(f"cargo:{m['nbin']}::{scrub_name(m['ntest'])}")
            elif m["doc"] is not None or m["sbin"] is not None:
                binary = m["doc"] or m["sbin"]
            elif m["sev"] is not None:
                flush()
                if m["sev"] == "error":
                    pending = (m["code"] or "", m["msg"])
            elif m["loc"] is not None:
                if pending is not None:
                    code = f"{pending[0]}:" if pending[0] else ""
                    ids.add(f"rustc:{scrub_path(m['loc'])}:{code}{scrub_message(pending[1])}")
                    pending = None
            elif m["src"] is not None or m["bin"] is not None:
                flush()
                binary = _binary(m["src"], m["bin"])
        flush()
        return ids
