"""Public entry point: raw check output -> sorted, de-duplicated stable failure ids."""

from __future__ import annotations

from dataclasses import dataclass

from .base import Normaliser, lead
from .registry import FALLBACK, NORMALISERS
from .scrub import clean_output, finish_id


@dataclass(frozen=True)
class Failures:
    """Which normaliser(s) ran (joined with `+` when several did) and the ids they found."""

    normaliser: str
    ids: tuple[str, ...]


def pick(output: str, check: str | None = None) -> list[Normaliser]:
    """Normalisers for this output: those the check command names, else those that sniff it.

    A compound check (`ruff check . && pytest`) or mixed output can select several.
    """
    if check:
        chosen = [n for n in NORMALISERS if n.matches_check(check)]
        if chosen:
            return chosen
    return [n for n in NORMALISERS if n.sniff(output)] or [FALLBACK]


def normalise_failures(output: str, check: str | None = None) -> Failures:
    """Stable failure ids in `output`; `check` is the command that produced it, if known."""
    text = lead(clean_output(output))
    chosen = pick(text, check)
    ids: set[str] = set()
    for normaliser in chosen:
        ids.update(finish_id(i) for i in normaliser.parse(text))
    return Failures("+".join(n.name for n in chosen), tuple(sorted(ids)))


def normalisers() -> list[str]:
    """Names of all normalisers, fallback last (for docs and `--help`)."""
    return [n.name for n in NORMALISERS] + [FALLBACK.name]
