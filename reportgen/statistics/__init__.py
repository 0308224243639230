"""Statistics of a whole comparison: intervals, p-values and verdicts per label-level metric
(a regression told from noise), per-task outcome classes, label-level gates."""

from reportgen.statistics.summary import attach_statistics, label_statistics, task_classes

__all__ = ["attach_statistics", "label_statistics", "task_classes"]
