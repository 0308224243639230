# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Compiled check of which JSON texts are canonical already (see canonical.py).

A text is taken as it is only when re-encoding it could not change a byte: minified (no
white space outside strings), object keys in strictly increasing byte order (UTF-8 byte order
is code point order, the order of Python's and orjson's sorted keys; no key repeated), keys
without escapes, strings whose escapes are ones orjson writes the same way, integers of at
most 18 digits (never ``-0``), no float at all, at most 64 levels deep. Everything else goes
to the Python definition: the check may say no to a canonical text, never yes to another."""

from libc.string cimport memcmp

DEF MAXDEPTH = 64


cdef bint _string(const unsigned char* s, Py_ssize_t n, Py_ssize_t* at, bint key) nogil:
    """Advance over a string starting at its opening quote; False when it is not kept."""
    cdef Py_ssize_t i = at[0] + 1
    cdef unsigned char c
    while i < n:
        c = s[i]
        if c == 34:
            at[0] = i + 1
            return True
        if c < 32:
            return False
        if c == 92:
            if key or i + 1 >= n:
                return False
            c = s[i + 1]
            # orjson writes these escapes so; \u, \/ and the rest it writes otherwise
            if c != 34 and c != 92 and c != 110 and c != 114 and c != 116 and c != 98 and c != 102:
                return False
            i += 2
            continue
        i += 1
    return False


cdef bint _number(const unsigned char* s, Py_ssize_t n, Py_ssize_t* at) nogil:
    """Advance over an integer of at most 18 digits (not -0); False for anything else."""
    cdef Py_ssize_t i = at[0], start
    if s[i] == 45:
        i += 1
    start = i
    while i < n and 48 <= s[i] <= 57:
        i += 1
    if i == start or i - start > 18:
        return False
    if s[start] == 48 and (i - start > 1 or s[at[0]] == 45):
        return False
    if i < n and (s[i] == 46 or s[i] == 101 or s[i] == 69):
        return False
    at[0] = i
    return True


cdef bint _literal(const unsigned char* s, Py_ssize_t n, Py_ssize_t* at) nogil:
    cdef Py_ssize_t i = at[0]
    if i + 4 <= n and (memcmp(s + i, b"true", 4) == 0 or memcmp(s + i, b"null", 4) == 0):
        at[0] = i + 4
        return True
    if i + 5 <= n and memcmp(s + i, b"false", 5) == 0:
        at[0] = i + 5
        return True
    return False


cdef bint _key(
    const unsigned char* s, Py_ssize_t n, Py_ssize_t* at, Py_ssize_t* prev_at, Py_ssize_t* prev_len
) nogil:
    """Advance over ``"key":``, a key after the object's previous one in byte order."""
    cdef Py_ssize_t start = at[0], length, shorter
    cdef int order
    if start >= n or s[start] != 34 or not _string(s, n, at, True):
        return False
    length = at[0] - start - 2
    if prev_len[0] >= 0:
        shorter = length if length < prev_len[0] else prev_len[0]
        order = memcmp(s + prev_at[0], s + start + 1, shorter)
        if order > 0 or (order == 0 and prev_len[0] >= length):
            return False
    prev_at[0] = start + 1
    prev_len[0] = length
    if at[0] >= n or s[at[0]] != 58:
        return False
    at[0] += 1
    return True


cdef bint _canonical(const unsigned char* s, Py_ssize_t n) nogil:
    """True when ``s`` is one canonical JSON value as it stands."""
    cdef bint is_object[MAXDEPTH]
    cdef Py_ssize_t key_at[MAXDEPTH]
    cdef Py_ssize_t key_len[MAXDEPTH]
    cdef int depth = 0
    cdef Py_ssize_t i = 0
    cdef unsigned char c
    cdef bint want_value = True  # a value is due next (else a comma or a close)
    while i < n:
        c = s[i]
        if want_value:
            if c == 123 or c == 91:
                if depth == MAXDEPTH:
                    return False
                is_object[depth] = c == 123
                key_len[depth] = -1
                depth += 1
                i += 1
                if i < n and s[i] == (125 if c == 123 else 93):  # empty
                    depth -= 1
                    i += 1
                    want_value = False
                    if depth == 0:
                        return i == n
                elif c == 123 and not _key(s, n, &i, &key_at[depth - 1], &key_len[depth - 1]):
                    return False
                continue
            if c == 34:
                if not _string(s, n, &i, False):
                    return False
            elif c == 45 or 48 <= c <= 57:
                if not _number(s, n, &i):
                    return False
            elif not _literal(s, n, &i):
                return False
            want_value = False
            if depth == 0:
                return i == n
        elif c == 44:  # a comma: the next item (an object's with its key)
            i += 1
            if is_object[depth - 1] and not _key(s, n, &i, &key_at[depth - 1], &key_len[depth - 1]):
                return False
            want_value = True
        elif c == (125 if is_object[depth - 1] else 93):
            depth -= 1
            i += 1
            if depth == 0:
                return i == n
        else:
            return False
    return False


def already_canonical(const unsigned char[::1] data, const long long[::1] offsets):
    """For each text ``data[offsets[k]:offsets[k + 1]]``, 1 when it is canonical as it is."""
    cdef Py_ssize_t k, count = offsets.shape[0] - 1
    out = bytearray(count)
    if count == 0 or data.shape[0] == 0:
        return out
    cdef unsigned char[::1] flags = out
    with nogil:
        for k in range(count):
            flags[k] = _canonical(&data[0] + offsets[k], offsets[k + 1] - offsets[k])
    return out
