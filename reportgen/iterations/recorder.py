"""The recorder an agent harness calls once per attempt: one JSON line of iteration record v1.

It normalises the check output into stable failure ids, derives resolved / persisting / new
and the patch distance from its own previous record of the same step, and appends about a
kilobyte; raw output is not stored (only an optional short tail), the patch only on request.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reportgen.failures import normalise_failures
from reportgen.iterations.patches import count_patch_lines, patch_ratio


@dataclass
class _StepState:
    """What the recorder remembers of a step's previous attempt."""

    attempt: int
    failing: frozenset[str] | None
    patch: str | None


class Recorder:
    """Append iteration records for one run to a JSONL file.

    ``keep_patch`` stores the patch text (lets the SQL re-derive patch distances; lines grow
    with the patch); ``tail_chars`` keeps the last characters of the raw output as
    ``output_tail``; ``backlog_steps`` (the backlog's size) goes on every record, so the report
    can say "9 of 12 backlog steps" rather than count only the steps attempted. Reopening a file
    resumes the run's iteration count and failing sets."""

    def __init__(
        self,
        path: str | Path,
        run_id: str,
        *,
        keep_patch: bool = False,
        tail_chars: int = 0,
        backlog_steps: int | None = None,
    ) -> None:
        if not run_id:
            raise ValueError("run_id must be a non-empty string")
        if backlog_steps is not None and backlog_steps < 1:
            raise ValueError("backlog_steps must be a positive integer")
        self.backlog_steps = backlog_steps
        self.path = Path(path)
        self.run_id = run_id
        self.keep_patch = keep_patch
        self.tail_chars = max(0, tail_chars)
        self.iter = 0
        self._steps: dict[str, _StepState] = {}
        self._resume()

    def record(
        self,
        *,
        step: str,
        attempt: int | None = None,
        check: str | None = None,
        exit_code: int | None = None,
        output: str | None = None,
        failing: Iterable[str] | None = None,
        patch: str | None = None,
        patch_lines: int | None = None,
        tool_calls: int | None = None,
        tool_errors: int | None = None,
        tokens_in: int | None = None,
        tokens_out: int | None = None,
        usd: float | None = None,
        secs: float | None = None,
        certified: bool | None = None,
    ) -> dict[str, Any]:
        """Write one attempt and return the record written.

        ``failing`` (ids) wins over ``output`` (raw check output, normalised here). ``attempt``
        defaults to the step's previous attempt + 1; ``certified`` to ``exit_code == 0``."""
        if not step:
            raise ValueError("step must be a non-empty string")
        _check_counts(
            attempt=attempt,
            patch_lines=patch_lines,
            tool_calls=tool_calls,
            tool_errors=tool_errors,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
        )
        _check_amounts(usd=usd, secs=secs)
        previous = self._steps.get(step)
        normaliser: str | None = None
        ids: frozenset[str] | None = None
        if failing is not None:
            ids, normaliser = frozenset(failing), "given"
        elif output is not None:
            found = normalise_failures(output, check)
            ids, normaliser = frozenset(found.ids), found.normaliser
        self.iter += 1
        if certified is None and exit_code is not None:
            certified = exit_code == 0
        record: dict[str, Any] = {
            "run": self.run_id,
            "iter": self.iter,
            "step": step,
            "attempt": attempt
            if attempt is not None
            else (previous.attempt + 1 if previous else 1),
            "check": check,
            "exit": exit_code,
            "secs": secs,
        }
        if ids is not None:
            before = (previous.failing if previous else frozenset()) or frozenset()
            known_before = previous is None or previous.failing is not None
            record["failing"] = sorted(ids)
            record["n_failing"] = len(ids)
            record["normaliser"] = normaliser
            if known_before:
                record["resolved"] = sorted(before - ids)
                record["persisting"] = sorted(before & ids)
                record["new"] = sorted(ids - before)
        record["patch_lines"] = patch_lines if patch_lines is not None else count_patch_lines(patch)
        record["patch_distance"] = patch_ratio(previous.patch if previous else None, patch)
        if self.keep_patch:
            record["patch"] = patch
        record.update(
            tool_calls=tool_calls,
            tool_errors=tool_errors,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            usd=usd,
            certified=certified,
            backlog_steps=self.backlog_steps,
        )
        if self.tail_chars and output:
            record["output_tail"] = output[-self.tail_chars :]
        record = {k: v for k, v in record.items() if v is not None}
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n")
        self._steps[step] = _StepState(record["attempt"], ids, patch)
        return record

    def _resume(self) -> None:
        """Pick up the run's state from records already in the file (a restarted harness)."""
        if not self.path.exists():
            return
        with self.path.open(encoding="utf-8") as handle:
            for line in handle:
                if not line.strip():
                    continue
                data = json.loads(line)
                if not isinstance(data, dict) or data.get("run") != self.run_id:
                    continue
                self.iter = max(self.iter, int(data.get("iter", 0)))
                failing = data.get("failing")
                self._steps[str(data["step"])] = _StepState(
                    int(data.get("attempt", 0)),
                    frozenset(failing) if failing is not None else None,
                    data.get("patch"),
                )


def _check_counts(**values: int | None) -> None:
    for name, value in values.items():
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or value < 0
        ):
            raise ValueError(f"{name} must be a non-negative integer, not {value!r}")


def _check_amounts(**values: float | None) -> None:
    for name, value in values.items():
        if value is not None and (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or value < 0
        ):
            raise ValueError(f"{name} must be a finite number >= 0, not {value!r}")
