# ruff: noqa: RUF001 - jest and vitest print these characters; the outputs quote them as is
"""Pairs of real-looking check outputs, one set per ecosystem.

Each case is one output template rendered twice: with VOLATILE_A and VOLATILE_B it gives two
outputs that differ only in line and column numbers, addresses, durations, temp paths, seeds,
build hashes and timestamps (the same failures after an unrelated edit and a rerun), which must
give identical ids. Its ``different`` template names a genuinely different failure (another
test, another message, another rule) and must not."""

from __future__ import annotations

from dataclasses import dataclass
from string import Template

import pytest

from reportgen.failures import normalise_failures

VOLATILE_A: dict[str, str] = {
    "L1": "41",
    "L2": "88",
    "L3": "12",
    "C1": "24",
    "C2": "5",
    "DUR1": "0.412",
    "DUR2": "1.031",
    "MS1": "14",
    "MS2": "5003",
    "ADDR1": "0xc000112a80",
    "ADDR2": "0x7f3a2c1b9d50",
    "TMP": "/tmp/agent-7f3k2q",
    "PYTMP": "/tmp/pytest-of-dev/pytest-41",
    "TS": "2026-11-28T02:00:01.532Z",
    "HMS": "02:00:01",
    "SEED": "2841736251",
    "HASH": "9f3b2c7a1d0e4f65",
    "GOROUTINE": "21",
}
VOLATILE_B: dict[str, str] = {
    "L1": "47",
    "L2": "93",
    "L3": "15",
    "C1": "31",
    "C2": "9",
    "DUR1": "3.870",
    "DUR2": "0.094",
    "MS1": "212",
    "MS2": "4871",
    "ADDR1": "0xc0001a6b60",
    "ADDR2": "0x7f11d02e4a10",
    "TMP": "/tmp/agent-q81zz0",
    "PYTMP": "/tmp/pytest-of-dev/pytest-58",
    "TS": "2026-11-29T14:22:47.019Z",
    "HMS": "14:22:47",
    "SEED": "90125",
    "HASH": "0c4e8d2b9a7f1e33",
    "GOROUTINE": "37",
}
# Values that are never part of a failure's identity (line numbers aside, which can collide
# with legitimate digits in a message).
NEVER_IN_IDS = ["ADDR1", "ADDR2", "TMP", "PYTMP", "TS", "HMS", "SEED", "HASH"]


@dataclass(frozen=True)
class Case:
    """One ecosystem: the check that ran, the normaliser expected, the output template and a
    variant naming a genuinely different failure."""

    name: str
    check: str | None
    normaliser: str
    template: str
    different: str

    def render(self, values: dict[str, str], different: bool = False) -> str:
        return Template(self.different if different else self.template).substitute(values)


GO_TEST = """=== RUN   TestLogin
=== RUN   TestLogin/bad_password
    login_test.go:$L1: POST /login = 200, want 401 (session $ADDR1 at $TS)
--- FAIL: TestLogin (${DUR1}s)
    --- FAIL: TestLogin/bad_password (${DUR2}s)
=== RUN   TestRefresh
--- PASS: TestRefresh (${DUR2}s)
FAIL
FAIL	example.com/shop/internal/auth	${DUR1}s
=== RUN   TestSessionLookup
--- FAIL: TestSessionLookup (${DUR2}s)
panic: runtime error: invalid memory address or nil pointer dereference [recovered]
	panic: runtime error: invalid memory address or nil pointer dereference
[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=$ADDR2]

goroutine $GOROUTINE [running]:
testing.tRunner.func1.2({0x6a1f20, 0x8c9d40})
	/usr/local/go/src/testing/testing.go:1631 +0x24a
example.com/shop/internal/session.(*Store).Lookup($ADDR1, {0x7b12e4, 0x5})
	$TMP/shop/internal/session/store.go:$L2 +0x4e
example.com/shop/internal/session.TestSessionLookup($ADDR1)
	$TMP/shop/internal/session/store_test.go:$L3 +0x65
exit status 2
FAIL	example.com/shop/internal/session	${DUR2}s
ok  	example.com/shop/internal/cart	${DUR1}s
FAIL
"""

GO_BUILD = """# example.com/shop/internal/auth
internal/auth/session.go:$L1:$C1: not enough arguments in call to parseSessionToken
	have (string)
	want (string, time.Time)
internal/auth/session.go:$L2:2: declared and not used: expiry
internal/auth/login.go:$L3:2: "strings" imported and not used
"""

GO_VET = """# example.com/shop/internal/report
# [example.com/shop/internal/report]
./format.go:$L1:$C2: fmt.Sprintf format %d has arg name of wrong type string
./format.go:$L2:9: unreachable code
vet: ./export_test.go:$L3:2: could not import example.com/shop/internal/missing (invalid package name: "")
"""

PYTEST = """============================= test session starts ==============================
platform linux -- Python 3.12.3, pytest-8.3.2, pluggy-1.5.0
rootdir: $TMP/shop
configfile: pyproject.toml
plugins: hypothesis-6.112.0, randomly-3.15.0
Using --randomly-seed=$SEED
collected 9 items

tests/test_cart.py ..F.                                                  [ 44%]
tests/test_export.py .F...                                               [100%]

=================================== FAILURES ===================================
______________________________ test_add_discount _______________________________

    def test_add_discount():
        cart = Cart()
>       assert cart.total(discount=0.1) == 9.0
E       AssertionError: assert 10.0 == 9.0
E        +  where 10.0 = <bound method Cart.total of <shop.cart.Cart object at $ADDR2>>(discount=0.1)

tests/test_cart.py:$L1: AssertionError
___________________________ test_export_csv[utf-8] _____________________________

tmp_path = PosixPath('$PYTMP/test_export_csv_utf_8_0')

>       assert (tmp_path / "out.csv").read_text() == EXPECTED
E       FileNotFoundError: [Errno 2] No such file or directory: '$PYTMP/test_export_csv_utf_8_0/out.csv'

tests/test_export.py:$L2: FileNotFoundError
==================================== PASSES ====================================
=========================== short test summary info ============================
PASSED tests/test_cart.py::test_empty
PASSED tests/test_export.py::test_export_json
FAILED tests/test_cart.py::test_add_discount - AssertionError: assert 10.0 == 9.0
FAILED tests/test_export.py::test_export_csv[utf-8] - FileNotFoundError: [Errno 2] No such file or directory: '$PYTMP/test_export_csv_utf_8_0/out.csv'
============= 2 failed, 7 passed in ${DUR1}s ==============
"""

UNITTEST = """..F.E
======================================================================
ERROR: test_refund (tests.test_payments.RefundTest.test_refund)
----------------------------------------------------------------------
Traceback (most recent call last):
  File "$TMP/shop/tests/test_payments.py", line $L1, in test_refund
    gateway.refund(order)
  File "$TMP/shop/shop/gateway.py", line $L2, in refund
    raise TimeoutError(f"gateway timed out after {elapsed:.2f}s")
TimeoutError: gateway timed out after ${DUR1}s

======================================================================
FAIL: test_amounts (tests.test_payments.ChargeTest.test_amounts) (amount=0)
----------------------------------------------------------------------
Traceback (most recent call last):
  File "$TMP/shop/tests/test_payments.py", line $L3, in test_amounts
    self.assertEqual(charge(amount), amount)
AssertionError: 1 != 0

----------------------------------------------------------------------
Ran 5 tests in ${DUR2}s

FAILED (failures=1, errors=1)
"""

CARGO_TEST = """   Compiling shop v0.3.1 ($TMP/shop)
    Finished `test` profile [unoptimized + debuginfo] target(s) in ${DUR2}s
     Running unittests src/lib.rs (target/debug/deps/shop-$HASH)

running 3 tests
test cart::tests::adds_items ... ok
test cart::tests::applies_discount ... FAILED
test price::tests::parses_dot ... ok

failures:

---- cart::tests::applies_discount stdout ----
thread 'cart::tests::applies_discount' panicked at src/cart.rs:$L1:$C2:
assertion `left == right` failed
  left: 1000
 right: 900
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace


failures:
    cart::tests::applies_discount

test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in ${DUR1}s

error: test failed, to rerun pass `--lib`
"""

RUSTC = """   Compiling shop v0.3.1 ($TMP/shop)
error[E0308]: mismatched types
 --> src/main.rs:$L1:$C2
  |
$L3 | fn price() -> u32 {
  |               --- expected `u32` because of return type
$L1 |     "12"
  |     ^^^^ expected `u32`, found `&str`

error[E0425]: cannot find function `parse_price` in this scope
  --> src/cart.rs:$L2:17
   |
$L2 |         let p = parse_price(s);
   |                 ^^^^^^^^^^^ not found in this scope

Some errors have detailed explanations: E0308, E0425.
For more information about an error, try `rustc --explain E0308`.
error: could not compile `shop` (bin "shop") due to 2 previous errors
"""

JEST = """PASS src/utils/format.test.ts ($DUR2 s)
FAIL src/auth/login.test.ts ($DUR1 s)
  ● Console

    console.log
      attempt 1 at $TS

      at Object.<anonymous> (src/auth/login.test.ts:$L3:13)

  ● login › rejects a bad password

    expect(received).toBe(expected) // Object.is equality

    Expected: 401
    Received: 200

      $L1 |     expect(res.status).toBe(401);

      at Object.<anonymous> (src/auth/login.test.ts:$L1:$C1)

  ● login › tokens › expires after one hour

    thrown: "Exceeded timeout of 5000 ms for a test."

      at src/auth/login.test.ts:$L2:5

Test Suites: 1 failed, 1 passed, 2 total
Tests:       2 failed, 14 passed, 16 total
Snapshots:   0 total
Time:        $DUR1 s, estimated 8 s
Ran all test suites.
"""

VITEST = """
 RUN  v2.1.4 $TMP/shop

 ✓ src/utils/format.test.ts (4 tests) ${MS1}ms
 ❯ src/auth/login.test.ts (3 tests | 2 failed) ${MS2}ms
   × login > rejects a bad password ${MS1}ms
     → expected 200 to be 401 // Object.is equality
   ✓ login > accepts a good password 2ms
   × login > tokens > expires after one hour ${MS2}ms
     → Test timed out in 5000ms.

⎯⎯⎯⎯⎯⎯⎯ Failed Tests 2 ⎯⎯⎯⎯⎯⎯⎯

 FAIL  src/auth/login.test.ts > login > rejects a bad password
AssertionError: expected 200 to be 401 // Object.is equality
 ❯ src/auth/login.test.ts:$L1:$C1

 FAIL  src/auth/login.test.ts > login > tokens > expires after one hour
Error: Test timed out in 5000ms.

 Test Files  1 failed | 1 passed (2)
      Tests  2 failed | 5 passed (7)
   Start at  $HMS
   Duration  ${DUR1}s (transform 112ms, setup 0ms, collect 301ms, tests ${MS2}ms)
"""

TSC = """src/cart.ts($L1,$C2): error TS2322: Type 'string' is not assignable to type 'number'.
src/cart.ts($L2,17): error TS2554: Expected 2 arguments, but got 1.
src/api/client.ts($L3,10): error TS2305: Module '"./types"' has no exported member 'User'.

[$HMS] Found 3 errors in 2 files. Watching for file changes.
"""

MYPY = """shop/cart.py:$L1: error: Argument 1 to "add" of "Cart" has incompatible type "str"; expected "Item"  [arg-type]
shop/cart.py:$L2: note: "Cart" defined here
shop/cart.py:$L2: error: Name "total" already defined on line $L3  [no-redef]
shop/price.py:$L3:$C2: error: Function is missing a return type annotation  [no-untyped-def]
Found 3 errors in 2 files (checked 23 source files)
"""

RUFF = """shop/cart.py:1:8: F401 [*] `os` imported but unused
shop/cart.py:$L1:$C1: F841 Local variable `total` is assigned to but never used
shop/price.py:$L2:5: B006 Do not use mutable data structures for argument defaults
Found 3 errors.
[*] 1 fixable with the `--fix` option.
"""

ESLINT = """
$TMP/shop/src/cart.js
   $L3:7   error    'unused' is assigned a value but never used  no-unused-vars
  $L1:5   warning  Unexpected console statement                  no-console
  $L2:1   error    Expected indentation of 2 spaces but found 4  indent

$TMP/shop/src/broken.js
  $L1:$C1  error  Parsing error: Unexpected token }

✖ 4 problems (3 errors, 1 warning)
  1 error and 0 warnings potentially fixable with the `--fix` option.
"""

JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="com.example.shop.AuthTest" time="$DUR1" tests="4" errors="1" skipped="1" failures="1" timestamp="$TS" hostname="runner-$SEED">
  <properties>
    <property name="java.io.tmpdir" value="$TMP"/>
  </properties>
  <testcase name="testLogin" classname="com.example.shop.AuthTest" time="$DUR2">
    <failure message="expected: &lt;401&gt; but was: &lt;200&gt;" type="org.opentest4j.AssertionFailedError"><![CDATA[org.opentest4j.AssertionFailedError: expected: <401> but was: <200>
	at com.example.shop.AuthTest.testLogin(AuthTest.java:$L1)
]]></failure>
    <system-out><![CDATA[$HMS.532 [main] INFO  com.example.shop.Auth - login attempt]]></system-out>
  </testcase>
  <testcase name="testRefresh" classname="com.example.shop.AuthTest" time="$DUR2"/>
  <testcase name="testParse(String)[2]" classname="com.example.shop.AuthTest" time="$DUR1">
    <error message="Cannot invoke &quot;String.length()&quot; because &quot;s&quot; is null" type="java.lang.NullPointerException">java.lang.NullPointerException
	at com.example.shop.Auth.parse(Auth.java:$L2)</error>
  </testcase>
  <testcase name="testLegacy" classname="com.example.shop.AuthTest" time="0">
    <skipped message="disabled"/>
  </testcase>
</testsuite>
"""


PYTEST_COLLECT = """============================= test session starts ==============================
platform linux -- Python 3.11.7, pytest-8.2.0, pluggy-1.5.0
rootdir: $TMP/repo
collected 4 items / 1 error

==================================== ERRORS ====================================
____________________ ERROR collecting tests/test_orders.py _____________________
ImportError while importing test module '$TMP/repo/tests/test_orders.py'.
Hint: make sure your test modules/packages have valid Python names.
Traceback:
/usr/lib/python3.11/importlib/__init__.py:126: in import_module
    return _bootstrap._gcd_import(name[level:], package, level)
tests/test_orders.py:$L3: in <module>
    from shop.orders import place_order
E   ModuleNotFoundError: No module named 'shop.orders'
=========================== short test summary info ============================
ERROR tests/test_orders.py
!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!
=============================== 1 error in ${DUR2}s ===============================
"""

MAVEN = """[INFO] -------------------------------------------------------
[INFO]  T E S T S
[INFO] -------------------------------------------------------
[INFO] Running com.example.shop.AuthTest
[ERROR] Tests run: 4, Failures: 1, Errors: 0, Skipped: 1, Time elapsed: $DUR1 s <<< FAILURE! -- in com.example.shop.AuthTest
[ERROR] com.example.shop.AuthTest.testLogin -- Time elapsed: $DUR2 s <<< FAILURE!
org.opentest4j.AssertionFailedError: expected: <401> but was: <200>
	at com.example.shop.AuthTest.testLogin(AuthTest.java:$L1)

[INFO]
[INFO] Results:
[INFO]
[ERROR] Failures:
[ERROR]   AuthTest.testLogin:$L1 expected: <401> but was: <200>
[INFO]
[ERROR] Tests run: 7, Failures: 1, Errors: 0, Skipped: 1
[INFO]
[INFO] BUILD FAILURE
[INFO] Total time:  $DUR1 s
[INFO] Finished at: $TS
"""

GRADLE = """> Task :compileJava UP-TO-DATE
> Task :test

AuthTest > testLogin() FAILED
    org.opentest4j.AssertionFailedError at AuthTest.java:$L1

AuthTest > Tokens > expiresAfterOneHour() FAILED
    java.util.concurrent.TimeoutException at AuthTest.java:$L2

7 tests completed, 2 failed

> Task :test FAILED

BUILD FAILED in ${DUR1}s
"""


def _swap(text: str, old: str, new: str) -> str:
    """The template with one failure changed; the swap must actually apply."""
    assert old in text, old
    return text.replace(old, new)


CASES = [
    Case(
        "go test",
        "go test ./...",
        "go",
        GO_TEST,
        _swap(GO_TEST, "TestLogin/bad_password", "TestLogin/expired_token"),
    ),
    Case(
        "go build",
        "go build ./...",
        "go",
        GO_BUILD,
        _swap(GO_BUILD, "declared and not used: expiry", "declared and not used: issuedAt"),
    ),
    Case(
        "go vet",
        "go vet ./...",
        "go",
        GO_VET,
        _swap(GO_VET, "format %d has arg name", "format %s has arg count"),
    ),
    Case(
        "pytest",
        "python -m pytest -rA",
        "pytest",
        PYTEST,
        _swap(PYTEST, "test_add_discount", "test_add_coupon"),
    ),
    Case(
        "unittest",
        "python -m unittest discover",
        "unittest",
        UNITTEST,
        _swap(
            UNITTEST,
            "test_amounts (tests.test_payments.ChargeTest.test_amounts)",
            "test_currency (tests.test_payments.ChargeTest.test_currency)",
        ),
    ),
    Case(
        "cargo test",
        "cargo test",
        "cargo",
        CARGO_TEST,
        _swap(CARGO_TEST, "cart::tests::applies_discount", "cart::tests::rounds_total"),
    ),
    Case(
        "rustc",
        "cargo build",
        "cargo",
        RUSTC,
        _swap(RUSTC, "cannot find function `parse_price`", "cannot find function `parse_cents`"),
    ),
    Case(
        "jest",
        "npx jest",
        "jest",
        JEST,
        _swap(JEST, "login › rejects a bad password", "login › rejects an empty password"),
    ),
    Case(
        "vitest",
        "npx vitest run",
        "vitest",
        VITEST,
        _swap(VITEST, "login > rejects a bad password", "login > rejects an empty password"),
    ),
    Case(
        "tsc",
        "npx tsc --noEmit --watch",
        "tsc",
        TSC,
        _swap(TSC, "Expected 2 arguments, but got 1.", "Expected 2 arguments, but got 3."),
    ),
    Case(
        "mypy",
        "mypy --strict shop",
        "mypy",
        MYPY,
        _swap(MYPY, 'Name "total" already defined', 'Name "subtotal" already defined'),
    ),
    Case(
        "ruff",
        "ruff check .",
        "ruff",
        RUFF,
        _swap(RUFF, "F841 Local variable", "F811 Redefinition of unused"),
    ),
    Case(
        "eslint",
        "npx eslint src",
        "eslint",
        ESLINT,
        _swap(
            ESLINT,
            "Expected indentation of 2 spaces but found 4  indent",
            "'x' is not defined  no-undef",
        ),
    ),
    Case(
        "junit xml",
        None,
        "junit",
        JUNIT,
        _swap(JUNIT, 'name="testLogin"', 'name="testLogout"'),
    ),
    Case(
        "pytest collection error",
        "pytest -q",
        "pytest",
        PYTEST_COLLECT,
        PYTEST_COLLECT.replace("test_orders.py", "test_invoices.py"),
    ),
    Case(
        "maven surefire",
        "mvn -B test",
        "junit",
        MAVEN,
        MAVEN.replace("testLogin", "testLogout"),
    ),
    Case(
        "gradle",
        "./gradlew test",
        "junit",
        GRADLE,
        _swap(GRADLE, "testLogin()", "testLogout()"),
    ),
]


def ids(case: Case, values: dict[str, str], different: bool = False) -> tuple[str, ...]:
    """The failure ids of one rendering, checking the expected normaliser ran."""
    result = normalise_failures(case.render(values, different), case.check)
    assert result.normaliser == case.normaliser, (case.name, result.normaliser)
    return result.ids


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_volatile_tokens_keep_ids(case: Case) -> None:
    """Line numbers, addresses, durations, temp paths and timestamps change; ids do not."""
    a, b = case.render(VOLATILE_A), case.render(VOLATILE_B)
    assert a != b
    ids_a, ids_b = ids(case, VOLATILE_A), ids(case, VOLATILE_B)
    assert ids_a, case.name
    assert ids_a == ids_b
    for key in NEVER_IN_IDS:
        for values in (VOLATILE_A, VOLATILE_B):
            assert not any(values[key] in i for i in ids_a), (key, ids_a)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_different_failure_changes_ids(case: Case) -> None:
    """A genuinely different failure gets a different id, whatever the volatile tokens."""
    base = set(ids(case, VOLATILE_A))
    for values in (VOLATILE_A, VOLATILE_B):
        other = set(ids(case, values, different=True))
        assert other and other != base, case.name
        assert len(other ^ base) >= 1


def test_every_ecosystem_has_a_pair() -> None:
    names = {c.name for c in CASES}
    assert names >= {
        "go test",
        "go build",
        "go vet",
        "pytest",
        "unittest",
        "cargo test",
        "rustc",
        "jest",
        "vitest",
        "tsc",
        "mypy",
        "ruff",
        "eslint",
        "junit xml",
    }
