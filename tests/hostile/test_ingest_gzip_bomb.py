"""Case 12: a gzip bomb stops at the record limit while it streams: fast, bounded memory."""

from __future__ import annotations

import gzip
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.hostile.conftest import ROOT, one_line

# Runs the CLI and reports the peak memory of the process on its last stderr line.
MEASURED = """
import resource, sys
from reportgen.cli import main
sys.argv = ['reportgen', *sys.argv[1:]]
try:
    main()
finally:
    print('maxrss', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
"""


def peak_kb(*args: str | Path) -> tuple[subprocess.CompletedProcess[str], list[str], int]:
    """Run the CLI; its result, its stderr lines but the last, and its peak memory in kB."""
    result = subprocess.run(
        [sys.executable, "-c", MEASURED, *(str(a) for a in args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    *errors, peak = result.stderr.strip().splitlines()
    return result, errors, int(peak.split()[1])


def bomb(path: Path, megabytes: int) -> Path:
    """A run whose output is ``megabytes`` MB of zeros (no newline), gzip-compressed."""
    chunk = b"0" * (1 << 20)
    with gzip.open(path, "wb", compresslevel=9) as handle:
        handle.write(b'{"task_id": "t", "steps": [], "output": "')
        for _ in range(megabytes):
            handle.write(chunk)
    return path


@pytest.mark.parametrize("name", ["bomb.json.gz", "bomb.jsonl.gz"])
def test_gzip_bomb_fails_fast_with_bounded_memory(name: str, tmp_path: Path) -> None:
    path = bomb(tmp_path / name, 200)
    assert path.stat().st_size < 2 << 20
    db = tmp_path / "a.duckdb"
    small = tmp_path / "small.jsonl"
    small.write_text('{"task_id": "t", "steps": []}\n')
    _, _, baseline = peak_kb("ingest", small, "--db", tmp_path / "b.duckdb", "-q")
    started = time.monotonic()
    result, errors, peak = peak_kb("ingest", path, "--db", db, "--max-record-mb=1")
    elapsed = time.monotonic() - started
    assert result.returncode == 1, result.stderr
    one_line("\n".join(errors), str(path), "limit per record (--max-record-mb)")
    assert elapsed < 20, elapsed
    # far below the 200 MB the file inflates to: a few blocks over an ordinary small ingest
    assert peak - baseline < 60 * 1024, (peak, baseline)
    assert not db.exists()


@pytest.mark.parametrize("name", ["bomb.json.gz", "bomb.jsonl.gz"])
def test_bomb_inflation_stops_at_the_limit(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typing import BinaryIO

    from reportgen.errors import InputError
    from reportgen.formats import source

    path = bomb(tmp_path / name, 50)
    inflated = [0]
    real_open = source.open_source

    class Counting:
        def __init__(self, stream: BinaryIO) -> None:
            self.stream = stream

        def read(self, n: int) -> bytes:
            block = self.stream.read(n)
            inflated[0] += len(block)
            return block

        def __enter__(self) -> Counting:
            return self

        def __exit__(self, *exc: object) -> None:
            self.stream.close()

    monkeypatch.setattr(source, "open_source", lambda p, d: Counting(real_open(p, d)))
    with pytest.raises(InputError, match="limit per record"):
        source.measure(path, str(path), 1 << 20)
    assert inflated[0] <= (1 << 20) + 2 * source.CHUNK
