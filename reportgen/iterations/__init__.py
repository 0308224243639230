"""Iteration records of long-running coding loops: progress or only activity.

``Recorder`` writes records from an agent harness; ``analyse`` reads an archive into
``RunProgress`` objects (certified steps, spend per certified step, thrash evidence);
``page_data`` / ``compare_page_data`` feed the site; ``reportgen.cli.iterations`` is the CLI.
Names are imported on first use (:mod:`reportgen._lazy`).
"""

from typing import TYPE_CHECKING

from reportgen._lazy import lazy_getattr

if TYPE_CHECKING:
    from reportgen.iterations.analysis import LOW_PATCH_DISTANCE, analyse
    from reportgen.iterations.checks import check_kind
    from reportgen.iterations.gates import GateVerdict, IterationGates, check_gates
    from reportgen.iterations.model import (
        MIN_STALLED,
        Attempt,
        RunProgress,
        StepProgress,
        ThrashEvidence,
    )
    from reportgen.iterations.pages import compare_page_data, page_data
    from reportgen.iterations.patches import count_patch_lines, patch_ratio
    from reportgen.iterations.recorder import Recorder
    from reportgen.iterations.udfs import register_iteration_udfs

_EXPORTS = {
    "LOW_PATCH_DISTANCE": ".analysis",
    "MIN_STALLED": ".model",
    "Attempt": ".model",
    "GateVerdict": ".gates",
    "IterationGates": ".gates",
    "Recorder": ".recorder",
    "RunProgress": ".model",
    "StepProgress": ".model",
    "ThrashEvidence": ".model",
    "analyse": ".analysis",
    "check_gates": ".gates",
    "check_kind": ".checks",
    "compare_page_data": ".pages",
    "count_patch_lines": ".patches",
    "page_data": ".pages",
    "patch_ratio": ".patches",
    "register_iteration_udfs": ".udfs",
}
__all__ = [
    "LOW_PATCH_DISTANCE",
    "MIN_STALLED",
    "Attempt",
    "GateVerdict",
    "IterationGates",
    "Recorder",
    "RunProgress",
    "StepProgress",
    "ThrashEvidence",
    "analyse",
    "check_gates",
    "check_kind",
    "compare_page_data",
    "count_patch_lines",
    "page_data",
    "patch_ratio",
    "register_iteration_udfs",
]
__getattr__ = lazy_getattr(__name__, _EXPORTS)
