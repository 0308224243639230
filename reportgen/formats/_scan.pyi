"""Types of the compiled JSON byte scan (_scan.pyx)."""

FIELD_NAMES: tuple[bytes, ...]

class Scan:
    max_depth: int
    depth: int
    line: int
    lines: bool
    in_string: bool
    escaped: bool
    ended: bool
    non_finite: bool
    duplicate: tuple[int, bytes] | None
    typed: bool
    steps_span: tuple[int, int] | None
    def __init__(self, lines: bool, max_depth: int) -> None: ...
    def feed(self, block: bytes) -> tuple[int, int]: ...
    def first_keys(self) -> tuple[bytes, ...] | None: ...
    def step_keys(self) -> tuple[bytes, ...] | None: ...
