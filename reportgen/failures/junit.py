"""JUnit XML reports and the Maven Surefire / Gradle console output that summarises them.

Ids: `junit:<classname>.<name>` for tests (e.g. `junit:com.example.AuthTest.testLogin`),
`javac:<file>:<message>` for Java compile errors.
"""

from __future__ import annotations

import html
import re

from .base import Normaliser
from .scrub import scrub_message, scrub_name, scrub_path

_XML = re.compile(r"<testcase\b(?P<attrs>[^>]*)>|</testcase\s*>|<(?P<bad>failure|error)\b")
_ATTR = re.compile(r"\b(name|classname)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
_CONSOLE = re.compile(
    r"\n(?:"
    r"(?:\[ERROR\] )?(?P<full>[\w$]+(?:\.[\w$]+)+(?:\([^)\n]*\))?(?:\[[^\]\n]*\])?)[ \t]+--?[ \t]+Time elapsed:[^\n]*<<< (?:FAILURE|ERROR)!"
    r"|(?:\[ERROR\] )?(?P<m>[^\s(]+)\((?P<cls>[\w.$]+)\)[ \t]+Time elapsed:[^\n]*<<< (?:FAILURE|ERROR)!"
    r"|(?P<gradle>[\w.$]+ > [^\n]+) FAILED"
    r"|\[ERROR\] (?P<jfile>(?:[A-Za-z]:)?[^\s:]+\.java):\[\d+(?:,\d+)?\] (?P<jmsg>[^\n]+)"
    r"|(?P<gfile>(?:[A-Za-z]:)?[^\s:]+\.java):\d+: error: (?P<gmsg>[^\n]+)"
    r")[ \t]*$",
    re.M,
)
_SUMMARY = re.compile(
    r"\n\[ERROR\][ \t]{2,}(?P<cls>[\w$]+)\.(?P<m>[\w$]+)(?::\d+)?(?:[ \t]|$)", re.M
)


def _test_id(name: str) -> str:
    name = name[:-2] if name.endswith("()") else name
    return f"junit:{scrub_name(name)}"


class JunitNormaliser(Normaliser):
    """JUnit XML (Maven, Gradle, pytest --junitxml, ...), Surefire and Gradle console lines."""

    name = "junit"
    check_re = re.compile(r"\b(?:mvnw?|gradlew?|ant|junit)\b")
    sniff_res = (
        re.compile(r"<testsuites?\b"),
        re.compile(r"<<< (?:FAILURE|ERROR)!"),
        re.compile(r"\n(?:\[(?:ERROR|INFO)\] |[\w.$]+ > [^\n]+ FAILED$)", re.M),
    )

    def _parse(self, output: str) -> set[str]:
        """XML test cases with a failure/error child, else console lines."""
        ids = self._xml(output) if "<testcase" in output else set()
        found_tests = False
        for m in _CONSOLE.finditer(output):
            if m["full"] is not None:
                ids.add(_test_id(m["full"]))
                found_tests = True
            elif m["cls"] is not None:
                ids.add(_test_id(f"{m['cls']}.{m['m']}"))
                found_tests = True
            elif m["gradle"] is not None:
                parts = [p[:-2] if p.endswith("()") else p for p in m["gradle"].split(" > ")]
                ids.add(_test_id(".".join(parts)))
                found_tests = True
            elif m["jfile"] is not None:
                ids.add(f"javac:{scrub_path(m['jfile'])}:{scrub_message(m['jmsg'])}")
            else:
                ids.add(f"javac:{scrub_path(m['gfile'])}:{scrub_message(m['gmsg'])}")
        if not found_tests and not any(i.startswith("junit:") for i in ids):
            ids.update(_test_id(f"{m['cls']}.{m['m']}") for m in _SUMMARY.finditer(output))
        return ids

    @staticmethod
    def _xml(output: str) -> set[str]:
        """One linear scan over testcase open/close tags and failure/error children."""
        ids: set[str] = set()
        current: str | None = None
        failed = False
        for m in _XML.finditer(output):
            attrs = m["attrs"]
            if attrs is not None:
                if current is not None and failed:
                    ids.add(current)
                fields = {a[1]: html.unescape(a[2] or a[3]) for a in _ATTR.finditer(attrs)}
                cls, name = fields.get("classname", ""), fields.get("name", "")
                full = f"{cls}.{name}" if cls else name
                current, failed = (None, False) if attrs.rstrip().endswith("/") else (full, False)
                if current is not None:
                    current = _test_id(current)
            elif m["bad"] is not None:
                failed = current is not None
            else:
                if current is not None and failed:
                    ids.add(current)
                current, failed = None, False
        return ids
