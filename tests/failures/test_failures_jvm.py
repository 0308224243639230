"""JVM samples: JUnit XML, Maven Surefire console, Gradle console, javac errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.failures import normalise_failures

SAMPLES = Path(__file__).parent / "samples"

CASES: list[tuple[str, str | None, set[str]]] = [
    (
        "junit_surefire_xml.txt",
        None,
        {
            "junit:com.example.shop.AuthTest.testLogin",
            "junit:com.example.shop.AuthTest.testParse(String)[2]",
            "junit:tests.test_cart.test_add_discount",
        },
    ),
    (
        "maven_surefire_console.txt",
        "mvn test",
        {
            "junit:com.example.shop.AuthTest.testLogin",
            "junit:com.example.shop.AuthTest.testParse(String)[2]",
        },
    ),
    (
        "maven_compile_error.txt",
        "./mvnw -q verify",
        {
            "javac:/home/dev/shop/src/main/java/com/example/shop/Auth.java:cannot find symbol",
            "javac:/home/dev/shop/src/main/java/com/example/shop/Cart.java:incompatible types:"
            " java.lang.String cannot be converted to int",
        },
    ),
    (
        "gradle_console.txt",
        "./gradlew test",
        {"junit:AuthTest.Tokens.expiresAfterOneHour", "junit:AuthTest.testLogin"},
    ),
]


@pytest.mark.parametrize(("sample", "check", "expected"), CASES, ids=[c[0] for c in CASES])
def test_jvm_samples(sample: str, check: str | None, expected: set[str]) -> None:
    result = normalise_failures((SAMPLES / sample).read_text(encoding="utf-8"), check)
    assert result.normaliser == "junit"
    assert set(result.ids) == expected


def test_surefire_summary_is_used_only_without_detail_lines() -> None:
    out = "[ERROR] Failures:\n[ERROR]   AuthTest.testLogin:41 expected: <401> but was: <200>\n"
    assert normalise_failures(out, "mvn test").ids == ("junit:AuthTest.testLogin",)


def test_surefire2_format() -> None:
    out = "testLogin(com.example.AuthTest)  Time elapsed: 0.01 sec  <<< FAILURE!\n"
    assert normalise_failures(out).ids == ("junit:com.example.AuthTest.testLogin",)
