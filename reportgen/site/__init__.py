"""The static site: per-run, per-task, comparison and history pages from the archive."""

from reportgen.site.build import BuildReport, build_site

__all__ = ["BuildReport", "build_site"]
