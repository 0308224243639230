"""Property tests: volatile tokens never change ids; ids are sorted, unique, deterministic."""

from __future__ import annotations

from datetime import datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.failures import normalise_failures

line = st.integers(min_value=1, max_value=99_999)
col = st.integers(min_value=1, max_value=999)
secs = st.floats(min_value=0, max_value=9_999, allow_nan=False).map(lambda f: f"{f:.3f}")
ms = st.integers(min_value=0, max_value=99_999)
addr = st.integers(min_value=0, max_value=2**48).map(lambda n: f"0x{n:x}")
token = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_", min_size=3, max_size=12)
tmp = st.one_of(
    token.map(lambda t: f"/tmp/{t}"),
    token.map(lambda t: f"/var/folders/x1/{t}/T/tmp{t}"),
    st.integers(0, 999).map(lambda n: f"/tmp/pytest-of-dev/pytest-{n}"),
    token.map(lambda t: f"C:\\Users\\dev\\AppData\\Local\\Temp\\{t}"),
)
stamp = st.datetimes(min_value=datetime(1970, 1, 1), max_value=datetime(2999, 12, 31)).map(
    lambda d: d.strftime("%Y-%m-%dT%H:%M:%S.%f") + "Z"
)
seed = st.integers(min_value=0, max_value=2**32)

GO = """--- FAIL: TestLogin ({s}s)
    auth_test.go:{l}: expected 401 at {ts}
panic: boom [recovered]
goroutine {l} [running]:
main.f({a}, {a})
\t{tmp}/x.go:{l} +{a}
FAIL\texample.com/shop/auth\t{s}s
# example.com/shop/cart
cart/cart.go:{l}:{c}: undefined: {tmp}/gen.go:{l}:{c} at {a}
"""
PYTEST = """Using --randomly-seed={seed}
tests/test_a.py:{l}: AssertionError
FAILED tests/test_a.py::test_x[1] - AssertionError: {a} != {tmp}/out.txt at {ts}
ERROR tests/test_b.py - ImportError while importing {tmp}/tests/test_b.py
==== 1 failed, 1 error in {s}s ====
"""
RUST = """     Running unittests src/lib.rs (target/debug/deps/shop-{h})
test cart::tests::adds ... FAILED
thread 'cart::tests::adds' panicked at src/cart.rs:{l}:{c}:
error[E0308]: mismatched types
 --> src/main.rs:{l}:{c}
test result: FAILED. 0 passed; 1 failed; finished in {s}s
"""
TSC = "src/a.ts({l},{c}): error TS2322: Type 'x' is not assignable to type 'y'.\n"
TSC_PRETTY = (
    "src/a.ts:{l}:{c} - error TS2345: Argument of type 'z' at {tmp}.\n"
    "[{hms}] Found 1 error. Watching for file changes.\n"
)
MYPY = 'app/a.py:{l}:{c}: error: Name "x" already defined on line {l}  [no-redef]\n'
JEST = "FAIL src/a.test.ts ({s} s)\n  ● s \u203a t\n      at Object.<anonymous> (src/a.test.ts:{l}:{c})\n  ✕ t ({m} ms)\n"
VITEST = " \u276f src/a.test.ts (2 tests | 1 failed) {m}ms\n   \u00d7 s > t {m}ms\n"
ESLINT = "/repo/src/a.js\n  {l}:{c}  error  'x' is unused  no-unused-vars\n"
JUNIT = '<testsuite time="{s}" timestamp="{ts}"><testcase classname="a.B" name="t" time="{s}"><failure>at {a} {tmp}</failure></testcase></testsuite>\n'
FALLBACK = "{ts} ERROR widget {a} failed after {s}s at {tmp}/w.txt:{l}:{c} (seed {seed})\n"

TEMPLATES = [GO, PYTEST, RUST, TSC, TSC_PRETTY, MYPY, JEST, VITEST, ESLINT, JUNIT, FALLBACK]


def fill(template: str, **kw: object) -> str:
    return template.format(**kw)


volatile = st.fixed_dictionaries(
    {
        "l": line,
        "c": col,
        "s": secs,
        "m": ms,
        "a": addr,
        "tmp": tmp,
        "ts": stamp,
        "seed": seed,
        "h": st.integers(0, 2**64 - 1).map(lambda n: f"{n:016x}"),
        "hms": st.times().map(lambda t: t.strftime("%H:%M:%S")),
    }
)
BASE = {
    "l": 10,
    "c": 5,
    "s": "0.010",
    "m": 3,
    "a": "0xc000010000",
    "tmp": "/tmp/abc",
    "ts": "2026-01-01T00:00:00.000000Z",
    "seed": 1,
    "h": "0123456789abcdef",
    "hms": "01:02:03",
}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(TEMPLATES), volatile)
def test_volatile_tokens_never_change_ids(template: str, values: dict[str, object]) -> None:
    base = normalise_failures(fill(template, **BASE))
    moved = normalise_failures(fill(template, **values))
    assert base.ids, "the template should produce ids"
    assert moved == base


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(TEMPLATES), volatile, st.integers(0, 50))
def test_shifting_lines_keeps_ids(template: str, values: dict[str, object], pad: int) -> None:
    """Unrelated noise lines before the output (a shifted log) do not change the ids."""
    text = fill(template, **values)
    assert normalise_failures("\n" * pad + text).ids == normalise_failures(text).ids


ANY_CHECK = st.sampled_from(
    [
        None,
        "pytest",
        "go test ./...",
        "cargo test",
        "npx jest",
        "npx vitest",
        "tsc",
        "mypy .",
        "ruff check",
        "eslint .",
        "mvn test",
        "python -m unittest",
        "make",
    ]
)
NOISY_TEXT = st.lists(
    st.one_of(
        st.text(max_size=40),
        st.sampled_from([t.format(**BASE) for t in TEMPLATES]),
        st.sampled_from(["FAILED ", "--- FAIL: ", "error: ", "  ● ", "\x1b[31m", "\r", "::"]),
    ),
    max_size=12,
).map("".join)


@settings(max_examples=200, deadline=None)
@given(NOISY_TEXT, ANY_CHECK)
def test_ids_sorted_unique_deterministic(text: str, check: str | None) -> None:
    first = normalise_failures(text, check)
    assert list(first.ids) == sorted(set(first.ids))
    assert normalise_failures(text, check) == first
    for fid in first.ids:
        assert "\n" not in fid
        assert len(fid) <= 300
