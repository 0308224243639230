"""Normalise raw check output (tests, compilers, linters) into stable failure ids.

Ids leave out line numbers, addresses, durations, timestamps, temp paths and seeds, so the same
failure keeps its id across attempts and consecutive failing sets can be compared.
"""

from .api import Failures, normalise_failures, normalisers

__all__ = ["Failures", "normalise_failures", "normalisers"]
