"""Whose failure a run was: the vocabulary of ``runs.error_kind``.

A run's outcome is ``success`` (runs.success true), ``failure`` (false: the agent's) or
``error`` (error_kind set, success NULL): the infrastructure failed it, so it is not scored.
Adapters mark an errored run with two keys of its meta, ``error_kind`` (one of
:data:`ERROR_KINDS`) and ``error_reason`` (the tool's words); ingest moves them to the columns
(reportgen/ingest/error_outcomes.sql). docs/formats.md ("Outcome rules") says which tool's
states are errors."""

from __future__ import annotations

from typing import Final

#: error_kind values; anything else an adapter writes is stored as ``other``.
ERROR_KINDS: Final = (
    "environment",  # setting up the task's environment failed (image, repository, install)
    "sandbox",  # the sandbox or container died or refused a command
    "timeout",  # the harness's own time limit (not a limit the agent was given)
    "rate_limit",  # the model API refused for rate (429)
    "quota",  # the account's quota or credit ran out
    "auth",  # the API key or login was refused
    "network",  # connection failures, an overloaded or failing API (5xx)
    "harness",  # the harness itself crashed (an exception outside the agent)
    "other",
)
#: The longest error_reason kept (characters, on one line).
REASON_WIDTH: Final = 300
