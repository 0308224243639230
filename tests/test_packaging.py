"""The installed wheel carries templates, static assets, schemas, SQL and the sample runs."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
    )
    (found,) = out.glob("reportgen_agents-*.whl")
    return found


def test_wheel_contains_shipped_folders(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert any(n.startswith("reportgen/templates/") for n in names)
    assert any(n.startswith("reportgen/static/") for n in names)
    assert "reportgen/formats/schemas/trace-v1.schema.json" in names
    assert "reportgen/archive/schema.sql" in names
    assert any(n.startswith("reportgen/sample_runs/nightly/") for n in names)
    assert any(n.endswith("entry_points.txt") for n in names)


def test_installed_wheel_runs_demo_outside_the_source_tree(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
    )
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "import reportgen, reportgen.resources as r;"
        "assert reportgen.__file__.startswith(sys.argv[1]), reportgen.__file__;"
        "[print(r.shipped_dir(n)) for n in ('templates', 'static', 'sample_runs')];"
        "from reportgen.cli import main; sys.argv = ['reportgen', 'demo', '--out', sys.argv[2]]; main()"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(target), str(tmp_path / "demo")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    shipped = result.stdout.splitlines()[:3]
    assert all(line.startswith(str(target)) for line in shipped), shipped
    assert "288 runs" in result.stdout
