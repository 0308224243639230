"""The input of ``reportgen converge``: the agent-convergence-scorer shapes, ``["...", ...]``
or ``{"runs": [...]}``, from a file or standard input."""

from __future__ import annotations

import json
import sys
from typing import Any

from reportgen.errors import ReportgenError

__all__ = ["BadInput", "read_runs"]


class BadInput(ReportgenError):
    """The input could not be read or is not a non-empty list of strings (exit 1)."""


def _load_json(source: str) -> Any:
    """Parse JSON from a file path, or from standard input when ``source`` is ``-``."""
    try:
        if source == "-":
            return json.load(sys.stdin)
        with open(source) as handle:
            return json.load(handle)
    except FileNotFoundError:
        raise BadInput(f"no such file: {source}") from None
    except json.JSONDecodeError as exc:
        raise BadInput(f"{source} is not valid JSON: {exc}") from None
    except UnicodeDecodeError as exc:
        raise BadInput(f"{source} is not readable text: {exc}") from None
    except OSError as exc:
        raise BadInput(f"cannot read {source}: {exc}") from None


def read_runs(source: str) -> list[str]:
    """Load the runs from ``["...", ...]`` or ``{"runs": [...]}``; raise ``BadInput`` if not."""
    data = _load_json(source)
    runs = data.get("runs", data) if isinstance(data, dict) else data
    if not isinstance(runs, list) or not runs:
        raise BadInput('expected a non-empty JSON list of strings, or {"runs": [...]}')
    if any(not isinstance(run, str) for run in runs):
        raise BadInput("every run must be a JSON string")
    return runs
