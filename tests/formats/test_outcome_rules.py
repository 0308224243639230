"""The per-format outcome rules (docs/formats.md, "Outcome rules"): which states of a tool
are the infrastructure's (meta.error_kind / meta.error_reason) and which the agent's."""

from __future__ import annotations

import pytest

from reportgen.formats.adapters.infra import api_error_meta, error_kind
from reportgen.formats.adapters.sessions import SessionStep, ended_on_api_error
from reportgen.formats.adapters.tau2_bench import _infrastructure_error


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("API Error: 429 Too Many Requests", "rate_limit"),
        ("rate_limit_error: slow down", "rate_limit"),
        ("Your credit balance is too low", "quota"),
        ("401 Unauthorized: invalid x-api-key", "auth"),
        ('API Error: 529 {"type":"overloaded_error"}', "network"),
        ("ECONNRESET", "network"),
        ("RuntimeError: sandbox died", "sandbox"),
        ("Request timed out", "timeout"),
        ("ValueError: bad scorer", "harness"),
    ],
)
def test_error_kind_from_text(text: str, kind: str) -> None:
    assert error_kind(text) == kind


def test_an_api_error_naming_no_infrastructure_is_the_agents() -> None:
    assert api_error_meta("API Error: 400 prompt is too long") == {}
    assert api_error_meta("API Error: 529 Overloaded") == {
        "error_kind": "network",
        "error_reason": "API Error: 529 Overloaded",
    }


def test_a_session_ends_on_an_api_error_only_when_it_is_last() -> None:
    call = SessionStep("llm", "model", "error", output={"text": "API Error: 429 rate limit"})
    tool = SessionStep("tool", "bash", "error", output="exit 1")
    answer = SessionStep("llm", "model", "ok", output={"text": "done"})
    assert ended_on_api_error([answer, call])["error_kind"] == "rate_limit"
    assert ended_on_api_error([call, answer]) == {}  # it went on: recovered
    assert ended_on_api_error([answer, tool]) == {}  # a failed tool is the agent's
    assert ended_on_api_error([]) == {}


@pytest.mark.parametrize(
    ("reason", "errored"),
    [("user_error", True), ("user_stop", False), ("agent_stop", False), ("max_steps", False),
     ("too_many_errors", False), ("agent_error", False), (None, False)],
)  # fmt: skip
def test_tau2_termination_reasons(reason: str | None, errored: bool) -> None:
    assert bool(_infrastructure_error(reason)) is errored
