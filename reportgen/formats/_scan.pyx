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
  ``steps`` list (native detection reads these instead of parsing the file);
* whether every record is a native run whose steps need no type checks in SQL (``typed``):
  an object with a string ``run_id`` and a ``steps`` list of objects, each with the fields
  ``FIELD_NAMES`` holds, as ``typed`` says;
* where a document's top-level ``steps`` list lies (``steps_span``), so that its run fields
  can be read without parsing its steps."""

from libc.string cimport memcmp, memcpy

DEF KEYMAX = 64
DEF TOPMAX = 64
DEF STEPMAX = 32
DEF NFIELDS = 12

# The step fields of trace-v1 the typed check knows, by number (the value rules are in
# Scan._value_done): 0-2 are required.
FIELD_NAMES = (
    b"type", b"action", b"status", b"input", b"output", b"tokens_in", b"tokens_out",
    b"cost_usd", b"latency_ms", b"started_at", b"parent", b"error",
)
cdef int F_TYPE = 0, F_ACTION = 1, F_STATUS = 2, F_INPUT = 3, F_OUTPUT = 4
cdef int F_TOKENS_IN = 5, F_TOKENS_OUT = 6, F_COST = 7, F_LATENCY = 8
cdef int F_STARTED = 9, F_PARENT = 10, F_ERROR = 11
cdef unsigned int REQUIRED = 0b111
cdef const char* FIELD_PTR[NFIELDS]
cdef int FIELD_LEN[NFIELDS]
for _f in range(NFIELDS):
    FIELD_PTR[_f] = FIELD_NAMES[_f]
    FIELD_LEN[_f] = len(FIELD_NAMES[_f])
# the kind of a step field's value, from its first byte
cdef int V_NONE = 0, V_STRING = 1, V_NUMBER = 2, V_BOOL = 3, V_CONTAINER = 4, V_NULL = 5


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
    # the typed check (see the module docstring): the file so far, the record, the step and
    # the value being read (vfield: its field number, -1 another key, -2 none)
    cdef bint typed_ok, saw_record, rec_run_id, rec_steps, in_list, vstr_in_block
    cdef int cur_top  # the record's last top-level key: 1 steps, 2 run_id, 0 another
    cdef unsigned int step_mask
    cdef int vfield, vkind, vdigits, vexp  # vexp: exponent digits, -1 before any exponent
    cdef bint vdot, vbad
    cdef Py_ssize_t vstr_start
    # bytes fed before this block; a document's steps list: its '[' and the byte after its ']'
    cdef Py_ssize_t fed, steps_at, steps_end

    def __init__(self, bint lines, long max_depth):
        self.lines = lines
        self.max_depth = max_depth
        self.line = 1
        self.keys_ok = True
        self.step_keys_ok = True
        self.typed_ok = True
        self.vfield = -2
        self.steps_at = -1
        self.steps_end = -1

    @property
    def steps_span(self):
        """(start, end) byte offsets of a document's top-level ``steps`` list, from its ``[``
        to just past its ``]``, when it is an object holding one that closed; else None (also
        for JSON Lines)."""
        if self.lines or self.steps_end < 0:
            return None
        return (self.steps_at, self.steps_end)

    @property
    def typed(self):
        """True when every record is an object with a string ``run_id`` and a ``steps`` list
        of objects whose fields are as trace-v1 wants them without a parse to tell: type,
        action (non-empty strings) and status (one of the five, unescaped) present; tokens_in,
        tokens_out, parent null or an integer of at most 15 digits; cost_usd, latency_ms null
        or a non-negative number with an exponent of at most 2 digits (so finite: under 300
        digits; an integer, at most 18); started_at, error null or
        a string; input, output anything. (Whether started_at is a time, and parent an earlier
        step, SQL checks.) A file it is not true of may still be valid: the check is strict,
        never lenient; a value of these fields split between two blocks makes it false."""
        if self.record_open and not (self.rec_run_id and self.rec_steps):
            return False  # the last record, when no newline ended it
        return self.typed_ok and self.saw_record

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
        self.fed += n
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
        self.vstr_in_block = False  # a step field's string open since the last block
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
                    if self.vkind == 1 and depth == 3 and self.vfield >= 0 and not capturing:
                        self._string_done(block, i - 1)
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
                if not self.expect_key and self.vfield >= 0 and depth == 3:
                    self.vstr_start = i
                    self.vstr_in_block = True
                if self.expect_key:
                    self.expect_key = False
                    if depth == 1 or (depth == 3 and self.in_list):
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
                    self.saw_record = True
                    if not self.first_done:
                        self.first_object = c == 123
                    if c != 123:
                        self.typed_ok = False
                if depth <= 3:
                    self.kind[depth] = 1 if c == 123 else 2
                    if depth == 2 and c == 91 and self.cur_top == 1:
                        self.in_list = True
                        self.rec_steps = True
                        if self.steps_at < 0:
                            self.steps_at = self.fed + i - 1
                    if depth == 2 and c == 91 and self.top_key_steps and not self.first_done:
                        self.in_steps = True
                        self.steps_seen = True
                    if depth == 3 and self.in_list:  # a step begins
                        self.step_mask = 0
                        self.vfield = -2
                self.expect_key = c == 123
            elif c == 125 or c == 93:
                if depth == 2:
                    if self.in_list and self.steps_end < 0 and self.steps_at >= 0:
                        self.steps_end = self.fed + i
                    self.in_steps = False
                    self.in_list = False
                elif depth == 3 and self.in_list:  # a step ends
                    self._value_done()
                    if self.step_mask & REQUIRED != REQUIRED:
                        self.typed_ok = False
                depth -= 1
                self.expect_key = False
                if depth == 0 and not self.lines:
                    self.ended = True
                    self.depth = depth
                    self._end_record()
            elif c == 44:
                # keys are captured at depths 1 and 3 only, so deeper commas need not tell
                self.expect_key = 0 < depth <= 3 and self.kind[depth] == 1
                if depth == 3 and self.in_list:
                    self._value_done()
            elif c == 58:
                self.expect_key = False
            elif c == 78 or c == 73:  # N, I: NaN, Infinity
                self.non_finite = True
            elif c != 32 and c != 9 and c != 13:
                self.depth = depth
                self._value_start(c)
                if depth == 3 and self.vfield >= 0:
                    self._scalar_byte(c)
                elif depth == 0:
                    self.typed_ok = False  # a record that is not an object
                    if not self.first_done:
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
        """A value begins: inside a steps list, it must be an object; a step field's kind is
        its first byte's."""
        if self.depth == 2 and c != 123:
            if self.in_steps:
                self.step_keys_ok = False
            if self.in_list:
                self.typed_ok = False
        elif self.depth == 1 and self.cur_top == 2 and c == 34 and not self.expect_key:
            self.rec_run_id = True
        elif self.depth == 3 and self.vfield >= 0 and self.vkind == V_NONE:
            if c == 34:
                self.vkind = V_STRING
            elif c == 123 or c == 91:
                self.vkind = V_CONTAINER

    cdef inline void _scalar_byte(self, unsigned char c) noexcept nogil:
        """A byte of a step field's number or literal (outside strings)."""
        if self.vkind == V_NONE:
            self.vdigits = 0
            self.vexp = -1
            self.vdot = False
            self.vbad = False
            if c == 110:  # n
                self.vkind = V_NULL
                return
            if c == 116 or c == 102:  # t, f
                self.vkind = V_BOOL
                return
            self.vkind = V_NUMBER
        if self.vkind != V_NUMBER:
            return
        if 48 <= c <= 57:
            if self.vexp >= 0:
                self.vexp += 1
            else:
                self.vdigits += 1
        elif c == 46 and self.vexp < 0:
            self.vdot = True  # JSON has one point at most, before the exponent
        elif (c == 101 or c == 69) and self.vexp < 0:  # e, E: 1.5e-05 as Python writes it
            self.vexp = 0
        elif (c == 45 or c == 43) and self.vexp == 0:  # the exponent's sign
            pass
        else:  # a minus sign before the number
            self.vbad = True

    cdef void _string_done(self, const unsigned char* block, Py_ssize_t end) noexcept nogil:
        """A step field's string value closed at ``end`` (its closing quote)."""
        cdef Py_ssize_t n
        cdef const unsigned char* text
        if not self.vstr_in_block:
            self.typed_ok = False
            return
        n = end - self.vstr_start
        text = &block[self.vstr_start]
        self.vstr_in_block = False
        self.vdigits = <int>min(n, 2)  # for a string: 0 empty, else not
        if self.vfield == F_STATUS and not (
            (n == 2 and memcmp(text, b"ok", 2) == 0)
            or (n == 7 and memcmp(text, b"success", 7) == 0)
            or (n == 5 and (memcmp(text, b"error", 5) == 0 or memcmp(text, b"retry", 5) == 0))
            or (n == 9 and memcmp(text, b"abandoned", 9) == 0)
        ):
            self.typed_ok = False

    cdef void _value_done(self) noexcept nogil:
        """A step field's value ended: is it as ``typed`` says?"""
        cdef int f = self.vfield, k = self.vkind
        cdef bint ok
        self.vfield = -2
        if f < 0:
            return
        if f == F_TYPE or f == F_ACTION:
            ok = k == V_STRING and self.vdigits > 0
        elif f == F_STATUS:
            ok = k == V_STRING  # its text was checked when it closed
        elif f == F_INPUT or f == F_OUTPUT:
            ok = True
        elif f == F_TOKENS_IN or f == F_TOKENS_OUT or f == F_PARENT:
            ok = k == V_NULL or (
                k == V_NUMBER and not self.vbad and not self.vdot and self.vexp < 0
                and 0 < self.vdigits <= 15
            )
        elif f == F_COST or f == F_LATENCY:
            # finite: an exponent of two digits at most, under 300 digits; an integer of 18
            # digits at most, as JSON's UBIGINT (a longer one DuckDB reads otherwise)
            ok = k == V_NULL or (
                k == V_NUMBER and not self.vbad and self.vexp <= 2 and 0 < self.vdigits
                and self.vdigits <= (300 if self.vdot or self.vexp >= 0 else 18)
            )
        else:  # started_at, error
            ok = k == V_NULL or k == V_STRING
        if not ok:
            self.typed_ok = False

    cdef inline void _key_byte(self, unsigned char c) noexcept nogil:
        if self.keylen < KEYMAX:
            self.key[self.keylen] = <char>c
            self.keylen += 1
        else:
            self.key_long = True

    cdef void _key_done(self, const unsigned char* key, Py_ssize_t keylen, bint key_long) noexcept nogil:
        cdef int j
        if self.key_depth == 1:
            self.cur_top = 0
            if not key_long and keylen == 5 and memcmp(key, b"steps", 5) == 0:
                self.cur_top = 1
            elif not key_long and keylen == 6 and memcmp(key, b"run_id", 6) == 0:
                self.cur_top = 2
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
            self._field_key(key, keylen, key_long)
            if not self.in_steps:  # the distinct step keys are the first record's only
                return
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

    cdef void _field_key(self, const unsigned char* key, Py_ssize_t keylen, bint key_long) noexcept nogil:
        """A step's key: the field whose value comes next (-1: not one the check knows)."""
        cdef int f
        self.vfield = -1
        self.vkind = V_NONE
        if key_long:
            return
        for f in range(NFIELDS):
            if FIELD_LEN[f] == keylen and memcmp(FIELD_PTR[f], key, keylen) == 0:
                self.vfield = f
                self.step_mask |= 1u << f
                return

    cdef void _end_record(self) noexcept nogil:
        cdef int j
        if self.record_open and not (self.rec_run_id and self.rec_steps):
            self.typed_ok = False
        self.rec_run_id = False
        self.rec_steps = False
        self.in_list = False
        self.cur_top = 0
        self.vfield = -2
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
