"""Shared fixtures: small traces built in code, and the bundled sample runs."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from reportgen.resources import shipped_dir


def make_step(action: str = "read_file", status: str = "ok", **extra: Any) -> dict[str, Any]:
    step: dict[str, Any] = {
        "type": "tool",
        "action": action,
        "status": status,
        "input": {"path": "a.py"},
    }
    step.update(extra)
    return step


def make_run(task_id: str = "t1", n_steps: int = 3, **extra: Any) -> dict[str, Any]:
    run: dict[str, Any] = {
        "task_id": task_id,
        "started_at": "2026-11-28T02:00:00Z",
        "steps": [
            make_step(f"a{i}", tokens_in=10 * i, tokens_out=i, cost_usd=0.001 * i, latency_ms=100.0)
            for i in range(n_steps)
        ],
    }
    run.update(extra)
    return run


@pytest.fixture
def write_jsonl(tmp_path: Path) -> Callable[..., Path]:
    """Write runs (dicts) or raw lines (str) as a .jsonl file under tmp_path."""

    def write(name: str, records: list[Any]) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        return path

    return write


@pytest.fixture
def sample_runs() -> Path:
    return shipped_dir("sample_runs")


@pytest.fixture
def serve() -> Iterator[Callable[[Path], str]]:
    """Serve a folder with ``python -m http.server`` on 127.0.0.1 (as a user previews a site);
    returns its base URL. Every server started is stopped at the end of the test."""
    servers: list[subprocess.Popen[bytes]] = []

    def start(folder: Path) -> str:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = subprocess.Popen(
            [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
             "--directory", str(folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        servers.append(server)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                return f"http://127.0.0.1:{port}/"
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("http.server did not start")

    yield start
    for server in servers:
        server.terminate()
        server.wait(timeout=10)
