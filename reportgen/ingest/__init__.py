"""Ingest: find input files, check and hash them, stage them by format, load them in one
transaction."""

from reportgen.ingest.loader import IngestReport, ingest

__all__ = ["IngestReport", "ingest"]
