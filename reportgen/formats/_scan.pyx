# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Compiled byte scan of JSON nesting (C via Cython; see nesting.py for the API).

One pass over a block of raw JSON bytes, carrying the state between blocks: the nesting depth
outside strings, whether a string is open and its last byte a pending backslash escape, whether
a document's top-level value has closed, and the line number. JSON Lines records restart at
every newline. Returns the first problem: 1 nested deeper than ``max_depth``, 2 a second value
after a document's first (document mode only)."""


def scan_block(
    const unsigned char[::1] block,
    bint lines,
    long max_depth,
    long depth,
    bint in_string,
    bint escaped,
    bint ended,
    long line,
):
    """Scan ``block``; return (problem, problem_line, depth, in_string, escaped, ended, line)."""
    cdef Py_ssize_t i, n = block.shape[0]
    cdef unsigned char c
    cdef int problem = 0
    cdef long problem_line = 0
    with nogil:
        for i in range(n):
            c = block[i]
            if c == 10 and lines:
                depth = 0
                in_string = False
                escaped = False
                line += 1
                continue
            if in_string:
                if escaped:
                    escaped = False
                elif c == 92:
                    escaped = True
                elif c == 34:
                    in_string = False
            elif ended and c != 32 and c != 9 and c != 10 and c != 13:
                problem = 2
                problem_line = line
                break
            elif c == 34:
                in_string = True
            elif c == 123 or c == 91:
                depth += 1
                if depth > max_depth:
                    problem = 1
                    problem_line = line
                    break
            elif c == 125 or c == 93:
                depth -= 1
                if depth == 0 and not lines:
                    ended = True
            if c == 10:
                line += 1
    return problem, problem_line, depth, in_string, escaped, ended, line
