"""Dependencies point one way: CLI / API / plugin / site -> features -> gating / archive.

Every ``import`` of one part of reportgen by another (at module level or inside a function)
must go to a lower layer; a feature never imports the CLI, the site or another feature above
it. docs/architecture.md draws the same picture."""

from __future__ import annotations

import ast
from pathlib import Path

import reportgen

PACKAGE = Path(reportgen.__file__).parent

#: Layer of each top-level module or package of reportgen: imports go to lower numbers only.
LAYERS = {
    "errors": 0, "_sql": 0, "_lazy": 0, "_gc": 0, "resources": 0, "strict_json": 0,
    "secrets": 0, "limits": 0,
    "gating": 1, "archive": 1, "escape": 1,
    "failures": 2,
    "formats": 3,
    "ingest": 4, "spend": 4,
    "divergence": 5,
    "convergence": 6, "iterations": 6, "statistics": 6, "spark": 6,
    "evaluation": 7,
    "reports": 8, "site": 8, "api": 8, "plugin_baselines": 8,
    "demo": 9,
    "cli": 10, "pytest_plugin": 10,
    "__main__": 11,
}  # fmt: skip


def _imports(path: Path) -> set[str]:
    """The top-level reportgen parts ``path`` imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = (
            [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else []
        )
        found |= {n.split(".")[1] for n in names if n.startswith("reportgen.")}
    return found


def test_every_part_has_a_layer() -> None:
    parts = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir()}
    parts = {p for p in parts if not p.startswith("__pycache__") and p not in ("py", "__init__")}
    code = {
        p for p in parts if (PACKAGE / f"{p}.py").exists() or (PACKAGE / p / "__init__.py").exists()
    }
    assert code == set(LAYERS), sorted(code ^ set(LAYERS))


def test_imports_point_down() -> None:
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts == ("__init__",):
            continue  # reportgen/__init__ re-exports the API lazily
        here = parts[0]
        for there in _imports(path) - {here}:
            if LAYERS[there] >= LAYERS[here]:
                wrong.append(f"{path.relative_to(PACKAGE)} imports reportgen.{there}")
    assert not wrong, wrong


#: What pairs runs and computes their metrics: only reportgen.evaluation calls these for the
#: site, which renders what the evaluation returns (one answer, computed once).
PAIR_FUNCTIONS = {
    "reportgen.divergence.pairing": {"pair_labels", "pair_runs", "runs_of_label"},
    "reportgen.divergence.compare": {
        "compare_labels", "compare_paths", "compare_pairing", "complete_records",
        "repeat_pairs", "run_outcomes",
    },
    "reportgen.divergence.metrics": {"pair_metrics", "pair_metrics_rows"},
    "reportgen.statistics": {"attach_statistics", "label_statistics", "task_classes"},
    "reportgen.statistics.summary": {"attach_statistics", "label_statistics", "task_classes"},
}  # fmt: skip


def test_the_site_renders_the_evaluation_and_pairs_nothing_itself() -> None:
    wrong = []
    for path in sorted((PACKAGE / "site").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module in PAIR_FUNCTIONS:
                used = {a.name for a in node.names} & PAIR_FUNCTIONS[node.module]
                wrong += [f"{path.relative_to(PACKAGE)}: {node.module}.{n}" for n in used]
            if isinstance(node, ast.Import):
                wrong += [a.name for a in node.names if a.name in PAIR_FUNCTIONS]
    assert wrong == []
