"""Python samples: pytest, unittest, mypy, ruff (and flake8-shaped output)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.failures import normalise_failures

SAMPLES = Path(__file__).parent / "samples"

CASES: list[tuple[str, str | None, str, set[str]]] = [
    (
        "pytest_rA_summary.txt",
        "pytest -rA",
        "pytest",
        {
            "pytest:tests/test_cart.py::test_add_discount",
            "pytest:tests/test_price.py::test_parse[1,50-1.5]",
        },
    ),
    (
        "pytest_collection_error.txt",
        None,
        "pytest",
        {"pytest:tests/test_invoice.py::TestInvoice::test_totals", "pytest:tests/test_orders.py"},
    ),
    (
        "pytest_verbose_xdist.txt",
        "python -m pytest -n 4 -v",
        "pytest",
        {
            "pytest:tests/test_api.py::TestUsers::test_create[admin user]",
            "pytest:tests/test_api.py::TestUsers::test_delete",
            "pytest:tests/test_db.py::test_rollback",
        },
    ),
    (
        "pytest_v_no_summary.txt",
        None,
        "pytest",
        {
            "pytest:tests/test_slug.py::test_long",
            "pytest:tests/test_slug.py::test_slug[Ünïcode-unicode]",
        },
    ),
    (
        "pytest_usage_error.txt",
        "pytest tests/test_missing.py",
        "pytest",
        {"pytest:ERROR: file or directory not found: tests/test_missing.py"},
    ),
    (
        "pytest_hypothesis_seed.txt",
        "pytest -q",
        "pytest",
        {"pytest:tests/test_props.py::test_roundtrip"},
    ),
    (
        "unittest_py311_subtests.txt",
        "python -m unittest",
        "unittest",
        {
            "unittest:tests.test_payments.ChargeTest.test_amounts (amount=-5)",
            "unittest:tests.test_payments.ChargeTest.test_amounts (amount=0)",
            "unittest:tests.test_payments.RefundTest.test_refund",
        },
    ),
    (
        "unittest_legacy_import_error.txt",
        None,
        "unittest",
        {"unittest:tests.test_cart.CartTest.test_total", "unittest:tests.test_shipping"},
    ),
    (
        "mypy_errors.txt",
        "mypy .",
        "mypy",
        {
            "mypy:shop/broken.py:syntax:invalid syntax",
            'mypy:shop/cart.py:arg-type:Argument 1 to "add" of "Cart" has incompatible type'
            ' "str"; expected "Item"',
            'mypy:shop/cart.py:no-redef:Name "total" already defined on line N',
            "mypy:shop/legacy.py:import-untyped:Cannot find implementation or library stub for"
            ' module named "requests"',
            "mypy:shop/price.py:no-untyped-def:Function is missing a return type annotation",
        },
    ),
    (
        "ruff_concise.txt",
        "ruff check --output-format concise",
        "ruff",
        {
            "ruff:shop/cart.py:E501",
            "ruff:shop/cart.py:F401",
            "ruff:shop/legacy.py:SyntaxError",
            "ruff:shop/price.py:B006",
        },
    ),
    (
        "ruff_full_new_format.txt",
        None,
        "ruff",
        {"ruff:shop/cart.py:F401", "ruff:shop/price.py:UP006"},
    ),
    (
        "ruff_format_check.txt",
        "ruff format --check",
        "ruff",
        {"ruff:shop/cart.py:format", "ruff:tests/test_cart.py:format"},
    ),
]


@pytest.mark.parametrize(("sample", "check", "name", "expected"), CASES, ids=[c[0] for c in CASES])
def test_python_samples(sample: str, check: str | None, name: str, expected: set[str]) -> None:
    result = normalise_failures((SAMPLES / sample).read_text(encoding="utf-8"), check)
    assert result.normaliser == name
    assert set(result.ids) == expected


def test_pytest_param_containing_dash_separator() -> None:
    out = "FAILED tests/t.py::test_x[a - b] - AssertionError: boom\n"
    assert normalise_failures(out, "pytest").ids == ("pytest:tests/t.py::test_x[a - b]",)


def test_pytest_failure_headers_are_a_last_resort() -> None:
    out = "=== FAILURES ===\n______ TestCart.test_total ______\nE  assert 1 == 2\n"
    assert normalise_failures(out, "pytest -rN").ids == ("pytest:TestCart.test_total",)


def test_flake8_uses_the_ruff_shape() -> None:
    out = "app/a.py:1:1: F401 'os' imported but unused\napp/a.py:9:80: E501 line too long\n"
    result = normalise_failures(out, "flake8 app")
    assert result == type(result)("ruff", ("ruff:app/a.py:E501", "ruff:app/a.py:F401"))
