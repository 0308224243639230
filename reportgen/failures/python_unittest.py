"""unittest (also Django's `manage.py test`): `FAIL: test_x (mod.Class)` / `ERROR: ...` headers.

Ids: `unittest:<module>.<Class>.<test>` plus a subtest's parameters, e.g.
`unittest:tests.test_auth.LoginTest.test_rejects (user='bob')`.
"""

from __future__ import annotations

import re

from .base import Normaliser
from .scrub import scrub_name

_HEAD = re.compile(
    r"\n(?:FAIL|ERROR): (?P<name>\S+) \((?P<where>[^()\s]+)\)(?P<extra>[^\n]*)$", re.M
)


class UnittestNormaliser(Normaliser):
    """Standard-library unittest runners (python -m unittest, Django, nose2)."""

    name = "unittest"
    check_re = re.compile(r"\bunittest\b|\bmanage\.py\s+test\b|\bnose2\b")
    sniff_res = (re.compile(r"\n(?:FAIL|ERROR): \S+ \([\w.]+\)"),)

    def _parse(self, output: str) -> set[str]:
        """Full dotted test id; Python 3.11+ already puts it in the parentheses."""
        ids: set[str] = set()
        for m in _HEAD.finditer(output):
            name, where = m["name"], m["where"]
            if "_FailedTest" in where or "ModuleImportFailure" in where:
                full = name  # the module itself failed to import
            elif where.endswith("." + name):
                full = where
            else:
                full = f"{where}.{name}"
            extra = m["extra"].strip()
            ids.add(scrub_name(f"unittest:{full} {extra}" if extra else f"unittest:{full}"))
        return ids
