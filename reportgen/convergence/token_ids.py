"""Exact integer ids for tokens given as (start, length) byte ranges of one buffer.

A token of up to 7 bytes is its bytes plus its length packed into a uint64 (equal keys if
and only if equal bytes); longer tokens are interned by Arrow's dictionary encoding of their
bytes. Both are numbered densely by Arrow's hash-based dictionary encoding: exact, not hashes.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from reportgen.archive.arrow import numbers, to_numpy

__all__ = ["dense_ids", "swar_token_ids", "token_ids", "words_at"]

I64 = npt.NDArray[np.int64]
U8 = npt.NDArray[np.uint8]
_SHORT = 7  # bytes that fit a uint64 key beside the length byte
_MASKS = np.array([(1 << (8 * n)) - 1 for n in range(_SHORT + 1)], dtype=np.uint64)
_LANES = np.uint64(0x0101010101010101)
_HIGH = np.uint64(0x8080808080808080)


def dense_ids(values: pa.Array) -> tuple[I64, int]:
    """Dense ids of equal values (Arrow's dictionary encoding) and how many distinct values."""
    encoded = pc.dictionary_encode(values)
    return to_numpy(encoded.indices).astype(np.int64), len(encoded.dictionary)


def words_at(data: U8, at: I64) -> npt.NDArray[np.uint64]:
    """The 8 bytes from each position (0..len(data)) as a little-endian uint64, zero bytes
    past the end."""
    safe = len(data) - 7
    if safe > 0:
        view = np.ndarray((safe,), dtype="<u8", buffer=data, strides=(1,))
        words = view[np.minimum(at, safe - 1)]
        late = np.flatnonzero(at >= safe)
    else:
        words = np.zeros(len(at), dtype=np.uint64)
        late = np.arange(len(at))
    if len(late):  # the last few positions read from a zero-padded copy of the tail
        base = max(len(data) - 8, 0)
        tail = np.zeros(16, dtype=np.uint8)
        tail[: len(data) - base] = data[base:]
        words[late] = np.ndarray((9,), dtype="<u8", buffer=tail, strides=(1,))[at[late] - base]
    return words


def _flags(words: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """SWAR: the high bit of the lowest byte lane below 33, alone (0 if no lane is below 33).

    ``(w - 0x21..21) & ~w & 0x80..80`` flags that lane exactly (higher lanes may be flagged
    spuriously: a borrow only moves up from a lane that is itself flagged); ``f & -f`` keeps
    the lowest flag. In-place operations: two temporaries for the whole computation."""
    flags = np.subtract(words, _LANES * np.uint64(33))
    other = np.invert(words)
    flags &= other
    flags &= _HIGH
    np.negative(flags, out=other)
    flags &= other
    return flags


def _lane(lowest: npt.NDArray[np.uint64]) -> I64:
    """Byte lane of the single set bit (bit 8k + 7) of each nonzero word, from its float exponent."""
    exponent = (lowest.astype(np.float64).view(np.int64) >> 52) - 1023
    return exponent >> 3


def _long_lengths(data: U8, starts: I64) -> I64:
    """Byte length of tokens known to be at least 8 bytes long (no byte below 33 inside)."""
    lengths = np.full(len(starts), 8, dtype=np.int64)
    todo = np.arange(len(starts))
    while len(todo):
        lowest = _flags(words_at(data, starts[todo] + lengths[todo]))
        done = lowest != 0
        lengths[todo[done]] += _lane(lowest[done])
        lengths[todo[~done]] += 8
        todo = todo[~done]
    return lengths


def swar_token_ids(data: U8, starts: I64) -> tuple[I64, int]:
    """Dense exact ids when every byte below 33 is whitespace: a token of up to 7 bytes is keyed
    by its bytes alone (they are all nonzero, so the key also fixes the length)."""
    keys = words_at(data, starts)
    mask = _flags(keys)
    if mask.all():  # every token is shorter than 8 bytes (the common case)
        mask >>= np.uint64(7)
        mask -= np.uint64(1)
        keys &= mask
        return dense_ids(numbers(keys, pa.uint64()))
    short = mask != 0
    keys &= (mask >> np.uint64(7)) - np.uint64(1)
    ids = np.empty(len(starts), dtype=np.int64)
    ids[short], n_short = dense_ids(numbers(keys[short], pa.uint64()))
    long_starts = starts[~short]
    long_bytes = _long_bytes(data, long_starts, _long_lengths(data, long_starts))
    long_ids, n_long = dense_ids(long_bytes)
    ids[~short] = long_ids + n_short
    return ids, n_short + n_long


def _short_keys(data: U8, starts: I64, lengths: I64) -> pa.Array:
    """uint64 keys of tokens of at most 7 bytes: the bytes, and the length in the top byte."""
    words = words_at(data, starts) & _MASKS[lengths]
    return numbers(words | (lengths.astype(np.uint64) << np.uint64(56)), pa.uint64())


def _long_bytes(data: U8, starts: I64, lengths: I64) -> pa.Array:
    """The tokens' bytes gathered into one binary array."""
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    gather = np.repeat(starts - offsets[:-1], lengths) + np.arange(offsets[-1])
    values = pa.py_buffer(np.ascontiguousarray(data[gather]))
    return pa.LargeBinaryArray.from_buffers(
        pa.large_binary(), len(lengths), [None, pa.py_buffer(offsets), values]
    )


def token_ids(data: U8, starts: I64, lengths: I64) -> tuple[I64, int]:
    """Dense exact id of every token, and the number of distinct tokens."""
    short = lengths <= _SHORT
    if short.all():
        return dense_ids(_short_keys(data, starts, lengths))
    ids = np.empty(len(starts), dtype=np.int64)
    short_ids, n_short = dense_ids(_short_keys(data, starts[short], lengths[short]))
    ids[short] = short_ids
    long_ = ~short
    long_ids, n_long = dense_ids(_long_bytes(data, starts[long_], lengths[long_]))
    ids[long_] = long_ids + n_short
    return ids, n_short + n_long
