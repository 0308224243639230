"""SIGKILL of ``reportgen build`` at seeded random moments: a whole site (the old one or the new
one) is always in place, and the next build succeeds and leaves no temp folder behind."""

from __future__ import annotations

import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

from reportgen.site import build_site
from tests.hostile.conftest import assert_whole, site_files, start_build

pytestmark = pytest.mark.slow
BUILD_TIME = "2026-11-29T06:00:00Z"
KILLS = 20


def _start(db: Path, out: Path) -> subprocess.Popen[bytes]:
    return start_build(db, out, BUILD_TIME, stdout=subprocess.DEVNULL)


def test_killed_builds_never_leave_a_broken_site(
    two_archives: tuple[Path, Path],
    reference_sites: tuple[dict[str, bytes], dict[str, bytes]],
    tmp_path: Path,
) -> None:
    dbs, refs = two_archives, reference_sites
    out = tmp_path / "site"
    build_site(dbs[0], out, build_time=BUILD_TIME)
    started = time.monotonic()
    proc = _start(dbs[1], out)  # one whole build, to learn how long one takes
    assert proc.wait(timeout=120) == 0
    duration = time.monotonic() - started
    current = 1
    rng = random.Random(20261201)
    outcomes = set()
    for _ in range(KILLS):
        other = 1 - current
        proc = _start(dbs[other], out)
        time.sleep(rng.uniform(0.0, duration * 1.1))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        files = site_files(out)
        assert files in (refs[current], refs[other]), "the site is neither the old nor the new"
        assert_whole(out)
        outcomes.add("new" if files == refs[other] and refs[other] != refs[current] else "old")
        current = other if files == refs[other] else current
        # the next build finishes and cleans up what the killed one left
        current = 1 - current
        build_site(dbs[current], out, build_time=BUILD_TIME)
        assert site_files(out) == refs[current]
        left = sorted(p.name for p in tmp_path.iterdir())
        assert left == [".site.cache", "site"], "temp folders left"  # the evaluation cache stays
    assert "old" in outcomes  # the seeded moments hit both sides of the swap
