"""JavaScript/TypeScript samples: jest, vitest, tsc, eslint."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.failures import normalise_failures

SAMPLES = Path(__file__).parent / "samples"
SEP = " \u203a "  # jest's suite separator

CASES: list[tuple[str, str | None, str, set[str]]] = [
    (
        "jest_default_reporter.txt",
        "npx jest",
        "jest",
        {
            f"jest:src/auth/login.test.ts::login{SEP}rejects a bad password",
            f"jest:src/auth/login.test.ts::login{SEP}tokens{SEP}expires after one hour",
            "jest:src/cart/cart.test.tsx",
        },
    ),
    (
        "jest_verbose_tree.txt",
        "npx jest --verbose",
        "jest",
        {
            f"jest:src/cart/cart.test.js::Cart{SEP}adding{SEP}merges duplicate items",
            f"jest:src/cart/cart.test.js::Cart{SEP}applies a discount",
            "jest:src/cart/cart.test.js::top-level smoke test",
        },
    ),
    (
        "jest_ansi_colour.txt",
        None,
        "jest",
        {f"jest:src/api.test.js::api{SEP}GET /users returns 200"},
    ),
    (
        "vitest_default_reporter.txt",
        "npx vitest run",
        "vitest",
        {
            "vitest:src/auth/login.test.ts::login > rejects a bad password",
            "vitest:src/auth/login.test.ts::login > tokens > expires after one hour",
            "vitest:src/cart/cart.test.ts",
        },
    ),
    (
        "vitest_workspace_projects.txt",
        None,
        "vitest",
        {"vitest:|browser| src/ui/button.test.tsx::Button > renders label"},
    ),
    (
        "tsc_plain_and_pretty.txt",
        "tsc --noEmit",
        "tsc",
        {
            "tsc:TS5023:Unknown compiler option 'strictest'.",
            "tsc:src/api/client.ts:TS2305:Module '\"./types\"' has no exported member 'User'.",
            "tsc:src/api/client.ts:TS2322:Type '{ id: string; }' is not assignable to type 'User'.",
            "tsc:src/cart.ts:TS2322:Type 'string' is not assignable to type 'number'.",
            "tsc:src/cart.ts:TS2554:Expected 2 arguments, but got 1.",
        },
    ),
    (
        "tsc_pretty_watch.txt",
        None,
        "tsc",
        {"tsc:src/cart.ts:TS2322:Type 'string' is not assignable to type 'number'."},
    ),
    (
        "eslint_stylish.txt",
        "npx eslint .",
        "eslint",
        {
            "eslint:/home/dev/shop/src/broken.js:Parsing error: Unexpected token }",
            "eslint:/home/dev/shop/src/cart.js:indent",
            "eslint:/home/dev/shop/src/cart.js:no-unused-vars",
            "eslint:/home/dev/shop/src/components/Button.jsx:react-hooks/rules-of-hooks",
        },
    ),
    (
        "eslint_unix_compact.txt",
        None,
        "eslint",
        {
            "eslint:src/api.ts:@typescript-eslint/explicit-function-return-type",
            "eslint:src/cart.js:no-unused-vars",
        },
    ),
]


@pytest.mark.parametrize(("sample", "check", "name", "expected"), CASES, ids=[c[0] for c in CASES])
def test_js_samples(sample: str, check: str | None, name: str, expected: set[str]) -> None:
    result = normalise_failures((SAMPLES / sample).read_text(encoding="utf-8"), check)
    assert result.normaliser == name
    assert set(result.ids) == expected


def test_tsc_plain_and_pretty_forms_agree() -> None:
    plain = "src/a.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.\n"
    pretty = "src/a.ts:40:9 - error TS2322: Type 'string' is not assignable to type 'number'.\n"
    assert normalise_failures(plain).ids == normalise_failures(pretty).ids


def test_jest_durations_do_not_matter() -> None:
    a = "FAIL src/a.test.js\n  ✕ adds (3 ms)\n"
    b = "FAIL src/a.test.js (12.5 s)\n  ✕ adds (1204 ms)\n"
    assert normalise_failures(a, "jest").ids == normalise_failures(b, "jest").ids
    assert normalise_failures(a, "jest").ids == ("jest:src/a.test.js::adds",)
