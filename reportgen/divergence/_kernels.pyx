# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""Compiled sequence kernels of the divergence metrics (C via Cython; see udfs.py for the API).

Each kernel loops over many sequences or pairs given as flat int64 arrays plus offsets, with
no Python object per step, and releases the GIL so DuckDB and the other thread keep working:

* align_pairs - bit-parallel LCS rows (Hyyro 2004) and the DESIGN.md traceback of each pair;
* recovery_walk, pair_recovery - the RSR window walk of each sequence, or of both sides of
  each aligned pair;
* loop_scan - the greedy back-to-back repeat scan of trajectory.loop_blocks, plus stagnancy;
* diff_lists, step_diffs_json - the step_diffs of each pair, as dicts or as JSON text, and
  argument_diffs - the per-key input diff of modified rows from the two input texts (the only
  kernels that build Python objects);
* place_rows, run_sums, run_folds - where each fetched step row goes in run-then-step order,
  and the per-run sums and left-to-right float folds of the run totals.

Every kernel equals its per-sequence reference in reportgen.divergence.reference exactly; the
tests compare them on random inputs.
"""

from libc.stdint cimport int8_t, int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcmp, memcpy, memset
from cpython.list cimport PyList_New, PyList_SET_ITEM
from cpython.ref cimport Py_INCREF


cdef extern from *:
    int popcount64 "__builtin_popcountll"(unsigned long long) nogil


cdef inline uint64_t* _grow(uint64_t* buf, int64_t* cap, int64_t need) except NULL nogil:
    """``buf`` with room for at least ``need`` words (contents not kept)."""
    cdef uint64_t* out
    if need <= cap[0]:
        return buf
    out = <uint64_t*> realloc(buf, need * sizeof(uint64_t))
    if out == NULL:
        with gil:
            raise MemoryError()
    cap[0] = need
    return out


cdef inline void _lcs_row(
    const uint64_t* prev, uint64_t* cur, const uint64_t* match, int64_t words, uint64_t top
) noexcept nogil:
    """One bit-parallel LCS row (Hyyro 2004) from the row before it."""
    cdef int64_t w
    cdef uint64_t v, u, t, s, carry = 0
    for w in range(words):
        v = prev[w]
        u = v & match[w]
        t = v + u
        s = t + carry
        carry = 1 if (t < v or s < t) else 0
        cur[w] = s | (v ^ u)
    cur[words - 1] &= top


#: Bit rows a pair may keep whole (words); past this the traceback recomputes them block by
#: block from checkpoints (about 2 * sqrt(n) rows), so two 200,000-step runs need ~25 MB, not 5 GB.
FULL_ROWS_WORDS = 1 << 22


def align_pairs(
    const int64_t[::1] a_vals,
    const int64_t[::1] a_start,
    const int64_t[::1] a_len,
    const int64_t[::1] b_vals,
    const int64_t[::1] b_start,
    const int64_t[::1] b_len,
    int64_t n_codes,
    int64_t[::1] lcs_out,
    int64_t[::1] row_off,
    int64_t[::1] rows_b,
    int64_t[::1] rows_c,
    int64_t full_rows_words=FULL_ROWS_WORDS,
):
    """LCS length and alignment rows of every pair; pair p is a_vals[a_start[p]:][:a_len[p]]
    against the same slice of b_vals, values in [0, n_codes).

    Fills lcs_out[p], row_off[p + 1] (row_off[0] = 0) and the rows of pair p at
    rows_b/rows_c[row_off[p]:row_off[p + 1]]: baseline and candidate index, -1 for none, in
    diff order (rows_* need room for sum(a_len + b_len)). A pair whose (n + 1) bit rows exceed
    ``full_rows_words`` keeps every k-th row (k ~ sqrt(n)) and recomputes one block of k rows
    at a time for the traceback: the same rows, so the same alignment, in bounded memory."""
    cdef Py_ssize_t pairs = a_start.shape[0]
    cdef int64_t p, i, j, w, n, m, words, nslots, code, lcs, pos, base, a0, b0
    cdef int64_t k, lo, hi, r
    cdef bint whole
    cdef uint64_t top
    cdef uint64_t* rows = NULL
    cdef uint64_t* peq = NULL
    cdef uint64_t* match
    cdef uint64_t* cur
    cdef uint64_t* row_i
    cdef int64_t rows_cap = 0
    cdef int64_t peq_cap = 0
    cdef int64_t* slot_of = <int64_t*> malloc(max(n_codes, 1) * sizeof(int64_t))
    cdef int64_t* stamp = <int64_t*> malloc(max(n_codes, 1) * sizeof(int64_t))
    cdef uint64_t* zero = NULL
    cdef int64_t zero_cap = 0
    cdef uint64_t* block = NULL
    cdef int64_t block_cap = 0
    if slot_of == NULL or stamp == NULL:
        free(slot_of)
        free(stamp)
        raise MemoryError()
    try:
        with nogil:
            for code in range(n_codes):
                stamp[code] = -1
            row_off[0] = 0
            for p in range(pairs):
                n = a_len[p]
                m = b_len[p]
                a0 = a_start[p]
                b0 = b_start[p]
                words = (m + 63) >> 6
                if words == 0:
                    words = 1
                # match bits of each distinct candidate symbol (one row of words per symbol)
                nslots = 0
                for j in range(m):
                    code = b_vals[b0 + j]
                    if stamp[code] != p:
                        stamp[code] = p
                        slot_of[code] = nslots
                        nslots += 1
                peq = _grow(peq, &peq_cap, (nslots + 1) * words)
                memset(peq, 0, nslots * words * sizeof(uint64_t))
                for j in range(m):
                    peq[slot_of[b_vals[b0 + j]] * words + (j >> 6)] |= (<uint64_t> 1) << (j & 63)
                zero = _grow(zero, &zero_cap, words)
                memset(zero, 0, words * sizeof(uint64_t))
                if m == 0:
                    top = 0
                elif m & 63:
                    top = ((<uint64_t> 1) << (m & 63)) - 1
                else:
                    top = <uint64_t> 0xFFFFFFFFFFFFFFFF
                # bit rows: bit j of row i is 0 exactly when dp[i][j + 1] = dp[i][j] + 1.
                # whole: every row kept; else rows 0, k, 2k, ... and the last (row n)
                whole = (n + 1) * words <= full_rows_words
                k = 1
                if not whole:
                    while k * k < n:
                        k += 1
                r = n + 1 if whole else n // k + 2
                rows = _grow(rows, &rows_cap, r * words)
                for w in range(words):
                    rows[w] = <uint64_t> 0xFFFFFFFFFFFFFFFF
                rows[words - 1] &= top
                if not whole:
                    block = _grow(block, &block_cap, (k + 1) * words)
                    # rolling rows: the last slot of rows, and the block buffer's first one
                cur = rows
                for i in range(n):
                    code = a_vals[a0 + i]
                    match = peq + slot_of[code] * words if stamp[code] == p else zero
                    if whole:
                        _lcs_row(rows + i * words, rows + (i + 1) * words, match, words, top)
                        cur = rows + (i + 1) * words
                    else:
                        row_i = block + ((i + 1) & 1) * words
                        _lcs_row(cur, row_i, match, words, top)
                        cur = row_i
                        if (i + 1) % k == 0:
                            memcpy(rows + ((i + 1) // k) * words, cur, words * sizeof(uint64_t))
                            cur = rows + ((i + 1) // k) * words
                lcs = m
                for w in range(words):
                    lcs -= popcount64(cur[w])
                lcs_out[p] = lcs
                # traceback from the end; rows are written back to front
                base = row_off[p]
                row_off[p + 1] = base + n + m - lcs
                pos = row_off[p + 1]
                i = n
                j = m
                lo = n + 1  # rows lo..hi are in the block buffer (none yet)
                hi = -1
                while i > 0 and j > 0:
                    pos -= 1
                    if a_vals[a0 + i - 1] == b_vals[b0 + j - 1]:
                        i -= 1
                        j -= 1
                        rows_b[pos] = i
                        rows_c[pos] = j
                        continue
                    if whole:
                        row_i = rows + i * words
                    else:
                        if i < lo or i > hi:  # recompute the block holding row i
                            lo = ((i - 1) // k) * k
                            hi = lo + k if lo + k < n else n
                            memcpy(block, rows + (lo // k) * words, words * sizeof(uint64_t))
                            for r in range(lo, hi):
                                code = a_vals[a0 + r]
                                match = peq + slot_of[code] * words if stamp[code] == p else zero
                                _lcs_row(
                                    block + (r - lo) * words, block + (r - lo + 1) * words,
                                    match, words, top,
                                )
                        row_i = block + (i - lo) * words
                    if (row_i[(j - 1) >> 6] >> ((j - 1) & 63)) & 1:
                        j -= 1
                        rows_b[pos] = -1
                        rows_c[pos] = j
                    else:
                        i -= 1
                        rows_b[pos] = i
                        rows_c[pos] = -1
                for w in range(i):
                    rows_b[base + w] = w
                    rows_c[base + w] = -1
                for w in range(j):
                    rows_b[base + i + w] = -1
                    rows_c[base + i + w] = w
    finally:
        free(rows)
        free(peq)
        free(zero)
        free(block)
        free(slot_of)
        free(stamp)


cdef inline void _walk(
    const int8_t* wasted, const int8_t* aligned, int64_t n, int64_t* rec, int64_t* unrec
) noexcept nogil:
    """The RSR window walk of one step sequence: a wasted step opens the window (not
    counted), an ok step while open counts one and closes it when aligned; the counted steps
    of a window still open at the end are also unrecovered."""
    cdef int64_t x, counted = 0, pending = 0
    cdef bint open_ = False
    for x in range(n):
        if wasted[x]:
            open_ = True
        elif open_:
            counted += 1
            pending += 1
            if aligned[x]:
                open_ = False
                pending = 0
    rec[0] = counted
    unrec[0] = pending if open_ else 0


def recovery_walk(
    const int8_t[::1] wasted,
    const int8_t[::1] aligned,
    const int64_t[::1] off,
    int64_t[::1] rec_out,
    int64_t[::1] unrec_out,
):
    """RSR window walk (see _walk) of every sequence s = [off[s], off[s + 1])."""
    cdef Py_ssize_t s, seqs = off.shape[0] - 1
    if wasted.shape[0] == 0:
        for s in range(seqs):
            rec_out[s] = 0
            unrec_out[s] = 0
        return
    with nogil:
        for s in range(seqs):
            _walk(&wasted[off[s]], &aligned[off[s]], off[s + 1] - off[s], &rec_out[s], &unrec_out[s])


def pair_recovery(
    const int8_t[::1] wasted,
    const int64_t[::1] b_start,
    const int64_t[::1] b_len,
    const int64_t[::1] c_start,
    const int64_t[::1] c_len,
    const int64_t[::1] row_off,
    const int64_t[::1] rows_b,
    const int64_t[::1] rows_c,
    int64_t[::1] rec_b,
    int64_t[::1] unrec_b,
    int64_t[::1] rec_c,
    int64_t[::1] unrec_c,
):
    """RSR window walk of both sides of every aligned pair: pair p's baseline is
    wasted[b_start[p]:][:b_len[p]], its candidate likewise, and its alignment rows are
    rows_b/rows_c[row_off[p]:row_off[p + 1]] (as align_pairs writes them)."""
    cdef Py_ssize_t p, pairs = b_start.shape[0]
    cdef int64_t r, longest = 1
    cdef int8_t* al_b
    cdef int8_t* al_c
    for p in range(pairs):
        longest = max(longest, b_len[p], c_len[p])
    al_b = <int8_t*> malloc(longest)
    al_c = <int8_t*> malloc(longest)
    if al_b == NULL or al_c == NULL:
        free(al_b)
        free(al_c)
        raise MemoryError()
    try:
        with nogil:
            for p in range(pairs):
                memset(al_b, 0, max(b_len[p], 1))
                memset(al_c, 0, max(c_len[p], 1))
                for r in range(row_off[p], row_off[p + 1]):
                    if rows_b[r] >= 0 and rows_c[r] >= 0:
                        al_b[rows_b[r]] = 1
                        al_c[rows_c[r]] = 1
                _walk(&wasted[b_start[p]], al_b, b_len[p], &rec_b[p], &unrec_b[p])
                _walk(&wasted[c_start[p]], al_c, c_len[p], &rec_c[p], &unrec_c[p])
    finally:
        free(al_b)
        free(al_c)


cdef inline bint _same(const int64_t* seq, int64_t x, int64_t y, int64_t k) noexcept nogil:
    """seq[x:x + k] == seq[y:y + k]."""
    cdef int64_t t
    for t in range(k):
        if seq[x + t] != seq[y + t]:
            return False
    return True


def loop_scan(
    const int64_t[::1] codes,
    const int64_t[::1] payloads,
    const int64_t[::1] off,
    int64_t n_codes,
    int64_t[::1] seq_out,
    int64_t[::1] start_out,
    int64_t[::1] length_out,
    int64_t[::1] iterations_out,
    int8_t[::1] stagnant_out,
):
    """The loops of every sequence (trajectory.loop_blocks on codes, values in [0, n_codes)),
    sequence by sequence and left to right; returns how many were written (the outputs need
    room for len(codes) // 2 + 1). stagnant: every repeat has the payloads of the first."""
    cdef Py_ssize_t seqs = off.shape[0] - 1
    cdef int64_t sq, lo, n, idx, i, p, k, end, limit, resume, t, code, found = 0
    cdef const int64_t* seq
    cdef const int64_t* pay
    cdef bint stagnant
    cdef int64_t* last = <int64_t*> malloc(max(n_codes, 1) * sizeof(int64_t))
    cdef int64_t* stamp = <int64_t*> malloc(max(n_codes, 1) * sizeof(int64_t))
    cdef int64_t* nxt = NULL
    cdef int64_t nxt_cap = 0
    cdef int64_t* grown
    if last == NULL or stamp == NULL:
        free(last)
        free(stamp)
        raise MemoryError()
    try:
        with nogil:
            for code in range(n_codes):
                stamp[code] = -1
            for sq in range(seqs):
                lo = off[sq]
                n = off[sq + 1] - lo
                if n < 2:
                    continue
                if n > nxt_cap:
                    grown = <int64_t*> realloc(nxt, n * sizeof(int64_t))
                    if grown == NULL:
                        with gil:
                            raise MemoryError()
                    nxt = grown
                    nxt_cap = n
                seq = &codes[lo]
                pay = &payloads[lo]
                # nxt[idx]: the next index holding the same code, n when none
                for idx in range(n - 1, -1, -1):
                    code = seq[idx]
                    nxt[idx] = last[code] if stamp[code] == sq else n
                    stamp[code] = sq
                    last[code] = idx
                resume = 0
                for i in range(n):
                    limit = i + (n - i) // 2
                    if i < resume or nxt[i] > limit:
                        continue
                    p = nxt[i]
                    while p <= limit:
                        k = p - i
                        if _same(seq, i, p, k):
                            end = p + k
                            while end + k <= n and _same(seq, i, end, k):
                                end += k
                            stagnant = True
                            for t in range(k, end - i):
                                if pay[i + t] != pay[i + t % k]:
                                    stagnant = False
                                    break
                            seq_out[found] = sq
                            start_out[found] = i
                            length_out[found] = k
                            iterations_out[found] = (end - i) // k
                            stagnant_out[found] = stagnant
                            found += 1
                            resume = end
                            break
                        p = nxt[p]
    finally:
        free(nxt)
        free(last)
        free(stamp)
    return found


def diff_lists(
    const int64_t[::1] row_off,
    const int8_t[::1] kind,
    const int64_t[::1] rows_b,
    const int64_t[::1] rows_c,
    const int64_t[::1] action,
    list actions,
    tuple names,
):
    """The step_diffs list of every pair: one dict per alignment row, {status, baseline_index,
    candidate_index, action}; status is names[kind] (0 matched, 1 modified, 2 added, 3
    removed), an index below 0 is None, actions[action] names the row's step. Pair p owns rows
    row_off[p]:row_off[p + 1]."""
    cdef Py_ssize_t pairs = row_off.shape[0] - 1
    cdef int64_t p, r, bi, ci, longest = 0
    cdef list out = PyList_New(pairs)
    cdef list rows
    cdef list ints
    cdef dict row
    cdef object none = None
    for r in range(rows_b.shape[0]):
        if rows_b[r] > longest:
            longest = rows_b[r]
        if rows_c[r] > longest:
            longest = rows_c[r]
    ints = list(range(longest + 1))
    for p in range(pairs):
        rows = PyList_New(row_off[p + 1] - row_off[p])
        for r in range(row_off[p], row_off[p + 1]):
            bi = rows_b[r]
            ci = rows_c[r]
            row = {
                "status": names[kind[r]],
                "baseline_index": ints[bi] if bi >= 0 else none,
                "candidate_index": ints[ci] if ci >= 0 else none,
                "action": actions[action[r]],
            }
            Py_INCREF(row)
            PyList_SET_ITEM(rows, r - row_off[p], row)
        Py_INCREF(rows)
        PyList_SET_ITEM(out, p, rows)
    return out


cdef struct _Buf:
    char* data
    Py_ssize_t size
    Py_ssize_t cap


cdef int _reserve(_Buf* buf, Py_ssize_t more) except -1:
    """Room in ``buf`` for ``more`` bytes past its size."""
    cdef Py_ssize_t cap = buf.cap
    cdef char* grown
    if buf.size + more <= cap:
        return 0
    while cap < buf.size + more:
        cap = cap * 2 if cap else 1 << 16
    grown = <char*> realloc(buf.data, cap)
    if grown == NULL:
        raise MemoryError()
    buf.data = grown
    buf.cap = cap
    return 0


cdef int _put(_Buf* buf, const char* text, Py_ssize_t n) except -1:
    _reserve(buf, n)
    memcpy(buf.data + buf.size, text, n)
    buf.size += n
    return 0


cdef int _put_int(_Buf* buf, int64_t value) except -1:
    """``value`` (>= 0) in decimal."""
    cdef char digits[24]
    cdef int n = 0
    cdef int k
    if value == 0:
        return _put(buf, b"0", 1)
    while value > 0:
        digits[n] = <char> (48 + value % 10)
        value //= 10
        n += 1
    _reserve(buf, n)
    for k in range(n):
        buf.data[buf.size + k] = digits[n - 1 - k]
    buf.size += n
    return 0


cdef int _put_text(
    _Buf* buf, const int64_t* off, const unsigned char* data, int64_t row
) except -1:
    """Text ``row`` of an Arrow string array (offsets ``off``, bytes ``data``)."""
    return _put(buf, <const char*> data + off[row], off[row + 1] - off[row])


cdef int _put_step(
    _Buf* buf,
    int64_t index,
    int64_t start,
    int64_t size,
    const int64_t[::1] slot_row,
    const int64_t* off,
    const unsigned char* data,
    list overrides,
) except -1:
    """The step ``index`` of the run whose slots are ``start:start + size``: its text, or
    ``null`` when it has none; a slot below -1 names overrides[-2 - slot]."""
    cdef int64_t row
    cdef bytes text
    if index < 0 or index >= size:
        return _put(buf, b"null", 4)
    row = slot_row[start + index]
    if row == -1:
        return _put(buf, b"null", 4)
    if row < -1:
        text = overrides[-2 - row]
        return _put(buf, text, len(text))
    return _put_text(buf, off, data, row)


def step_diffs_json(
    const int64_t[::1] row_off,
    const int8_t[::1] kind,
    const int64_t[::1] rows_b,
    const int64_t[::1] rows_c,
    const int64_t[::1] action,
    list action_json,
    const int64_t[::1] b_start,
    const int64_t[::1] b_size,
    const int64_t[::1] c_start,
    const int64_t[::1] c_size,
    const int64_t[::1] slot_row,
    const int64_t[::1] step_off,
    const unsigned char[::1] step_data,
    list overrides,
    list args,
):
    """The step_diffs array of each pair as compact JSON text (bytes), as diff_lists plus the
    steps and argument diffs, keys sorted: {action, argument_diff (modified rows only),
    baseline_index, baseline_step, candidate_index, candidate_step, status}. Pair p (rows
    row_off[p]:row_off[p + 1]) finds step i of its baseline at slot b_start[p] + i (i below
    b_size[p]), the candidate's likewise; slot_row[slot] is the step's text row in
    step_off/step_data (-1 none). The m-th modified row, counted from row_off[0], has the
    argument diff args[m] (JSON text, or None: null). action_json[action[r]]: the row's
    action as JSON text."""
    cdef Py_ssize_t pairs = row_off.shape[0] - 1
    cdef int64_t p, r, k, m = 0
    cdef bytes act
    cdef object arg
    cdef list out = PyList_New(pairs)
    cdef bytes text
    cdef _Buf buf
    cdef const unsigned char* sdata = &step_data[0] if step_data.shape[0] else NULL
    cdef const char* names[4]
    cdef Py_ssize_t lens[4]
    names[0] = b'"matched"}'
    names[1] = b'"modified"}'
    names[2] = b'"added"}'
    names[3] = b'"removed"}'
    for k in range(4):
        lens[k] = len(<bytes> names[k])
    buf.data = NULL
    buf.size = 0
    buf.cap = 0
    try:
        for p in range(pairs):
            buf.size = 0
            _put(&buf, b"[", 1)
            for r in range(row_off[p], row_off[p + 1]):
                if r > row_off[p]:
                    _put(&buf, b",", 1)
                _put(&buf, b'{"action":', 10)
                act = action_json[action[r]]
                _put(&buf, act, len(act))
                if kind[r] == 1:
                    _put(&buf, b',"argument_diff":', 17)
                    arg = args[m]
                    if arg is None:
                        _put(&buf, b"null", 4)
                    else:
                        _put(&buf, <bytes> arg, len(<bytes> arg))
                    m += 1
                _put(&buf, b',"baseline_index":', 18)
                if rows_b[r] < 0:
                    _put(&buf, b"null", 4)
                else:
                    _put_int(&buf, rows_b[r])
                _put(&buf, b',"baseline_step":', 17)
                _put_step(&buf, rows_b[r], b_start[p], b_size[p], slot_row, &step_off[0],
                          sdata, overrides)
                _put(&buf, b',"candidate_index":', 19)
                if rows_c[r] < 0:
                    _put(&buf, b"null", 4)
                else:
                    _put_int(&buf, rows_c[r])
                _put(&buf, b',"candidate_step":', 18)
                _put_step(&buf, rows_c[r], c_start[p], c_size[p], slot_row, &step_off[0],
                          sdata, overrides)
                _put(&buf, b',"status":', 10)
                _put(&buf, names[kind[r]], lens[kind[r]])
            _put(&buf, b"]", 1)
            text = buf.data[:buf.size]
            Py_INCREF(text)
            PyList_SET_ITEM(out, p, text)
    finally:
        free(buf.data)
    return out


# ---------------------------------------------------------------- argument diffs of inputs

cdef enum:
    _UNSAFE = 1  # NaN, Infinity, an exponent of 3 digits or a line break outside strings
    _ESCAPED = 2  # a string with a backslash escape

cdef enum:
    _STR = 0
    _NUM = 1
    _BOOL = 2
    _NULL = 3
    _OBJ = 4
    _ARR = 5
    _OTHER = 6


cdef struct _Member:
    int64_t key
    int64_t key_len
    int64_t value
    int64_t value_len
    int flags
    int kind


cdef inline int64_t _skip_ws(const unsigned char* s, int64_t i, int64_t n) noexcept:
    while i < n and (s[i] == 32 or s[i] == 9 or s[i] == 10 or s[i] == 13):
        i += 1
    return i


cdef int64_t _string_end(const unsigned char* s, int64_t i, int64_t n, int* flags) noexcept:
    """Past the closing quote of the string opening at s[i]; -1 when it does not close."""
    i += 1
    while i < n:
        if s[i] == 92:
            flags[0] |= _ESCAPED
            i += 2
        elif s[i] == 34:
            return i + 1
        else:
            i += 1
    return -1


cdef int64_t _value_end(const unsigned char* s, int64_t i, int64_t n, int* flags) noexcept:
    """Past the JSON value starting at s[i] (-1: malformed), flagging what needs care."""
    cdef int64_t depth = 0, j, digits
    cdef unsigned char c
    while i < n:
        c = s[i]
        if c == 34:
            i = _string_end(s, i, n, flags)
            if i < 0:
                return -1
            if depth == 0:
                return i
            continue
        if c == 123 or c == 91:  # { [
            depth += 1
        elif c == 125 or c == 93:  # } ]
            if depth == 0:
                return i
            depth -= 1
            if depth == 0:
                return i + 1
        elif depth == 0 and (c == 44 or c == 32 or c == 9 or c == 10 or c == 13):
            return i
        elif c == 10 or c == 13 or c == 78 or c == 73:  # line break, N(aN), I(nfinity)
            flags[0] |= _UNSAFE
        elif c == 101 or c == 69:  # an exponent of 3 digits may overflow a float
            j = i + 1
            if j < n and s[j] == 43:
                j += 1
            digits = 0
            while j < n and 48 <= s[j] <= 57:
                digits += 1
                j += 1
            if digits >= 3:
                flags[0] |= _UNSAFE
        i += 1
    return i if depth == 0 else -1


cdef inline int _kind(unsigned char c) noexcept:
    if c == 34:
        return _STR
    if c == 45 or 48 <= c <= 57:
        return _NUM
    if c == 116 or c == 102:
        return _BOOL
    if c == 110:
        return _NULL
    if c == 123:
        return _OBJ
    if c == 91:
        return _ARR
    return _OTHER


cdef int _members(
    const unsigned char* s, int64_t n, _Member** out, int64_t* count, int64_t* cap
) except -2:
    """The top-level members of the JSON text s[:n] into out (count): 0, or 1 when the text
    is not an object (it counts as {}), or -1 when it needs the Python reading (a key with an
    escape, malformed text)."""
    cdef int64_t i = _skip_ws(s, 0, n), end, value
    cdef int flags
    cdef _Member* grown
    count[0] = 0
    if i >= n or s[i] != 123:
        return 1
    i = _skip_ws(s, i + 1, n)
    if i < n and s[i] == 125:
        return 0
    while i < n:
        if s[i] != 34:
            return -1
        flags = 0
        end = _string_end(s, i, n, &flags)
        if end < 0 or flags:
            return -1
        if count[0] == cap[0]:
            cap[0] = cap[0] * 2 if cap[0] else 16
            grown = <_Member*> realloc(out[0], cap[0] * sizeof(_Member))
            if grown == NULL:
                raise MemoryError()
            out[0] = grown
        out[0][count[0]].key = i + 1
        out[0][count[0]].key_len = end - i - 2
        i = _skip_ws(s, end, n)
        if i >= n or s[i] != 58:
            return -1
        value = _skip_ws(s, i + 1, n)
        flags = 0
        end = _value_end(s, value, n, &flags)
        if end <= value:
            return -1
        out[0][count[0]].value = value
        out[0][count[0]].value_len = end - value
        out[0][count[0]].flags = flags
        out[0][count[0]].kind = _kind(s[value])
        count[0] += 1
        i = _skip_ws(s, end, n)
        if i < n and s[i] == 44:
            i = _skip_ws(s, i + 1, n)
        elif i < n and s[i] == 125:
            return 0
        else:
            return -1
    return -1


cdef inline int _key_cmp(const unsigned char* s, _Member* a, const unsigned char* t, _Member* b) noexcept:
    """Byte order of two keys (UTF-8 bytes sort as Python sorts the strings)."""
    cdef int64_t k = a.key_len if a.key_len < b.key_len else b.key_len
    cdef int c = memcmp(s + a.key, t + b.key, k)
    if c:
        return c
    return (a.key_len > b.key_len) - (a.key_len < b.key_len)


cdef int _sort_members(const unsigned char* s, _Member* m, int64_t count) noexcept:
    """Sort by key (insertion sort: inputs have few keys); 1 when a key is given twice."""
    cdef int64_t i, j
    cdef _Member item
    cdef int c
    for i in range(1, count):
        item = m[i]
        j = i - 1
        while j >= 0 and _key_cmp(s, &m[j], s, &item) > 0:
            m[j + 1] = m[j]
            j -= 1
        m[j + 1] = item
    for i in range(1, count):
        if _key_cmp(s, &m[i - 1], s, &m[i]) == 0:
            return 1
    return 0


cdef inline bint _plain_int(const unsigned char* s, _Member* m) noexcept:
    """An integer without sign tricks (-0 equals 0 as a value)."""
    cdef int64_t i = m.value, end = m.value + m.value_len
    if s[i] == 45:
        i += 1
        if i < end and s[i] == 48:
            return False
    if i >= end:
        return False
    while i < end:
        if not 48 <= s[i] <= 57:
            return False
        i += 1
    return True


cdef int _differ(const unsigned char* s, _Member* a, const unsigned char* t, _Member* b) noexcept:
    """0 same value, 1 different, -1 only a canonical reading can tell."""
    if a.value_len == b.value_len and memcmp(s + a.value, t + b.value, a.value_len) == 0:
        return 0
    if a.kind == _OTHER or b.kind == _OTHER:
        return -1
    if a.kind != b.kind:
        return 1
    if a.kind == _STR:
        return -1 if (a.flags | b.flags) & _ESCAPED else 1
    if a.kind == _NUM:
        return 1 if _plain_int(s, a) and _plain_int(t, b) else -1
    if a.kind == _BOOL or a.kind == _NULL:
        return 1
    return -1


cdef int _put_entry(
    _Buf* buf, const unsigned char* s, _Member* a, const unsigned char* t, _Member* b, bint first
) except -1:
    """``"key":{"new_value":..,"old_value":..,"status":..}`` (a: old side, b: new side)."""
    cdef _Member* named = a if a != NULL else b
    cdef const unsigned char* src = s if a != NULL else t
    if not first:
        _put(buf, b",", 1)
    _put(buf, b'"', 1)
    _put(buf, <const char*> src + named.key, named.key_len)
    _put(buf, b'":{', 3)
    if b != NULL:
        _put(buf, b'"new_value":', 12)
        _put(buf, <const char*> t + b.value, b.value_len)
        _put(buf, b",", 1)
    if a != NULL:
        _put(buf, b'"old_value":', 12)
        _put(buf, <const char*> s + a.value, a.value_len)
        _put(buf, b",", 1)
    if a == NULL:
        _put(buf, b'"status":"added"}', 17)
    elif b == NULL:
        _put(buf, b'"status":"removed"}', 19)
    else:
        _put(buf, b'"status":"changed"}', 19)
    return 0


cdef int _diff_text(
    _Buf* buf, const unsigned char* s, _Member* a, int64_t na,
    const unsigned char* t, _Member* b, int64_t nb,
) except -2:
    """The argument diff of two sorted member lists into buf: 1 written, 0 no key differs,
    -1 a value needs the Python reading."""
    cdef int64_t i = 0, j = 0
    cdef int c, d
    cdef bint first = True
    _put(buf, b"{", 1)
    while i < na or j < nb:
        if i >= na:
            c = 1
        elif j >= nb:
            c = -1
        else:
            c = _key_cmp(s, &a[i], t, &b[j])
        if c < 0:
            if a[i].flags & _UNSAFE:
                return -1
            _put_entry(buf, s, &a[i], t, NULL, first)
            i += 1
        elif c > 0:
            if b[j].flags & _UNSAFE:
                return -1
            _put_entry(buf, s, NULL, t, &b[j], first)
            j += 1
        else:
            d = _differ(s, &a[i], t, &b[j])
            if d < 0 or (d and (a[i].flags | b[j].flags) & _UNSAFE):
                return -1
            if d:
                _put_entry(buf, s, &a[i], t, &b[j], first)
            i += 1
            j += 1
            if not d:
                continue
        first = False
    _put(buf, b"}", 1)
    return 0 if first else 1


def argument_diffs(
    const int64_t[::1] b_row,
    const int64_t[::1] c_row,
    const int64_t[::1] text_off,
    const unsigned char[::1] text_data,
):
    """AgentDiff's per-key input diff (reference.argument_diff) of each modified row, as
    compact JSON text: keys sorted, values as their input spells them; None when no key
    differs. Row m compares the input text b_row[m] with c_row[m] of text_off/text_data (-1:
    no step, {}); an input that is not an object counts as {}. Returns the texts and the rows
    that need the Python reading (a key with an escape or given twice, values that only their
    canonical form can compare, or that strict JSON cannot write as they are)."""
    cdef Py_ssize_t rows = b_row.shape[0], m
    cdef list out = PyList_New(rows)
    cdef list python = []
    cdef object text
    cdef const unsigned char* data = &text_data[0] if text_data.shape[0] else <const unsigned char*> b""
    cdef const unsigned char* s
    cdef const unsigned char* t
    cdef int64_t ns, nt, na = 0, nb = 0, cap_a = 0, cap_b = 0
    cdef _Member* a = NULL
    cdef _Member* b = NULL
    cdef int ra, rb, done
    cdef _Buf buf
    buf.data = NULL
    buf.size = 0
    buf.cap = 0
    try:
        for m in range(rows):
            text = None
            s = data + (text_off[b_row[m]] if b_row[m] >= 0 else 0)
            ns = text_off[b_row[m] + 1] - text_off[b_row[m]] if b_row[m] >= 0 else 0
            t = data + (text_off[c_row[m]] if c_row[m] >= 0 else 0)
            nt = text_off[c_row[m] + 1] - text_off[c_row[m]] if c_row[m] >= 0 else 0
            if not (ns == nt and memcmp(s, t, ns) == 0):
                ra = _members(s, ns, &a, &na, &cap_a)
                rb = _members(t, nt, &b, &nb, &cap_b)
                done = -1
                if ra >= 0 and rb >= 0 and not _sort_members(s, a, na) \
                        and not _sort_members(t, b, nb):
                    buf.size = 0
                    done = _diff_text(&buf, s, a, na, t, b, nb)
                if done < 0:
                    python.append(m)
                elif done:
                    text = buf.data[:buf.size]
            Py_INCREF(text)
            PyList_SET_ITEM(out, m, text)
    finally:
        free(a)
        free(b)
        free(buf.data)
    return out, python


def place_rows(
    const int32_t[::1] rn,
    const int32_t[::1] idx,
    int64_t[::1] off,
    int64_t[::1] pos,
):
    """Run offsets (off[r]: where run r starts, off has runs + 1 entries) and each row's place
    pos[x] = off[rn[x]] + idx[x] in run-then-step order. Returns False, with off and pos
    unspecified, unless the idx of each run are exactly 0..n-1 once each."""
    cdef Py_ssize_t rows = rn.shape[0]
    cdef Py_ssize_t runs = off.shape[0] - 1
    cdef Py_ssize_t x
    cdef int64_t r, place
    cdef bint ok = True
    cdef int8_t* seen = <int8_t*> malloc(max(rows, 1))
    if seen == NULL:
        raise MemoryError()
    try:
        with nogil:
            memset(seen, 0, max(rows, 1))
            for r in range(runs + 1):
                off[r] = 0
            for x in range(rows):
                r = rn[x]
                if r < 0 or r >= runs:
                    ok = False
                    break
                off[r + 1] += 1
            if ok:
                for r in range(runs):
                    off[r + 1] += off[r]
                for x in range(rows):
                    r = rn[x]
                    if idx[x] < 0 or idx[x] >= off[r + 1] - off[r]:
                        ok = False
                        break
                    place = off[r] + idx[x]
                    if seen[place]:
                        ok = False
                        break
                    seen[place] = 1
                    pos[x] = place
    finally:
        free(seen)
    return ok


def run_sums(
    const int32_t[::1] rn,
    const int64_t[::1] values,
    const int8_t[::1] valid,
    int64_t[::1] sums,
    int8_t[::1] given,
):
    """Per run, the sum of its valid values (sums and given start at 0)."""
    cdef Py_ssize_t x
    with nogil:
        for x in range(rn.shape[0]):
            if valid[x]:
                sums[rn[x]] += values[x]
                given[rn[x]] = 1


def run_folds(
    const int32_t[::1] rn,
    const int64_t[::1] pos,
    const int64_t[::1] off,
    const double[::1] values,
    const int8_t[::1] valid,
    double[::1] folds,
    int8_t[::1] given,
):
    """Per run, the left-to-right float sum of its values in step order (rows placed by pos,
    missing values as 0.0), as Python's sum() gives it; given: some value was valid."""
    cdef Py_ssize_t x, runs = off.shape[0] - 1
    cdef int64_t r, k
    cdef double acc
    cdef double* placed = <double*> malloc(max(values.shape[0], 1) * sizeof(double))
    if placed == NULL:
        raise MemoryError()
    try:
        with nogil:
            for x in range(values.shape[0]):
                placed[pos[x]] = values[x] if valid[x] else 0.0
                if valid[x]:
                    given[rn[x]] = 1
            for r in range(runs):
                acc = 0.0
                for k in range(off[r], off[r + 1]):
                    acc = acc + placed[k]
                folds[r] = acc
    finally:
        free(placed)


def alignment_orders(
    const int64_t[::1] parent,
    const int64_t[::1] off,
    int64_t[::1] order,
    int8_t[::1] cycle,
):
    """AgentDiff's alignment order of every run (reference.alignment_order): run r owns
    parent[off[r]:off[r + 1]] (the parent's index within the run, -1 for none; one outside
    the run is none too) and gets order[off[r]:off[r + 1]], the step indices generation by
    generation (roots in step order, then their children parent by parent, each parent's
    children in step order), or 0..n-1 with cycle[r] = 1 when the parents form a cycle.
    Breadth-first over child lists, O(steps); returns True when some run is not in step
    order."""
    cdef Py_ssize_t runs = off.shape[0] - 1
    cdef int64_t total = parent.shape[0]
    cdef int64_t r, i, k, n, base, p, head, tail, node, child
    cdef bint moved = False
    cdef int64_t* first = <int64_t*> malloc(max(total, 1) * sizeof(int64_t))
    cdef int64_t* last = <int64_t*> malloc(max(total, 1) * sizeof(int64_t))
    cdef int64_t* nxt = <int64_t*> malloc(max(total, 1) * sizeof(int64_t))
    if first == NULL or last == NULL or nxt == NULL:
        free(first)
        free(last)
        free(nxt)
        raise MemoryError()
    try:
        with nogil:
            for r in range(runs):
                base = off[r]
                n = off[r + 1] - base
                cycle[r] = 0
                for i in range(n):
                    first[base + i] = -1
                    last[base + i] = -1
                    nxt[base + i] = -1
                tail = 0
                for i in range(n):  # roots in step order; child lists in step order
                    p = parent[base + i]
                    if p < 0 or p >= n:
                        order[base + tail] = i
                        tail += 1
                    elif last[base + p] < 0:
                        first[base + p] = i
                        last[base + p] = i
                    else:
                        nxt[base + last[base + p]] = i
                        last[base + p] = i
                head = 0
                while head < tail:  # the queue is the order: generation after generation
                    node = order[base + head]
                    head += 1
                    child = first[base + node]
                    while child >= 0:
                        order[base + tail] = child
                        tail += 1
                        child = nxt[base + child]
                if tail < n:
                    cycle[r] = 1
                    for i in range(n):
                        order[base + i] = i
                else:
                    for k in range(n):
                        if order[base + k] != k:
                            moved = True
                            break
    finally:
        free(first)
        free(last)
        free(nxt)
    return moved


def common_prefixes(
    const int64_t[::1] sig,
    const int64_t[::1] b_start,
    const int64_t[::1] b_len,
    const int64_t[::1] c_start,
    const int64_t[::1] c_len,
    int64_t[::1] out,
):
    """Length of the common prefix of each pair's two step sequences (sig[b_start[p]:][:b_len[p]]
    and likewise for the candidate): where they first differ; -1 when they are equal."""
    cdef Py_ssize_t p, pairs = b_start.shape[0]
    cdef int64_t k, n
    with nogil:
        for p in range(pairs):
            n = min(b_len[p], c_len[p])
            k = 0
            while k < n and sig[b_start[p] + k] == sig[c_start[p] + k]:
                k += 1
            out[p] = -1 if (k == n and b_len[p] == c_len[p]) else k


ctypedef struct _Call:
    int64_t sig
    int64_t payload


cdef int _cmp_calls(const void* a, const void* b) noexcept nogil:
    cdef const _Call* x = <const _Call*> a
    cdef const _Call* y = <const _Call*> b
    if x.sig != y.sig:
        return -1 if x.sig < y.sig else 1
    if x.payload != y.payload:
        return -1 if x.payload < y.payload else 1
    return 0


cdef extern from "stdlib.h":
    void qsort(void* base, size_t n, size_t size, int (*cmp)(const void*, const void*) noexcept nogil) nogil


def identical_calls(
    const int64_t[::1] sig,
    const int64_t[::1] payload,
    const int64_t[::1] off,
    int64_t[::1] out,
):
    """Per run (steps off[r]:off[r + 1]), the steps whose (signature, payload) an earlier step
    of the run already had: the run's steps sorted by that pair, equal neighbours counted."""
    cdef Py_ssize_t runs = off.shape[0] - 1
    cdef int64_t r, i, n, longest = 1, dup
    for r in range(runs):
        longest = max(longest, off[r + 1] - off[r])
    cdef _Call* buf = <_Call*> malloc(longest * sizeof(_Call))
    if buf == NULL:
        raise MemoryError()
    try:
        with nogil:
            for r in range(runs):
                n = off[r + 1] - off[r]
                for i in range(n):
                    buf[i].sig = sig[off[r] + i]
                    buf[i].payload = payload[off[r] + i]
                qsort(buf, n, sizeof(_Call), _cmp_calls)
                dup = 0
                for i in range(1, n):
                    if buf[i].sig == buf[i - 1].sig and buf[i].payload == buf[i - 1].payload:
                        dup += 1
                out[r] = dup
    finally:
        free(buf)
