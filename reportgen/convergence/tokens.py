"""Tokenise many outputs at once into dense integer token ids, exactly like ``tokenize``.

``tokenize(text)`` is ``text.lower().split()``. For ASCII text that is: lowercase A-Z and split
on the ten ASCII bytes ``str.isspace()`` accepts (TAB, LF, VT, FF, CR, FS, GS, RS, US, space).
That runs on the UTF-8 bytes of every output together, in numpy. An output with any non-ASCII
character is first replaced by ``" ".join(text.lower().split())`` in Python (full Unicode
lowercasing and whitespace, then the same byte path finds the same tokens), so the result is
exact for every input; only such outputs pay Python's per-string cost.

Token ids are exact (equal ids if and only if equal token text), not hashes: a token of up to 7
bytes is its bytes plus its length packed into a uint64; longer tokens are interned by Arrow's
dictionary encoding. Both are then numbered densely.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from reportgen.archive.arrow import combined
from reportgen.convergence.token_ids import swar_token_ids, token_ids

__all__ = ["Tokens", "as_string_array", "tokenize_all"]

I64 = npt.NDArray[np.int64]
# bytes below 32 that str.isspace() does not accept: they are part of tokens
_CONTROL_WORD = np.array([c < 32 and not chr(c).isspace() for c in range(256)], dtype=bool)


@dataclass(frozen=True, slots=True)
class Tokens:
    """Token ids of N outputs: output r has ``ids[offsets[r]:offsets[r + 1]]``."""

    ids: I64
    offsets: I64
    vocab_size: int
    data: npt.NDArray[np.uint8]  # lowered UTF-8 bytes, one space after each output
    word: npt.NDArray[np.bool_]  # which bytes belong to tokens
    starts: I64  # first byte of each token

    def texts(self, which: I64) -> list[str]:
        """The (lowercased) text of the given tokens."""
        starts = self.starts[which]
        ends = starts.copy()
        going = np.arange(len(ends))
        while len(going):  # every output ends with a space, so this stops
            going = going[self.word[ends[going]]]
            ends[going] += 1
        offsets = np.zeros(len(starts) + 1, dtype=np.int64)
        np.cumsum(ends - starts, out=offsets[1:])
        gather = np.repeat(starts - offsets[:-1], ends - starts) + np.arange(offsets[-1])
        values = pa.py_buffer(np.ascontiguousarray(self.data[gather]))
        arr = pa.LargeStringArray.from_buffers(len(starts), pa.py_buffer(offsets), values)
        return [str(t) for t in arr.to_pylist()]


def as_string_array(outputs: pa.Array | pa.ChunkedArray | list[str]) -> pa.LargeStringArray:
    """One contiguous large_string array (int64 offsets) without nulls."""
    if isinstance(outputs, list):
        outputs = pa.array(outputs, type=pa.large_string())
    if isinstance(outputs, pa.ChunkedArray):
        outputs = combined(outputs)
    arr = outputs.cast(pa.large_string())
    if arr.null_count:
        raise ValueError("outputs must not contain nulls")
    assert isinstance(arr, pa.LargeStringArray)
    return arr


def _ascii_only(arr: pa.LargeStringArray) -> pa.LargeStringArray:
    """Replace every non-ASCII output by its Python tokens joined with single spaces."""
    data, _ = _buffers(arr)
    if len(data) == 0 or int(data.max()) < 0x80:
        return arr
    mask = pc.invert(pc.string_is_ascii(arr))
    if not pc.any(mask).as_py():
        return arr
    texts = arr.filter(mask).to_pylist()
    fixed = pa.array([" ".join(t.lower().split()) for t in texts], type=pa.large_string())
    out = pc.replace_with_mask(arr, mask, fixed)
    assert isinstance(out, pa.LargeStringArray)
    return out


def _buffers(arr: pa.LargeStringArray) -> tuple[npt.NDArray[np.uint8], I64]:
    """The array's bytes (from its first output on) and its offsets into them."""
    raw_offsets = np.frombuffer(arr.buffers()[1], dtype=np.int64)
    offsets = raw_offsets[arr.offset : arr.offset + len(arr) + 1]
    base = int(offsets[0]) if len(offsets) else 0
    end = int(offsets[-1]) if len(offsets) else 0
    data_buf = arr.buffers()[2]
    data = np.frombuffer(data_buf, dtype=np.uint8)[base:end] if data_buf else np.zeros(0, np.uint8)
    return data, (offsets - base).astype(np.int64)


def _word_bytes(data: npt.NDArray[np.uint8]) -> tuple[npt.NDArray[np.bool_], bool]:
    """Which bytes belong to tokens, and whether every byte below 33 is whitespace."""
    word = data > 32
    ctrl = np.flatnonzero(data < 32)
    if len(ctrl) == 0:
        return word, True
    codes = data[ctrl]
    word[ctrl] = _CONTROL_WORD[codes]
    return word, not _CONTROL_WORD[codes].any()


def _starts(word: npt.NDArray[np.bool_]) -> I64:
    """First byte of every token (each output ends with a space, so none spans two)."""
    starts = np.flatnonzero(word[1:] > word[:-1])
    starts += 1
    if len(word) and word[0]:
        starts = np.concatenate(([0], starts))
    return starts


def _text(value: str) -> pa.Scalar:
    """A large_string scalar built from buffers (``pa.scalar`` imports pandas, 0.3 s)."""
    data = value.encode()
    offsets = pa.py_buffer(np.array([0, len(data)], dtype=np.int64))
    return pa.LargeStringArray.from_buffers(1, offsets, pa.py_buffer(data))[0]


def tokenize_all(outputs: pa.Array | pa.ChunkedArray | list[str]) -> Tokens:
    """Token ids of every output, equal to ``tokenize`` output by output."""
    arr = _ascii_only(as_string_array(outputs))
    spaced = pc.ascii_lower(pc.binary_join_element_wise(arr, _text(""), _text(" ")))
    data, offsets = _buffers(spaced)
    word, swar = _word_bytes(data)
    starts = _starts(word)
    if swar:
        ids, vocab = swar_token_ids(data, starts)
    else:  # a control byte is part of a token: find every token's end byte by byte
        ends = np.flatnonzero(word[:-1] & ~word[1:]).astype(np.int64) + 1
        ids, vocab = token_ids(data, starts, ends - starts)
    tok_offsets = np.searchsorted(starts, offsets).astype(np.int64)
    return Tokens(ids, tok_offsets, vocab, data, word, starts)
