# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Compiled byte scan of raw JSON (C via Cython; see nesting.py for the API).

One pass over a file's bytes, block by block, carrying its state between blocks: the nesting
depth outside strings, whether a string is open and its last byte a pending backslash escape,
whether a document's top-level value has closed, and the line number. JSON Lines records
restart at every newline. Besides the problems it stops at (1 nested deeper than
``max_depth``, 2 a second value after a document's first) it notes, without stopping:

* the first repeated top-level key of any record (DuckDB's reader refused them; its parser
  keeps the first silently), with its line;
* a bare ``N`` or ``I`` outside strings (NaN, Infinity: DuckDB accepts them, JSON does not);
* the first record's top-level keys, and the distinct keys of the objects in its top-level
  ``steps`` list (native detection reads these instead of parsing the file)."""

from libc.string cimport memcmp, memcpy

DEF KEYMAX = 64
DEF TOPMAX = 64
DEF STEPMAX = 32


cdef class Scan:
    cdef public long max_depth, depth, line
    cdef public bint lines, in_string, escaped, ended
    cdef public bint non_finite
    # the first repeated top-level key: its line (0: none) and bytes (see ``duplicate``)
    cdef long dup_line
    cdef char dup_key[KEYMAX]
    cdef int dup_len
    cdef int kind[4]  # container at depths 1..3: 1 object, 2 array
    cdef bint expect_key, capturing, first_done, in_steps, top_key_steps, steps_seen
    cdef bint first_object, keys_ok, step_keys_ok, record_open
    cdef int key_depth, keylen
    cdef bint key_long
    cdef char key[KEYMAX]
    cdef char top[TOPMAX][KEYMAX]
    cdef int top_len[TOPMAX]
    cdef int n_top
    cdef char first_top[TOPMAX][KEYMAX]
    cdef int first_top_len[TOPMAX]
    cdef int n_first_top
    cdef char steps[STEPMAX][KEYMAX]
    cdef int steps_len[STEPMAX]
    cdef int n_steps, step_hint

    def __init__(self, bint lines, long max_depth):
        self.lines = lines
        self.max_depth = max_depth
        self.line = 1
        self.keys_ok = True
        self.step_keys_ok = True

    @property
    def duplicate(self):
        """(line, key bytes) of the first repeated top-level key of any record, or None."""
        if self.dup_line == 0:
            return None
        return (self.dup_line, self.dup_key[: self.dup_len])

    def feed(self, const unsigned char[::1] block):
        """Scan ``block``; return (problem, problem_line): 0 when none. The byte loop runs
        without the GIL, so threads measure files side by side."""
        cdef long problem_line = 0
        cdef int problem
        cdef Py_ssize_t n = block.shape[0]
        if n == 0:
            return 0, 0
        with nogil:
            problem = self._feed(&block[0], n, &problem_line)
        return problem, problem_line

    cdef int _feed(self, const unsigned char* block, Py_ssize_t n, long* problem_out) noexcept nogil:
        cdef Py_ssize_t i, j
        cdef unsigned char c
        cdef int problem = 0
        cdef long problem_line = 0
        # the hot state in locals (registers); written back before helpers read it
        cdef bint in_string = self.in_string, escaped = self.escaped
        cdef bint capturing = self.capturing
        cdef long depth = self.depth
        # a key that starts in this block is compared where it lies (key_start); one that
        # runs over the block's end is copied into self.key, byte by byte after that
        cdef Py_ssize_t key_start = 0
        cdef bint key_in_block = False
        i = 0
        while i < n:
            c = block[i]
            if in_string and not escaped and (key_in_block or not capturing):
                # the bulk of a file: run to the next quote, backslash or newline
                while c != 34 and c != 92 and c != 10:
                    i += 1
                    if i == n:
                        break
                    c = block[i]
                if i == n:
                    break
            i += 1
            if c == 10:
                if self.lines:  # a record ends, even inside a string
                    self.depth = depth
                    self._end_record()
                    depth = 0
                    in_string = False
                    escaped = False
                    capturing = False
                    self.expect_key = False
                elif in_string:
                    escaped = False
                self.line += 1
                continue
            if in_string:
                if escaped:
                    escaped = False
                elif c == 92:
                    escaped = True
                elif c == 34:
                    in_string = False
                    if capturing:
                        capturing = False
                        self.depth = depth
                        if key_in_block:
                            key_in_block = False
                            self._key_done(&block[key_start], i - 1 - key_start, i - 1 - key_start > KEYMAX)
                        else:
                            self._key_done(<const unsigned char*>self.key, self.keylen, self.key_long)
                    continue
                if capturing and not key_in_block:
                    self._key_byte(c)
                continue
            if self.ended and c != 32 and c != 9 and c != 13:
                problem = 2
                problem_line = self.line
                break
            if c == 34:
                in_string = True
                self.depth = depth
                self._value_start(c)
                if self.expect_key:
                    self.expect_key = False
                    if depth == 1 or (depth == 3 and self.in_steps):
                        capturing = True
                        key_in_block = True
                        key_start = i
                        self.key_depth = depth
                        self.keylen = 0
                        self.key_long = False
            elif c == 123 or c == 91:
                self.depth = depth
                self._value_start(c)
                depth += 1
                if depth > self.max_depth:
                    problem = 1
                    problem_line = self.line
                    break
                if depth == 1:
                    self.record_open = True
                    if not self.first_done:
                        self.first_object = c == 123
                if depth <= 3:
                    self.kind[depth] = 1 if c == 123 else 2
                    if depth == 2 and c == 91 and self.top_key_steps and not self.first_done:
                        self.in_steps = True
                        self.steps_seen = True
                self.expect_key = c == 123
            elif c == 125 or c == 93:
                if depth == 2:
                    self.in_steps = False
                depth -= 1
                self.expect_key = False
                if depth == 0 and not self.lines:
                    self.ended = True
                    self.depth = depth
                    self._end_record()
            elif c == 44:
                # keys are captured at depths 1 and 3 only, so deeper commas need not tell
                self.expect_key = 0 < depth <= 3 and self.kind[depth] == 1
            elif c == 58:
                self.expect_key = False
            elif c == 78 or c == 73:  # N, I: NaN, Infinity
                self.non_finite = True
            elif c != 32 and c != 9 and c != 13:
                self.depth = depth
                self._value_start(c)
                if depth == 0 and not self.first_done:
                    self.first_object = False
        if capturing and key_in_block:  # the key runs on into the next block
            for j in range(key_start, n):
                self._key_byte(block[j])
        self.in_string = in_string
        self.escaped = escaped
        self.capturing = capturing
        self.depth = depth
        problem_out[0] = problem_line
        return problem

    cdef inline void _value_start(self, unsigned char c) noexcept nogil:
        """A value begins: inside the first record's steps list, it must be an object."""
        if self.in_steps and self.depth == 2 and c != 123:
            self.step_keys_ok = False

    cdef inline void _key_byte(self, unsigned char c) noexcept nogil:
        if self.keylen < KEYMAX:
            self.key[self.keylen] = <char>c
            self.keylen += 1
        else:
            self.key_long = True

    cdef void _key_done(self, const unsigned char* key, Py_ssize_t keylen, bint key_long) noexcept nogil:
        cdef int j
        if self.key_depth == 1:
            if not self.first_done and self.depth == 1:
                self.top_key_steps = (
                    not key_long and keylen == 5 and memcmp(key, b"steps", 5) == 0
                )
            if key_long:  # not kept: the first record's keys are not known whole
                if not self.first_done:
                    self.keys_ok = False
                return
            for j in range(self.n_top):
                if self.top_len[j] == keylen and memcmp(self.top[j], key, keylen) == 0:
                    if self.dup_line == 0:
                        self.dup_line = self.line
                        memcpy(self.dup_key, key, keylen)
                        self.dup_len = <int>keylen
                    return
            if self.n_top < TOPMAX:
                memcpy(self.top[self.n_top], key, keylen)
                self.top_len[self.n_top] = keylen
                self.n_top += 1
            elif not self.first_done:
                self.keys_ok = False
        else:
            if key_long:
                self.step_keys_ok = False
                return
            # steps repeat their keys in the same order: try the one after the last match first
            j = self.step_hint
            if j < self.n_steps and self.steps_len[j] == keylen and memcmp(self.steps[j], key, keylen) == 0:
                self.step_hint = j + 1
                return
            for j in range(self.n_steps):
                if self.steps_len[j] == keylen and memcmp(self.steps[j], key, keylen) == 0:
                    self.step_hint = j + 1
                    return
            if self.n_steps < STEPMAX:
                memcpy(self.steps[self.n_steps], key, keylen)
                self.steps_len[self.n_steps] = keylen
                self.n_steps += 1
            else:
                self.step_keys_ok = False

    cdef void _end_record(self) noexcept nogil:
        cdef int j
        if not self.record_open and not self.first_object:
            return
        if not self.first_done:
            self.first_done = True
            self.n_first_top = self.n_top
            for j in range(self.n_top):
                memcpy(self.first_top[j], self.top[j], self.top_len[j])
                self.first_top_len[j] = self.top_len[j]
        self.record_open = False
        self.in_steps = False
        self.top_key_steps = False
        self.n_top = 0

    def first_keys(self):
        """The first record's top-level keys (raw JSON string bytes), or None when it is not
        an object or a key could not be kept (over 64 keys or 64 bytes)."""
        cdef int j
        if not self.first_object or not self.keys_ok:
            return None
        count = self.n_first_top if self.first_done else self.n_top
        if self.first_done:
            return tuple(self.first_top[j][: self.first_top_len[j]] for j in range(count))
        return tuple(self.top[j][: self.top_len[j]] for j in range(count))

    def step_keys(self):
        """The distinct keys of the objects in the first record's top-level ``steps`` list, or
        None when it has no such list, an item is not an object, or a key could not be kept."""
        cdef int j
        if not self.steps_seen or not self.step_keys_ok:
            return None
        return tuple(self.steps[j][: self.steps_len[j]] for j in range(self.n_steps))
