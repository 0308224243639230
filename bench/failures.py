"""Failure normaliser speed: each sample output repeated to ~10 MB, normalised once.

    python bench/failures.py

Prints MB/s per sample, and the ratio to a naive normaliser that runs every pattern of every
ecosystem over every line (what you get without picking by check or sniffing)."""

from __future__ import annotations

import time
from pathlib import Path

from reportgen.failures import normalise_failures
from reportgen.failures.registry import NORMALISERS

SAMPLES = Path(__file__).resolve().parents[1] / "tests" / "failures" / "samples"
CASES = [
    ("pytest_rA_summary.txt", None),
    ("go_test_panic_goroutines.txt", "go test ./..."),
    ("jest_default_reporter.txt", None),
    ("fallback_make_output.txt", None),
    ("cargo_test_failures.txt", "cargo test"),
]


def naive(text: str) -> set[str]:
    """Every normaliser on every line separately: the slow way."""
    ids: set[str] = set()
    for line in text.splitlines():
        for normaliser in NORMALISERS:
            ids |= normaliser.parse(line)
    return ids


def main() -> None:
    print(f"{'sample':34} {'MB':>5} {'seconds':>8} {'MB/s':>7} {'naive MB/s':>11} {'ratio':>6}")
    for name, check in CASES:
        path = SAMPLES / name
        if not path.exists():
            continue
        text = path.read_text(encoding="utf-8")
        big = text * (10_000_000 // len(text) + 1)
        mb = len(big.encode()) / 1e6
        started = time.perf_counter()
        normalise_failures(big, check)
        seconds = time.perf_counter() - started
        small = text * (1_000_000 // len(text) + 1)
        started = time.perf_counter()
        naive(small)
        naive_rate = len(small.encode()) / 1e6 / (time.perf_counter() - started)
        rate = mb / seconds
        print(
            f"{name:34} {mb:5.1f} {seconds:8.2f} {rate:7.1f} {naive_rate:11.1f} {rate / naive_rate:5.1f}x"
        )


if __name__ == "__main__":
    main()
