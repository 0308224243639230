"""Iteration records of long-running coding loops: progress or only activity.

``Recorder`` writes records from an agent harness; ``analyse`` reads an archive into
``RunProgress`` objects (certified steps, spend per certified step, thrash evidence);
``page_data`` / ``compare_page_data`` feed the site; ``iterations_command`` is the CLI.
"""

from reportgen.iterations.analyse import LOW_PATCH_DISTANCE, MIN_STALLED, analyse
from reportgen.iterations.checks import check_kind
from reportgen.iterations.gates import GateVerdict, IterationGates, check_gates
from reportgen.iterations.model import Attempt, RunProgress, StepProgress, ThrashEvidence
from reportgen.iterations.pages import compare_page_data, page_data
from reportgen.iterations.patches import count_patch_lines, patch_ratio
from reportgen.iterations.recorder import Recorder
from reportgen.iterations.udfs import register_iteration_udfs

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
