"""discover's folder walk (os.scandir) lists what a plain os.walk would, in Path order."""

from __future__ import annotations

import os
from pathlib import Path

from reportgen.formats.source import discover, is_input_file


def _reference(folder: Path) -> list[str]:
    """The input files under ``folder`` by os.walk and Path sorting (the walk before scandir)."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".") and not Path(root, d).is_symlink()]
        found += [Path(root, f) for f in files if is_input_file(Path(f)) and not f.startswith(".")]
    return [str(p) for p in sorted(found)]


def test_the_walk_finds_what_os_walk_finds_in_path_order(tmp_path: Path) -> None:
    for name in [
        "a.json", "a-b/c.jsonl", "a/b.json", "a/z/deep.json.gz", "b.txt", ".hidden.json",
        ".dot/x.json", "a b/é.json", "aa/x.traj", "A/upper.json",
    ]:  # fmt: skip
        path = tmp_path / "root" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "root" / "linked").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    root = tmp_path / "root"
    notices: list[str] = []
    found = discover([root], notices)
    assert [display for _, display in found] == _reference(root)
    assert [path for path, _ in found] == [Path(os.path.abspath(d)) for _, d in found]
    assert notices == [f"skipped {root / 'linked'}: a symlink to a folder (not followed)"]
