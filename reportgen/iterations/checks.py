"""Which kind of check certifies a step: a test suite, or a build-only (compile, type, lint) check.

A build fails identically until it does not, so its failing set says much less about progress
than a test suite's; reports name the kind so readers weigh the signals accordingly."""

from __future__ import annotations

import re
from functools import lru_cache

TEST_SUITE = "test-suite"
BUILD_ONLY = "build-only"
UNKNOWN = "unknown"

# Words of a command that runs tests; checked first, so `ruff check . && pytest` is a test suite.
_TEST_WORDS = re.compile(
    r"(?<![\w.-])(test|tests|pytest|py\.test|unittest|nose2|jest|vitest|gotestsum|nextest"
    r"|ctest|rspec|phpunit|verify)(?![\w-])"
)
# Words of a command that only compiles, type-checks or lints.
_BUILD_WORDS = re.compile(
    r"(?<![\w.-])(build|vet|check|compile|tsc|vue-tsc|mypy|dmypy|ruff|eslint|lint|flake8|pylint"
    r"|clippy|rustc|javac|typecheck)(?![\w-])"
)
_TEST_NORMALISERS = frozenset({"pytest", "unittest", "jest", "vitest", "junit"})
_BUILD_NORMALISERS = frozenset({"tsc", "mypy", "ruff", "eslint"})


@lru_cache(maxsize=4096)
def check_kind(check: str | None, normaliser: str | None = None) -> str:
    """``test-suite``, ``build-only`` or ``unknown``, from the check command, else from the
    normaliser(s) that read its output (``pytest+ruff`` counts as a test suite)."""
    if check:
        if _TEST_WORDS.search(check):
            return TEST_SUITE
        if _BUILD_WORDS.search(check):
            return BUILD_ONLY
    names = set((normaliser or "").split("+"))
    if names & _TEST_NORMALISERS:
        return TEST_SUITE
    if names & _BUILD_NORMALISERS:
        return BUILD_ONLY
    return UNKNOWN
