"""Which comparisons a site shows: those asked for (``--compare BASE..CAND``, repeatable, or
``[site] compare`` in the config), else what the archive holds — labels named ``baseline``
and ``candidate``, else every label that shares tasks and nights with the most common label
that shares any (ties: the one with the oldest run) against it. The index says which rule
chose them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb

from reportgen._sql import load_sql
from reportgen.errors import UsageError

#: Most comparisons picked without ``--compare`` (Braintrust compares up to 8 at once).
MAX_AUTO = 8
HOW_TO = (
    "Choose with reportgen build --compare BASE..CAND (repeatable) or "
    '[site] compare = ["BASE..CAND", ...] in reportgen.toml.'
)
_LABELS = """
SELECT label, count(*) AS runs, min(started_at) AS oldest
FROM runs GROUP BY label ORDER BY runs DESC, oldest ASC NULLS LAST, label
"""


@dataclass(frozen=True)
class Choice:
    """The label pairs to compare (baseline, candidate), the first the site's main one, and
    a sentence for the index saying how they were chosen."""

    pairs: list[tuple[str, str]]
    said: str


def parse_compare(text: str, where: str = "--compare") -> tuple[str, str]:
    """``BASE..CAND`` as (baseline, candidate); anything else is a usage error."""
    base, sep, cand = text.partition("..")
    if not sep or not base or not cand:
        raise UsageError(f"{where} {text!r}: expected BASE..CAND (two labels joined by '..')")
    return base, cand


def _labels(con: duckdb.DuckDBPyConnection) -> list[tuple[str, int]]:
    """Every label with its run count, most runs first, ties by the oldest run."""
    return [(str(r[0]), int(r[1])) for r in con.execute(_LABELS).fetchall()]


def choose(
    con: duckdb.DuckDBPyConnection, asked: Sequence[str] = (), where: str = "--compare"
) -> Choice:
    """The comparisons of a site: ``asked`` (``BASE..CAND`` texts, checked against the
    archive's labels) when given, else the archive's own (see the module)."""
    labels = dict(_labels(con))
    if asked:
        pairs = [parse_compare(text, where) for text in asked]
        for base, cand in pairs:
            for label in (base, cand):
                if label not in labels:
                    known = ", ".join(sorted(labels)[:12]) or "none"
                    raise UsageError(
                        f"{where} {base}..{cand}: no run has label {label!r} (labels: {known})"
                    )
        unique = list(dict.fromkeys(pairs))
        return Choice(
            unique, f"Comparisons from {where}: {', '.join(f'{b}..{c}' for b, c in unique)}."
        )
    if "baseline" in labels and "candidate" in labels:
        return Choice(
            [("baseline", "candidate")],
            "Compared: the labels named baseline and candidate. " + HOW_TO,
        )
    if not labels:
        return Choice([("baseline", "candidate")], "")
    overlap: dict[str, list[tuple[int, str]]] = {}
    for a, b, found in con.execute(load_sql("label_overlap")).fetchall():
        overlap.setdefault(str(a), []).append((int(found), str(b)))
    anchor = next((label for label in labels if label in overlap), None)
    if anchor is None:
        return Choice(
            [("baseline", "candidate")],
            "No comparison: no labels named baseline and candidate, and no two labels share a "
            "task of one suite in one night. " + HOW_TO,
        )
    shared = sorted(overlap[anchor], key=lambda x: (-x[0], x[1]))
    picked = [(anchor, label) for _, label in shared[:MAX_AUTO]]
    most = (
        "the label with the most runs"
        if anchor == next(iter(labels))
        else ("the label with the most runs of those that share any")
    )
    rule = (
        f"No labels named baseline and candidate, so each label that shares tasks and nights "
        f"with {anchor} ({most}, {labels[anchor]}) is compared with it"
    )
    left = len(shared) - len(picked)
    more = f" ({left} more share tasks with it: not shown)" if left > 0 else ""
    return Choice(picked, f"{rule}: {', '.join(f'{b}..{c}' for b, c in picked)}{more}. " + HOW_TO)
