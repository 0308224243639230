"""Archive-wide convergence (vectorised, and the pure-SQL variant) gives, per group, exactly
what score_runs gives."""

from __future__ import annotations

import re
from typing import Any

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen._sql import load_sql
from reportgen.convergence import score_runs
from reportgen.convergence.archive import GROUP_KEYS, group_convergence, group_convergence_sql

Row = tuple[str, str | None, str | None, str | None, str | None, int, str | None, str | None]


def archive(rows: list[Row]) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE outputs(run_id VARCHAR, suite VARCHAR, label VARCHAR, task_id VARCHAR, "
        "batch VARCHAR, trial INTEGER, output VARCHAR, source_file VARCHAR)"
    )
    if rows:
        con.executemany("INSERT INTO outputs VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    return con


def expected(rows: list[Row]) -> list[dict[str, Any]]:
    """score_runs per group, computed the slow way in Python."""
    groups: dict[tuple[Any, ...], list[Row]] = {}
    for row in rows:
        if row[6] is not None:
            groups.setdefault(row[1:5], []).append(row)
    out = []
    for key in sorted(groups, key=lambda k: tuple((v is None, v or "") for v in k)):
        members = sorted(groups[key], key=lambda r: (r[5], r[0]))
        if len(members) < 2:
            continue
        runs = [str(r[6]) for r in members]
        out.append({**dict(zip(GROUP_KEYS, key, strict=True)), **score_runs(runs)})
    return out


def rows_for(groups: list[list[str | None]], batch_none: bool = False) -> list[Row]:
    rows: list[Row] = []
    for g, outputs in enumerate(groups):
        for t, text in enumerate(outputs):
            batch = None if batch_none and g % 2 else "b1"
            rows.append(
                (f"run-{g}-{t:03d}", "suite", "label", f"task-{g:03d}", batch, t, text, None)
            )
    return rows


def test_conformance_groups() -> None:
    groups: list[list[str | None]] = [
        [
            "The capital of France is Paris.",
            "the capital of france is Paris.",
            "The capital of France is Lyon.",
        ],
        ["the cat sat on the mat", "the cat sat on a mat", "a dog ran"],
        ["A", "A", "B"],
        ["alpha beta", "alpha"],
        ["x y", "x z"],
        ["a b c d", "a b c d", "a b x d", "q"],
        ["", ""],
        [" ", "\t"],
        ["ΟΔΟΣ ΣΑΣ", "οδος σας"],
        ["only one"],  # a single output is not a group
        ["kept", None, "kept"],  # NULL outputs are ignored
    ]
    rows = rows_for(groups, batch_none=True)
    got = group_convergence(archive(rows))
    assert got == expected(rows)
    assert len(got) == 10
    assert got[2]["convergence_score"] == 0.266
    assert got[3]["divergence_point"]["diverges_at_token"] is None


def test_python_rounding_not_half_up() -> None:
    # 32 runs: 8 alike + 3 alike + 21 distinct -> 28 + 3 = 31 of 496 pairs = 0.0625 exactly,
    # which Python rounds half-to-even to 0.062 (a naive half-up round gives 0.063).
    outputs: list[str | None] = [*(["a"] * 8), *(["b"] * 3), *(f"w{k}" for k in range(21))]
    rows = rows_for([outputs])
    got = group_convergence(archive(rows))
    assert got[0]["exact_match_rate"] == 0.062
    assert got == expected(rows)


def test_group_larger_than_mask_width() -> None:
    outputs: list[str | None] = [f"shared words {k % 7} tail{k % 3}" for k in range(70)]
    small: list[str | None] = ["x y", "x y z"]
    rows = rows_for([outputs, small])
    assert group_convergence(archive(rows)) == expected(rows)


def test_empty_archive() -> None:
    assert group_convergence(archive([])) == []


_WORDS = st.sampled_from(
    ["the", "The", "cat", "cat.", "CAT", "sat", "ΟΔΟΣ", "οδος", "Σ", "İ", "ß", "é", "a\u0301Σ"]
)
_SEPS = st.sampled_from([" ", " ", " ", "  ", "\t", "\n", "\u00a0", "\u2003", "\x1c"])
_OUTPUT = st.one_of(
    st.lists(st.tuples(_WORDS, _SEPS), max_size=8).map(
        lambda ps: "".join(a + b for a, b in ps).strip(" ")
    ),
    st.lists(_WORDS, max_size=6).map(" ".join),
    st.sampled_from(["", " ", "\t\n", "x  y", " lead", "trail "]),
    st.text(max_size=10),
    st.none(),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(_OUTPUT, min_size=1, max_size=6), min_size=1, max_size=6))
def test_matches_score_runs(groups: list[list[str | None]]) -> None:
    # repeat some outputs across a group so exact matches and shared prefixes happen
    groups = [g + g[: len(g) // 2] for g in groups]
    rows = rows_for(groups, batch_none=True)
    con = archive(rows)
    assert group_convergence(con) == expected(rows)
    assert group_convergence_sql(con) == expected(rows)


def test_ties_on_trial_and_run_id_are_ordered_by_output() -> None:
    rows: list[Row] = [
        ("same", "s", "l", "t", "b", 0, "zeta one", None),
        ("same", "s", "l", "t", "b", 0, "alpha two", None),
        ("other", "s", "l", "t", "b", 0, "beta", None),
    ]
    runs = ["beta", "alpha two", "zeta one"]  # trial 0 for all: run_id, then output
    got = group_convergence(archive(rows))
    assert [{k: v for k, v in g.items() if k not in GROUP_KEYS} for g in got] == [score_runs(runs)]
    assert group_convergence_sql(archive(rows)) == got


def _classes_from_python() -> tuple[str, str]:
    """The cased / case-ignorable classes, as CPython's str.lower() treats them around Σ."""
    cased: list[int] = []
    ignorable: list[int] = []
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        ch = chr(cp)
        if (ch + "Σ").lower().endswith("ς"):
            cased.append(cp)
        elif ("A" + ch + "Σ").lower().endswith("ς"):
            ignorable.append(cp)

    def ranges(cps: list[int]) -> str:
        parts: list[str] = []
        start = prev = cps[0]
        for cp in [*cps[1:], -1]:
            if cp == prev + 1:
                prev = cp
                continue
            parts.append(
                f"\\x{{{start:X}}}" if start == prev else f"\\x{{{start:X}}}-\\x{{{prev:X}}}"
            )
            start = prev = cp
        return "".join(parts)

    return ranges(cased), ranges(ignorable)


@pytest.mark.slow
def test_sigma_classes_match_running_python() -> None:
    sql = load_sql("convergence_groups")
    found = re.findall(r"regexp_full_match\(ch, '\[([^']*)\]'\)", sql)
    assert found == list(_classes_from_python())


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(_OUTPUT, min_size=1, max_size=5), min_size=1, max_size=5), st.randoms())
def test_row_order_does_not_matter(groups: list[list[str | None]], rnd: Any) -> None:
    rows = rows_for(groups, batch_none=True)
    shuffled = list(rows)
    rnd.shuffle(shuffled)
    assert group_convergence(archive(shuffled)) == expected(rows)
