"""Byte ranges of the wire buffer as Arrow strings: UTF-8 checked, JSON-quoted, hex, joined per owner.

Part of the bulk protobuf reader: `proto_wire.py` says how it works."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .spans import dumps
from .proto_levels import PAD, Wire, Level, Fields
from .proto_fields import _one, _ranges


# ---- texts --------------------------------------------------------------------------

def _texts(w: Wire, start: np.ndarray, end: np.ndarray, reqs: np.ndarray) -> pa.Array:
    """The byte ranges as an Arrow string array; invalid UTF-8 fails its request (upb refuses it)."""
    n = len(start)
    if n == 0:
        return pa.array([], pa.string())
    if n > 1 and not (start[1:] >= end[:-1]).all():
        order = np.argsort(start, kind="stable")
        back = np.empty(n, np.int64)
        back[order] = np.arange(n)
        return _texts(w, start[order], end[order], reqs[order]).take(pa.array(back))
    # Offsets s0,e0,s1,e1,... over the whole buffer: the even elements are the ranges.
    offsets = np.empty(2 * n, np.int64)
    offsets[0::2] = start
    offsets[1::2] = end
    both = pa.LargeBinaryArray.from_buffers(pa.large_binary(), 2 * n - 1, [None, pa.py_buffer(offsets), w.buffer])
    binary = both.take(pa.array(np.arange(0, 2 * n, 2)))
    try:
        return binary.cast(pa.string())
    except pa.ArrowInvalid:
        values = binary.to_pylist()
        bad = [i for i, v in enumerate(values) if not _is_utf8(v)]
        w.fail(reqs[bad])
        for i in bad:
            values[i] = b""
        return pa.array(values, pa.large_binary()).cast(pa.string())


def _text(w: Wire, f: Fields, lvl: Level, num: int) -> pa.Array:
    """Per message of `lvl`, the text of its singular field `num` ("" when absent)."""
    return _texts(w, *_ranges(f, _one(f, num, len(lvl)), lvl), lvl.req)


def _is_utf8(v: bytes) -> bool:
    try:
        v.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


_SPECIAL = np.zeros(256, bool)  # the bytes json.dumps(ensure_ascii=False) escapes in a string
_SPECIAL[:0x20] = _SPECIAL[0x22] = _SPECIAL[0x5C] = True
_ESCAPED = np.arange(256, dtype=np.uint8)  # the letter after the backslash
for _char, _letter in zip(b'\n\r\t\b\f', b"nrtbf"):
    _ESCAPED[_char] = _letter
_UNICODE_ESCAPED = _SPECIAL.copy()  # written as \u00XX: rare, left to json itself
_UNICODE_ESCAPED[[0x22, 0x5C, *b'\n\r\t\b\f']] = False


def _quoted(texts: pa.Array) -> pa.Array:
    """JSON string literals, as `spans.dumps` writes them (ensure_ascii=False).

    Done on the bytes: a backslash goes in before each byte to escape, a quote
    at both ends of each string (ASCII inserted next to ASCII keeps UTF-8 valid).
    """
    n = len(texts)
    if not n:
        return texts
    assert texts.null_count == 0
    offsets = np.frombuffer(texts.buffers()[1], np.int32)[texts.offset:texts.offset + n + 1].astype(np.int64)
    data = texts.buffers()[2]
    d = np.frombuffer(data, np.uint8)[offsets[0]:offsets[-1]] if data is not None else np.zeros(0, np.uint8)
    offsets -= offsets[0]
    special = np.flatnonzero(_SPECIAL[d])
    if len(special):
        body = np.insert(d, special, 0x5C)
        body[special + np.arange(1, len(special) + 1)] = _ESCAPED[d[special]]
        moved = offsets + np.searchsorted(special, offsets)
    else:
        body, moved = d, offsets
    ends = np.empty(2 * n, np.int64)
    ends[0::2] = moved[:-1]
    ends[1::2] = moved[1:]
    out = np.insert(body, ends, 0x22)
    new_offsets = (moved + 2 * np.arange(n + 1)).astype(np.int32)
    quoted = pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(new_offsets), pa.py_buffer(out)])
    odd = special[_UNICODE_ESCAPED[d[special]]] if len(special) else special
    if len(odd):
        which = np.unique(np.searchsorted(offsets, odd, side="right") - 1)
        mask = np.zeros(n, bool)
        mask[which] = True
        quoted = pc.replace_with_mask(quoted, pa.array(mask), pa.array(
            [dumps(x) for x in texts.take(pa.array(which)).to_pylist()], pa.string()))
    return quoted


_HEX_PAIRS = np.array([int.from_bytes(f"{i:02x}".encode(), "little") for i in range(256)], np.uint16)


def _hex(raw: np.ndarray, valid: np.ndarray | None = None) -> pa.Array:
    """Lower-case hex of the rows of a (n, k) byte matrix; null where not `valid`."""
    n, k = raw.shape
    out = _HEX_PAIRS[raw]
    offsets = np.arange(0, 2 * k * (n + 1), 2 * k, dtype=np.int32)
    bitmap = None if valid is None else pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(pa.string(), n, [bitmap, pa.py_buffer(offsets), pa.py_buffer(out)])


def _bytes_at(w: Wire, start: np.ndarray, nbytes: int) -> np.ndarray:
    """The nbytes (8 or 16) from each start, as rows of a byte matrix."""
    start = np.minimum(start, len(w.b) - PAD)
    words = w.words[start] if nbytes == 8 else np.stack([w.words[start], w.words[start + 8]], axis=1)
    return words.view(np.uint8).reshape(len(start), nbytes)


def _joined(pieces: pa.Array, owner: np.ndarray, n_owners: int, sep: str) -> pa.Array:
    """Per owner, its pieces (contiguous, in order) joined by `sep`."""
    counts = np.bincount(owner, minlength=n_owners)
    offsets = np.zeros(n_owners + 1, np.int32)
    np.cumsum(counts, out=offsets[1:])
    return pc.binary_join(pa.ListArray.from_arrays(pa.array(offsets), pieces), sep)
