"""Record a trace inside a test and compare it with a stored baseline (the pytest plugin's
``reportgen_trace`` fixture). Baselines are native trace v1 files, one per test."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def baseline_path(folder: Path, nodeid: str) -> Path:
    """A stable, readable file name for a test: ``tests/test_a.py::test_x[1]`` ->
    ``tests__test_a.py__test_x_1_.json``."""
    return folder / (
        re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid.replace("::", "__")).strip("_") + ".json"
    )


@dataclass
class TraceRecorder:
    """Collects the steps an agent takes during a test."""

    task_id: str
    steps: list[dict[str, Any]] = field(default_factory=list)
    output: str | None = None

    def step(
        self,
        action: str,
        *,
        type: str = "tool",
        status: str = "ok",
        input: Any = None,
        output: Any = None,
        tokens_in: int | None = None,
        tokens_out: int | None = None,
        cost_usd: float | None = None,
        latency_ms: float | None = None,
    ) -> None:
        """Record one step, in the native trace format's terms."""
        record: dict[str, Any] = {"type": type, "action": action, "status": status}
        for key, value in (
            ("input", input),
            ("output", output),
            ("tokens_in", tokens_in),
            ("tokens_out", tokens_out),
            ("cost_usd", cost_usd),
            ("latency_ms", latency_ms),
        ):
            if value is not None:
                record[key] = value
        self.steps.append(record)

    def to_json(self) -> str:
        run: dict[str, Any] = {"task_id": self.task_id, "steps": self.steps}
        if self.output is not None:
            run["output"] = self.output
        return json.dumps(run, indent=2, sort_keys=True) + "\n"
