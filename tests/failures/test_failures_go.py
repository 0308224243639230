"""Go samples: go test (plain, verbose, -json, panics, timeouts), go build and go vet."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.failures import normalise_failures

SAMPLES = Path(__file__).parent / "samples"

CASES: list[tuple[str, str | None, set[str]]] = [
    (
        "go_test_multi_package.txt",
        "go test ./...",
        {
            "go:example.com/shop/internal/auth::TestLogin",
            "go:example.com/shop/internal/auth::TestLogin/bad_password",
            "go:example.com/shop/internal/auth::TestLogin/expired_token",
            "go:example.com/shop/internal/auth::TestRefresh",
            "go:example.com/shop/internal/price::TestParsePrice",
        },
    ),
    (
        "go_test_panic_goroutines.txt",
        None,
        {"go:example.com/shop/internal/session::TestSessionLookup"},
    ),
    (
        "go_build_errors.txt",
        "go build ./...",
        {
            'go:internal/auth/login.go:"strings" imported and not used',
            "go:internal/auth/session.go:declared and not used: expiry",
            "go:internal/auth/session.go:not enough arguments in call to parseSessionToken",
        },
    ),
    (
        "go_vet.txt",
        "go vet ./...",
        {
            "go:export_test.go:could not import example.com/shop/internal/missing"
            ' (invalid package name: "")',
            "go:format.go:fmt.Sprintf format %d has arg name of wrong type string",
            "go:format.go:unreachable code",
        },
    ),
    (
        "go_test_json.txt",
        "go test -json ./...",
        {"go:example.com/shop/internal/auth::TestLogin", "go:example.com/shop/internal/boot"},
    ),
    (
        "go_test_timeout.txt",
        "go test -timeout 30s ./...",
        {"go:example.com/shop/internal/importer::TestSlowImport"},
    ),
    ("go_test_ansi_colour.txt", None, {"go:example.com/shop/internal/checkout::TestCheckout"}),
]


@pytest.mark.parametrize(("sample", "check", "expected"), CASES, ids=[c[0] for c in CASES])
def test_go_samples(sample: str, check: str | None, expected: set[str]) -> None:
    result = normalise_failures((SAMPLES / sample).read_text(encoding="utf-8"), check)
    assert result.normaliser == "go"
    assert set(result.ids) == expected


def test_shifted_compiler_error_keeps_its_id() -> None:
    before = (
        "# example.com/x\nsession.go:22:14: not enough arguments in call to parseSessionToken\n"
    )
    after = "# example.com/x\nsession.go:26:14: not enough arguments in call to parseSessionToken\n"
    assert normalise_failures(before).ids == normalise_failures(after).ids


def test_too_many_errors_is_not_a_failure() -> None:
    out = "a.go:1:2: undefined: x\na.go:30:2: too many errors\n"
    assert normalise_failures(out, "go build").ids == ("go:a.go:undefined: x",)


def test_passing_run_has_no_ids() -> None:
    out = "ok  \texample.com/a\t0.01s\nok  \texample.com/b\t(cached)\n"
    assert normalise_failures(out, "go test ./...").ids == ()


def test_gotestsum_lines() -> None:
    out = "=== FAIL: internal/auth TestLogin (0.00s)\n"
    assert normalise_failures(out, "gotestsum").ids == ("go:internal/auth::TestLogin",)
