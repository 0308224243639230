"""Rust samples: cargo test, nextest, rustc/clippy errors, build-script failures."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.failures import normalise_failures

SAMPLES = Path(__file__).parent / "samples"

CASES: list[tuple[str, str | None, set[str]]] = [
    (
        "cargo_test_failures.txt",
        "cargo test",
        {
            "cargo:api::checkout_flow",
            "cargo:shop::cart::tests::applies_discount",
            "cargo:shop::price::tests::parses_comma",
            "cargo:shop::src/price.rs - price::parse",
            "rustc:src/price.rs:E0425:cannot find value `x` in this scope",
        },
    ),
    (
        "rustc_errors.txt",
        None,
        {
            "rustc:src/cart.rs:E0425:cannot find function `parse_price` in this scope",
            "rustc:src/lib.rs:unused import: `std::fmt`",
            "rustc:src/main.rs:E0308:mismatched types",
        },
    ),
    (
        "cargo_nextest.txt",
        "cargo nextest run",
        {"cargo:shop::api::checkout_flow", "cargo:shop::cart::tests::applies_discount"},
    ),
    (
        "cargo_link_error.txt",
        "cargo build",
        {"rustc:error: failed to run custom build command for `openssl-sys v0.9.103`"},
    ),
]


@pytest.mark.parametrize(("sample", "check", "expected"), CASES, ids=[c[0] for c in CASES])
def test_rust_samples(sample: str, check: str | None, expected: set[str]) -> None:
    result = normalise_failures((SAMPLES / sample).read_text(encoding="utf-8"), check)
    assert result.normaliser == "cargo"
    assert set(result.ids) == expected


def test_warnings_are_not_failures() -> None:
    out = "warning: unused variable: `x`\n --> src/a.rs:2:9\n"
    assert normalise_failures(out, "cargo check").ids == ()


def test_binary_hash_is_dropped() -> None:
    a = "     Running target/debug/deps/api-1a2b3c4d5e6f7a8b\ntest login ... FAILED\n"
    b = "     Running target/debug/deps/api-99ff00ee11dd22cc\ntest login ... FAILED\n"
    assert normalise_failures(a, "cargo test").ids == ("cargo:api::login",)
    assert normalise_failures(b, "cargo test").ids == ("cargo:api::login",)
