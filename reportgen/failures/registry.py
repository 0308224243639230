"""The one place normalisers are registered; order is the order names are reported in."""

from __future__ import annotations

from .base import Normaliser
from .fallback import FallbackNormaliser
from .go import GoNormaliser
from .js_eslint import EslintNormaliser
from .js_jest import JestNormaliser
from .js_tsc import TscNormaliser
from .js_vitest import VitestNormaliser
from .junit import JunitNormaliser
from .python_mypy import MypyNormaliser
from .python_pytest import PytestNormaliser
from .python_ruff import RuffNormaliser
from .python_unittest import UnittestNormaliser
from .rust import RustNormaliser

NORMALISERS: tuple[Normaliser, ...] = (
    GoNormaliser(),
    PytestNormaliser(),
    UnittestNormaliser(),
    RustNormaliser(),
    JestNormaliser(),
    VitestNormaliser(),
    TscNormaliser(),
    MypyNormaliser(),
    RuffNormaliser(),
    EslintNormaliser(),
    JunitNormaliser(),
)
FALLBACK: Normaliser = FallbackNormaliser()
