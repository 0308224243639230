"""Go: `go test` (plain, verbose, -json, gotestsum) and `go build` / `go vet` diagnostics.

Ids: `go:<import path>::<Test/sub>` for tests, `go:<file>:<message>` for diagnostics.
"""

from __future__ import annotations

import json
import re

from .base import Normaliser
from .scrub import scrub_message, scrub_name, scrub_path

_LINE = re.compile(
    r"\n(?:"
    r"[ \t]*--- FAIL: (?P<test>\S+)(?: \([^)\n]*\))?"
    r"|=== FAIL: (?P<gts_pkg>\S+) (?P<gts_test>\S+)(?: \([^)\n]*\))?"
    r"|FAIL[ \t]+(?P<pkg>[^\s\[]\S*)(?P<tail>[^\n]*)"
    r"|ok[ \t]+(?P<ok>\S+)[^\n]*"
    r"|(?P<running>running tests:)"
    r"|(?:vet: )?(?P<file>[^\s:#][^\s:]*\.go):\d+(?::\d+)?: (?P<msg>[^\n]+)"
    r"|go: (?P<gomsg>[^\n]+)"
    r"|(?P<json>\{[^\n]*\"Action\":\"(?:fail|build-output)\"[^\n]*\})"
    r")[ \t]*$",
    re.M,
)
_RUNNING_ITEM = re.compile(r"[ \t]+(\S+) \([^)\n]*\)[ \t]*\n?")
_DIAG = re.compile(r"^(?:vet: )?([^\s:#][^\s:]*\.go):\d+(?::\d+)?: ([^\n]+)$", re.M)
_GO_NOISE = re.compile(r"^(?:downloading|finding|extracting|added|upgraded) ")


def _diag_id(file: str, msg: str) -> str | None:
    if msg.strip() == "too many errors":
        return None
    return f"go:{scrub_path(file)}:{scrub_message(msg)}"


class GoNormaliser(Normaliser):
    """`go test`, `go build`, `go vet` (and gotestsum's `=== FAIL:` lines)."""

    name = "go"
    check_re = re.compile(r"\bgo\s+(?:test|build|vet|install|run)\b|\bgotestsum\b")
    sniff_res = (
        re.compile(r"\n(?:--- FAIL: |FAIL\t|ok  \t|=== FAIL: )"),
        re.compile(r"\.go:\d+:\d+: "),
        re.compile(r"\"Action\":\"fail\""),
    )

    def _parse(self, output: str) -> set[str]:
        """Attach pending `--- FAIL` tests to the package named by the next `FAIL <pkg>` line."""
        ids: set[str] = set()
        pending: list[str] = []
        json_pkg_fail: set[str] = set()
        json_test_pkgs: set[str] = set()
        for m in _LINE.finditer(output):
            if m["test"] is not None:
                pending.append(m["test"])
            elif m["gts_test"] is not None:
                ids.add(f"go:{m['gts_pkg']}::{scrub_name(m['gts_test'])}")
            elif m["pkg"] is not None:
                pkg, tail = m["pkg"], m["tail"]
                if pending:
                    ids.update(f"go:{pkg}::{scrub_name(t)}" for t in pending)
                    pending.clear()
                elif "[setup failed]" in tail:
                    ids.add(f"go:{pkg} [setup failed]")
                elif "[build failed]" not in tail:
                    ids.add(f"go:{pkg}")
            elif m["ok"] is not None:
                pending.clear()
            elif m["running"] is not None:
                pos = m.end() + 1
                while item := _RUNNING_ITEM.match(output, pos):
                    pending.append(item[1])
                    pos = item.end()
            elif m["file"] is not None:
                if (fid := _diag_id(m["file"], m["msg"])) is not None:
                    ids.add(fid)
            elif m["gomsg"] is not None:
                if not _GO_NOISE.match(m["gomsg"]):
                    ids.add(f"go:go: {scrub_message(m['gomsg'])}")
            elif m["json"] is not None:
                self._json(m["json"], ids, json_pkg_fail, json_test_pkgs)
        ids.update(f"go::{scrub_name(t)}" for t in pending)
        ids.update(f"go:{p}" for p in json_pkg_fail - json_test_pkgs)
        return ids

    @staticmethod
    def _json(line: str, ids: set[str], pkg_fail: set[str], test_pkgs: set[str]) -> None:
        """One `go test -json` event: a failed test, a failed package or build output."""
        try:
            ev = json.loads(line)
        except ValueError:
            return
        if not isinstance(ev, dict):
            return
        if ev.get("Action") == "build-output":
            for d in _DIAG.finditer(str(ev.get("Output", ""))):
                if (fid := _diag_id(d[1], d[2])) is not None:
                    ids.add(fid)
            return
        pkg = str(ev.get("Package", ""))
        if ev.get("Test"):
            ids.add(f"go:{pkg}::{scrub_name(str(ev['Test']))}")
            test_pkgs.add(pkg)
        elif pkg and not ev.get("FailedBuild"):
            pkg_fail.add(pkg)
