"""Types of the compiled JSON nesting scan (_scan.pyx)."""

def scan_block(
    block: bytes,
    lines: bool,
    max_depth: int,
    depth: int,
    in_string: bool,
    escaped: bool,
    ended: bool,
    line: int,
) -> tuple[int, int, int, bool, bool, bool, int]: ...
