"""The limits every input is held to, whether it comes from a trace file (``ingest``) or a
published snapshot (``restore``): one place, so both refuse the same things."""

from __future__ import annotations

#: The largest token count a record may give (a trillion): beyond it a count is a broken or
#: hostile record, and a million steps of it still sum inside a 64-bit integer.
MAX_COUNT = 10**12
#: The largest amount (USD, milliseconds, seconds) a record may give; its sums stay finite.
MAX_AMOUNT = 1e12
#: The last year a time stamp may name (later ones overflow date arithmetic downstream).
MAX_YEAR = 9000
#: Deepest nesting of objects and arrays accepted in one record (the record itself is 1).
MAX_DEPTH = 200
