"""Choosing a normaliser (by check, by sniffing, fallback), the public API and speed."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.failures import Failures, normalise_failures, normalisers
from reportgen.failures.registry import NORMALISERS

SAMPLES = Path(__file__).parent / "samples"


@pytest.mark.parametrize(
    ("check", "name"),
    [
        ("go test ./...", "go"),
        ("go vet ./...", "go"),
        ("pytest -q", "pytest"),
        ("python -m pytest -x tests", "pytest"),
        ("python -m unittest discover", "unittest"),
        ("cargo test --workspace", "cargo"),
        ("cargo clippy -- -D warnings", "cargo"),
        ("npx jest", "jest"),
        ("npx vitest run", "vitest"),
        ("tsc --noEmit", "tsc"),
        ("mypy .", "mypy"),
        ("ruff check", "ruff"),
        ("eslint src", "eslint"),
        ("mvn test", "junit"),
        ("./gradlew test", "junit"),
    ],
)
def test_pick_by_check(check: str, name: str) -> None:
    assert normalise_failures("", check).normaliser == name


def test_check_wins_over_sniffing() -> None:
    out = (SAMPLES / "pytest_rA_summary.txt").read_text(encoding="utf-8")
    assert normalise_failures(out, "mypy .").normaliser == "mypy"
    assert normalise_failures(out, "mypy .").ids == ()


def test_compound_check_runs_each_tool() -> None:
    out = "shop/a.py:3:1: F401 `os` imported but unused\nFAILED tests/t.py::test_a - boom\n"
    result = normalise_failures(out, "ruff check . && pytest -q")
    assert result.normaliser == "pytest+ruff"
    assert result.ids == ("pytest:tests/t.py::test_a", "ruff:shop/a.py:F401")


def test_unknown_check_falls_back_to_sniffing() -> None:
    out = (SAMPLES / "go_test_multi_package.txt").read_text(encoding="utf-8")
    assert normalise_failures(out, "make test").normaliser == "go"


def test_mixed_output_sniffs_every_tool() -> None:
    out = "src/a.ts(1,1): error TS2304: Cannot find name 'x'.\nFAIL src/a.test.ts\n  ● t \u203a u\n"
    assert normalise_failures(out, "npm test").normaliser == "jest+tsc"


def test_fallback_sample() -> None:
    out = (SAMPLES / "fallback_make_output.txt").read_text(encoding="utf-8")
    result = normalise_failures(out, "make check")
    assert result.normaliser == "fallback"
    assert set(result.ids) == {
        'fallback:<time> ERROR config/prod.yaml: missing key "port" (line N)',
        'fallback:<time> ERROR unexpected value <addr> for "flags" in <tmp>/rendered.yaml',
        "fallback:Checked N keys: N errors in schema, N errors in values",
        "fallback:FATAL: validation took <dur> and failed",
        "fallback:make: *** [Makefile:N: all] Error N",
        "fallback:make[N]: *** [Makefile:N: check] Error N",
    }


def test_fallback_ignores_zero_counts() -> None:
    out = (SAMPLES / "fallback_passing_counts.txt").read_text(encoding="utf-8")
    assert normalise_failures(out) == Failures("fallback", ())


def test_empty_output() -> None:
    assert normalise_failures("") == Failures("fallback", ())


def test_normalisers_lists_every_registered_name() -> None:
    names = normalisers()
    assert names[-1] == "fallback"
    assert names[:-1] == [n.name for n in NORMALISERS]
    assert len(set(names)) == len(names)
    for name in ("go", "pytest", "unittest", "cargo", "jest", "vitest", "tsc", "mypy"):
        assert name in names
    for name in ("ruff", "eslint", "junit"):
        assert name in names


def test_every_normaliser_has_the_interface() -> None:
    for n in NORMALISERS:
        assert n.name
        assert isinstance(n.matches_check("true"), bool)
        assert isinstance(n.sniff("x"), bool)
        assert n.parse("") == set()


def test_long_ids_are_capped_but_stable() -> None:
    out = "FAILED tests/t.py::test_x[" + "a" * 1000 + "] - boom\n"
    (fid,) = normalise_failures(out, "pytest").ids
    assert len(fid) <= 300
    assert normalise_failures(out, "pytest").ids == (fid,)


@pytest.mark.parametrize(
    ("sample", "check"),
    [
        ("pytest_rA_summary.txt", None),
        ("go_test_panic_goroutines.txt", "go test ./..."),
        ("jest_default_reporter.txt", None),
        ("fallback_make_output.txt", None),
    ],
)
def test_repeated_output_gives_the_same_ids(sample: str, check: str | None) -> None:
    """A megabyte of the same output normalises to the same ids (speed: bench/failures.py)."""
    text = (SAMPLES / sample).read_text(encoding="utf-8")
    big = text * (1_000_000 // len(text) + 1)
    assert normalise_failures(big, check).ids == normalise_failures(text, check).ids
