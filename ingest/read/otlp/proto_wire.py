"""OTLP protobuf requests to `otel_spans` rows, read in bulk from the wire format.

`proto.add_request` walks upb message objects span by span and attribute by
attribute; it is the reference. `decode_buffer` (what the file reader calls,
on requests laid end to end in one buffer) and `decode_requests` (on a list of
them) give the same Arrow table (same rows, same order, the same JSON texts
byte for byte) and the same rejected-span errors, without Python work per span
or per attribute.

How: the wire format is read one nesting level at a time, for all messages of
that level at once (requests, ResourceSpans, Resource and ScopeSpans, Span,
then KeyValue and AnyValue). Each step of `_scan` reads the next field of every
message still open with numpy (varints are decoded by gathering bytes and
masking the continuation bit), so the number of numpy steps is the largest
field count of one message, not the number of fields. When only a few messages
are still open (one ScopeSpans holding a million spans), a plain loop finishes
them, so one long message costs linear time. KeyValues of the canonical shape
(a key, then one string, bool, int or double) are read in a single pass. Byte
ranges become Arrow string arrays without a copy per string (`_texts`; the
cast to string checks UTF-8 as upb does), and each owner's attribute object is
cut from one Arrow `take` over key and value texts (`_objects`).

Anything this reader does not reproduce exactly sends the whole request to the
reference walk, so results never differ: malformed varints or lengths, groups
and invalid wire types, a known field with an unexpected wire type, a singular
field or oneof member given twice (protobuf merges those), fields upb knows
that this reader does not handle (KeyValue.key_strindex, Resource.entity_refs,
...), invalid UTF-8 (upb's DecodeError then quarantines the request with its
own message), very deep nested values, and requests over MAX_FAST_BYTES
(bounded memory). A span whose times are past int64 is rejected with the
reference's reason (`proto.span_problem`). Unknown fields with valid wire types
are skipped, as upb does. The rare value shapes are converted one value at a
time: arrays and kvlists by the reference's `proto.any_value`, bytes (base64)
and doubles (NaN and infinities as null) here, by the same rules.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, InstrumentationScope, KeyValue
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span, Status

from . import proto
from .spans import SPAN_KINDS, STATUS_CODES, SpanBatch, dumps, micros
from ....queries.warehouse.types import arrow_schema

PAD = proto.PAD  # zero bytes after the data, so a varint or fixed64 read near the end stays in the array
SCALAR_BELOW = 24  # open messages under this: the rest of their fields are read by a Python loop
MAX_FAST_BYTES = proto.DECODE_BYTES_MAX  # larger requests take the reference walk (memory stays bounded)
MAX_NESTING = 90  # nested values deeper than this (upb stops at 100) take the reference walk

VARINT, I64, LEN, I32 = 0, 1, 2, 5


def _layout(descriptor, handled: dict[int, tuple[int, bool]]):
    """Per field number: expected wire type (-1 unknown to upb, -2 known but not read here), singular.

    The arrays end with one slot past the largest known number; larger numbers are looked up there.
    """
    size = max([62, *(f.number for f in descriptor.fields)]) + 2
    wire = np.full(size, -1, np.int64)
    singular = np.zeros(size, bool)
    for f in descriptor.fields:
        wire[f.number] = -2
    for number, (wt, single) in handled.items():
        assert wire[number] == -2, f"{descriptor.full_name} has no field {number}"
        wire[number], singular[number] = wt, single
    return wire, singular


# field number -> (wire type, singular); upb's descriptors say which other fields exist.
REQUEST = _layout(ExportTraceServiceRequest.DESCRIPTOR, {1: (LEN, False)})
RESOURCE_SPANS = _layout(ResourceSpans.DESCRIPTOR, {1: (LEN, True), 2: (LEN, False), 3: (LEN, True)})
RESOURCE = _layout(Resource.DESCRIPTOR, {1: (LEN, False), 2: (VARINT, True)})
SCOPE_SPANS = _layout(ScopeSpans.DESCRIPTOR, {1: (LEN, True), 2: (LEN, False), 3: (LEN, True)})
SCOPE = _layout(InstrumentationScope.DESCRIPTOR, {1: (LEN, True), 2: (LEN, True), 3: (LEN, False), 4: (VARINT, True)})
SPAN = _layout(Span.DESCRIPTOR, {
    1: (LEN, True), 2: (LEN, True), 3: (LEN, True), 4: (LEN, True), 5: (LEN, True), 6: (VARINT, True),
    7: (I64, True), 8: (I64, True), 9: (LEN, False), 10: (VARINT, True), 11: (LEN, False), 12: (VARINT, True),
    13: (LEN, False), 14: (VARINT, True), 15: (LEN, True), 16: (I32, True)})
STATUS = _layout(Status.DESCRIPTOR, {2: (LEN, True), 3: (VARINT, True)})
EVENT = _layout(Span.Event.DESCRIPTOR, {1: (I64, True), 2: (LEN, True), 3: (LEN, False), 4: (VARINT, True)})
LINK = _layout(Span.Link.DESCRIPTOR, {1: (LEN, True), 2: (LEN, True), 3: (LEN, True), 4: (LEN, False),
                                      5: (VARINT, True), 6: (I32, True)})
KEY_VALUE = _layout(KeyValue.DESCRIPTOR, {1: (LEN, True), 2: (LEN, True)})
ANY_VALUE = _layout(AnyValue.DESCRIPTOR, {1: (LEN, True), 2: (VARINT, True), 3: (VARINT, True), 4: (I64, True),
                                          5: (LEN, True), 6: (LEN, True), 7: (LEN, True)})

_KIND_NAMES = pa.array([SPAN_KINDS[i] for i in range(len(SPAN_KINDS))], pa.string())
_CODE_NAMES = pa.array([STATUS_CODES[i] for i in range(len(STATUS_CODES))], pa.string())


class Wire:
    """The bytes of a batch of requests, and which requests must take the reference walk.

    `raw` ends with PAD zero bytes that belong to no request, so a varint or
    fixed64 read near the end stays in the array.
    """

    def __init__(self, raw: bytes | bytearray, start: np.ndarray, end: np.ndarray) -> None:
        assert len(raw) >= PAD and not any(raw[len(raw) - PAD:])
        self.raw = raw
        self.b = np.frombuffer(raw, np.uint8)
        # the 8 bytes from every position as one little-endian word (an unaligned strided view)
        self.words = np.ndarray((len(raw) - 7,), "<u8", raw, 0, (1,))
        self.buffer = pa.py_buffer(raw)
        self.start = np.asarray(start, np.int64)
        self.end = np.asarray(end, np.int64)
        self.bad = self.end - self.start > MAX_FAST_BYTES

    @classmethod
    def joined(cls, datas: list[bytes]) -> Wire:
        lens = np.fromiter(map(len, datas), np.int64, len(datas))
        end = np.cumsum(lens)
        return cls(b"".join([*datas, bytes(PAD)]), end - lens, end)

    def request(self, r: int) -> bytes:
        return bytes(self.raw[self.start[r]:self.end[r]])

    def fail(self, reqs) -> None:
        self.bad[reqs] = True


@dataclass
class Level:
    """Messages of one type: byte ranges, the parent message (index) and the request of each."""

    start: np.ndarray
    end: np.ndarray
    parent: np.ndarray
    req: np.ndarray

    def __len__(self) -> int:
        return len(self.start)


@dataclass
class Fields:
    """The fields of the messages of a Level, in the order they were read.

    `start:end` is the payload of a length-delimited field, else the bytes of the
    value; `val` the varint or the fixed64/fixed32 bits; `rank` the place of the
    field when the fields are listed message by message in wire order.
    """

    msg: np.ndarray
    num: np.ndarray
    wt: np.ndarray
    start: np.ndarray
    end: np.ndarray
    val: np.ndarray
    rank: np.ndarray

    def keep(self, mask: np.ndarray) -> Fields:
        return Fields(*(a[mask] for a in (self.msg, self.num, self.wt, self.start, self.end, self.val, self.rank)))

    def numbered(self, num: int) -> np.ndarray:
        """Indices of the fields with number `num` (below 63: the larger ones share one group)."""
        assert num < 63
        groups = self.__dict__.get("_groups")
        if groups is None:
            small = np.minimum(self.num, 63).astype(np.uint8)
            order = np.argsort(small, kind="stable")
            bounds = np.zeros(65, np.int64)
            np.cumsum(np.bincount(small, minlength=64), out=bounds[1:])
            groups = self.__dict__["_groups"] = (order, bounds)
        order, bounds = groups
        return order[bounds[num]:bounds[num + 1]]


# ---- reading fields -----------------------------------------------------------------

def _varints(b: np.ndarray, p: np.ndarray):
    """Varints at positions p: (value as uint64, position after, ok)."""
    x = b[p]
    i = np.flatnonzero(x >= 0x80)
    if not len(i):
        return x.astype(np.uint64), p + 1, None
    v = x.astype(np.uint64)
    n = np.ones(len(p), np.int64)
    ok = np.ones(len(p), bool)
    v[i] &= np.uint64(0x7F)
    for k in range(1, 10):
        bk = b[p[i] + k]
        v[i] |= (bk & 0x7F).astype(np.uint64) << np.uint64(7 * k)
        n[i] += 1
        if k == 9:
            ok[i[bk > 1]] = False  # past 64 bits: leave it to upb
        i = i[bk >= 0x80]
        if not len(i):
            break
    return v, p + n, ok


def _length_delimited(b: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Length-prefixed values at positions p: (start, end, ok); a length of 2^31 or more is not ok
    (and gives an empty range)."""
    length, start, ok = _varints(b, p)
    small = length < np.uint64(1 << 31)
    ok = small if ok is None else ok & small
    return start, start + np.where(small, length, 0).astype(np.int64), ok


def _fixed64(w: Wire, p: np.ndarray) -> np.ndarray:
    return w.words[np.minimum(p, len(w.b) - PAD)]


def _step_len(b: np.ndarray, p: np.ndarray, lim: np.ndarray):
    """One field of each message when all are length-delimited with a one-byte tag (spans in a ScopeSpans).

    Returns (num, start, end) or None when the general step is needed.
    """
    tag = b[p]
    if tag.max() >= 0x80 or tag.min() < 8 or ((tag & 7) != LEN).any():
        return None
    start, end, ok = _length_delimited(b, p + 1)
    if not ok.all() or (end > lim).any():
        return None
    return tag >> 3, start, end


def _fields(w: Wire, lvl: Level, layout) -> Fields:
    """All fields of all messages of `lvl`, checked against `layout`."""
    fields, unordered = _scan(w, lvl, layout[1])
    return _check(w, fields, lvl, layout, unordered)


def _scan(w: Wire, lvl: Level, singular: np.ndarray) -> tuple[Fields, np.ndarray]:
    """All fields of all messages of `lvl` (a malformed message fails its request).

    Also returns the messages whose singular fields are not in increasing order
    (canonical writers order fields by number), the only ones that may hold one twice.
    """
    b = w.b
    pos = lvl.start.copy()
    ends = lvl.end
    parts = []
    last_single = np.zeros(len(lvl), np.int64)
    unordered = []
    active = np.flatnonzero(pos < ends)
    seq = 0
    while len(active):
        if len(active) < SCALAR_BELOW:
            parts.append(_scan_loop(w, active, pos, ends, seq, lvl.req, singular, last_single, unordered))
            break
        p = pos[active]
        lim = ends[active]
        lean = _step_len(b, p, lim)
        if lean is not None:
            num, start, end = lean
            parts.append((active, seq, num, LEN, start, end, None))
        else:
            ok, num, wt, start, end, val = _step(w, p, lim)
            if not ok.all():
                w.fail(lvl.req[active[~ok]])
                active, num, wt, start, end, val, lim = (a[ok] for a in (active, num, wt, start, end, val, lim))
            parts.append((active, seq, num, wt, start, end, val))
        single = singular[np.minimum(num, len(singular) - 1)]
        if single.any():
            i = np.flatnonzero(single)
            m, k = active[i], num[i]
            back = k <= last_single[m]
            if back.any():
                unordered.append(m[back])
            last_single[m] = k
        pos[active] = end
        active = active[end < lim]
        seq += 1
    z = np.zeros(0, np.int64)
    unordered = np.unique(np.concatenate(unordered)) if unordered else z
    if not parts:
        return Fields(z, z, z, z, z, np.zeros(0, np.uint64), z), unordered
    sizes = [len(part[0]) for part in parts]
    msg = np.concatenate([part[0] for part in parts])
    sq = np.concatenate([np.broadcast_to(np.asarray(part[1], np.int64), (n,)) for part, n in zip(parts, sizes)])
    num = np.concatenate([part[2] for part in parts]).astype(np.int64)
    wt = np.concatenate([np.broadcast_to(np.asarray(part[3], np.int64), (n,)) for part, n in zip(parts, sizes)])
    start = np.concatenate([part[4] for part in parts])
    end = np.concatenate([part[5] for part in parts])
    val = np.concatenate([np.zeros(n, np.uint64) if part[6] is None else part[6] for part, n in zip(parts, sizes)])
    # message by message, the k-th field of message m is at first[m] + k
    counts = np.bincount(msg, minlength=len(lvl))
    first = np.cumsum(counts) - counts
    f = Fields(msg, num, wt, start, end, val, first[msg] + sq)
    bad = w.bad[lvl.req[f.msg]]
    return (f.keep(~bad) if bad.any() else f), unordered


def _step(w: Wire, p: np.ndarray, lim: np.ndarray):
    """The next field of each message, any wire type: (ok, num, wt, start, end, val)."""
    b = w.b
    tag, q, ok = _varints(b, p)
    good = (tag < np.uint64(1 << 32)) & (tag >= np.uint64(8))
    ok = good if ok is None else ok & good
    tag = np.where(ok, tag, 0).astype(np.int64)
    num, wt = tag >> 3, tag & 7
    start, end = q.copy(), q.copy()
    val = np.zeros(len(p), np.uint64)
    i = np.flatnonzero(wt == VARINT)
    if len(i):
        val[i], end[i], oki = _varints(b, q[i])
        if oki is not None:
            ok[i] &= oki
    i = np.flatnonzero(wt == I64)
    if len(i):
        end[i] = q[i] + 8
        val[i] = _fixed64(w, q[i])
    i = np.flatnonzero(wt == I32)
    if len(i):
        end[i] = q[i] + 4
        val[i] = _fixed64(w, q[i]) & np.uint64(0xFFFFFFFF)
    i = np.flatnonzero(wt == LEN)
    if len(i):
        start[i], end[i], oki = _length_delimited(b, q[i])
        ok[i] &= oki
    ok &= (wt == VARINT) | (wt == I64) | (wt == I32) | (wt == LEN)
    ok &= end <= lim
    return ok, num, wt, start, end, val


def _scan_loop(w: Wire, active: np.ndarray, pos: np.ndarray, ends: np.ndarray, seq0: int, reqs: np.ndarray,
               singular: np.ndarray, last_single: np.ndarray, unordered: list):
    """The rest of the fields of a few long messages, one field at a time."""
    raw = w.raw
    single = set(np.flatnonzero(singular).tolist())
    cols = ([], [], [], [], [], [], [])
    msgs, seqs, nums, wts, starts, ends_, vals = cols
    for m in active.tolist():
        p, lim, k = int(pos[m]), int(ends[m]), seq0
        last = int(last_single[m])
        while p < lim:
            tag, p = _varint(raw, p, lim)
            num, wt = tag >> 3, tag & 7
            if tag < 8 or tag >= 1 << 32:
                p = -1
            elif wt == VARINT:
                val, q = _varint(raw, p, lim)
                start, end, p = p, q, q
            elif wt == LEN:
                length, start = _varint(raw, p, lim)
                end = p = start + length if length < 1 << 31 else -1
                val = 0
            elif wt == I64 or wt == I32:
                start, end = p, p + (8 if wt == I64 else 4)
                val = int.from_bytes(raw[p:end], "little")
                p = end
            else:
                p = -1
            if p < 0 or p > lim:
                w.fail(reqs[m])
                break
            if num in single:
                if num <= last:
                    unordered.append(np.array([m]))
                last = num
            msgs.append(m)
            seqs.append(k)
            nums.append(num)
            wts.append(wt)
            starts.append(start)
            ends_.append(end)
            vals.append(val)
            k += 1
    as_i = lambda x: np.array(x, np.int64)  # noqa: E731
    return (as_i(msgs), as_i(seqs), as_i(nums), as_i(wts), as_i(starts), as_i(ends_), np.array(vals, np.uint64))


def _varint(raw: bytes, p: int, lim: int) -> tuple[int, int]:
    """(value, position after); position -1 when malformed."""
    if p >= lim:
        return 0, -1
    x = raw[p]
    if x < 0x80:
        return x, p + 1
    value, shift = 0, 0
    while True:
        if p >= lim or shift > 63:
            return 0, -1
        x = raw[p]
        p += 1
        if shift == 63 and x > 1:
            return 0, -1
        value |= (x & 0x7F) << shift
        if x < 0x80:
            return value, p
        shift += 7


def _check(w: Wire, f: Fields, lvl: Level, layout, unordered: np.ndarray) -> Fields:
    """Fail the requests of messages that use a field in a way the fast path does not copy."""
    wire, singular = layout
    n = np.minimum(f.num, len(wire) - 1)
    expected = wire[n]
    wrong = (expected == -2) | ((expected >= 0) & (expected != f.wt))
    if len(unordered):  # a singular field given twice? (protobuf would merge, or keep the last)
        suspect = np.zeros(len(lvl), bool)
        suspect[unordered] = True
        mine = np.flatnonzero(suspect[f.msg] & singular[n])
        pair = np.sort(f.msg[mine] * len(wire) + n[mine])
        twice = pair[1:][pair[1:] == pair[:-1]] // len(wire)
        wrong[mine[np.isin(f.msg[mine], twice)]] = True
    if wrong.any():
        w.fail(lvl.req[f.msg[wrong]])
        return f.keep(~w.bad[lvl.req[f.msg]])
    return f


def _child(f: Fields, lvl: Level, num: int) -> Level:
    i = f.numbered(num)
    if len(i) > 1 and (np.diff(f.rank[i]) < 0).any():  # wire order, via a counting sort of the ranks
        slots = np.full(int(f.rank[i].max()) + 1, -1, np.int64 if len(f.rank) >= 1 << 31 else np.int32)
        slots[f.rank[i]] = i
        i = slots[slots >= 0]
    parent = f.msg[i]
    return Level(f.start[i], f.end[i], parent, lvl.req[parent])


def _one(f: Fields, num: int, n: int) -> np.ndarray:
    """Per message, the index of its field `num` in f, or -1."""
    out = np.full(n, -1, np.int64)
    i = f.numbered(num)
    out[f.msg[i]] = i
    return out


def _ranges(f: Fields, at: np.ndarray, lvl: Level):
    """Byte ranges of the fields `at` (-1: absent, an empty range at the message start)."""
    has = at >= 0
    safe = np.where(has, at, 0)
    start = np.where(has, f.start[safe] if len(f.start) else 0, lvl.start)
    end = np.where(has, f.end[safe] if len(f.end) else 0, lvl.start)
    return start, end


def _bits(f: Fields, at: np.ndarray) -> np.ndarray:
    """The varint or fixed bits of the fields `at` (-1: absent, 0)."""
    return np.where(at >= 0, f.val[np.maximum(at, 0)] if len(f.val) else 0, 0).astype(np.uint64)


def _text(w: Wire, f: Fields, lvl: Level, num: int) -> pa.Array:
    """Per message of `lvl`, the text of its singular field `num` ("" when absent)."""
    return _texts(w, *_ranges(f, _one(f, num, len(lvl)), lvl), lvl.req)


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


# ---- attributes ---------------------------------------------------------------------
#
# An owner's object text is cut from one `take` over a few source arrays: per
# attribute two elements, the key (with what goes before it: `{`, `,` or `",`,
# and after it: `:` or `:"` before a string) and the value, then `}` or `"}`;
# `{}` for an owner without attributes. The taken elements lie back to back, so
# each owner's text is a range of the result's data buffer: no join, no copy
# per piece.

_LITERALS = pa.array(["}", '"}', "{}", "null", "true", "false"], pa.string())
CLOSE, EMPTY_OBJECT, NULL, TRUE, FALSE = 0, 2, 3, 4, 5
_KEY_BEFORE = np.array(["{", "{", ",", ",", '",', '",'], object)
_KEY_AFTER = np.array([":", ':"'] * 3, object)


def _objects(w: Wire, kv: Level, n_owners: int, depth: int, wanted: np.ndarray | None = None) -> pa.Array:
    """The JSON object text of the attributes `kv` (KeyValues, each with its owner as parent) of the
    owners `wanted` (default: all `n_owners`).

    `depth`: how deep the KeyValue's AnyValue sits in a request (for upb's nesting limit).
    """
    key_start, key_end, kind, start, end, val = _key_values(w, kv)
    keys = _texts(w, key_start, key_end, kv.req)
    enc = pc.dictionary_encode(keys)
    quoted_keys = _quoted(enc.dictionary)
    k = len(quoted_keys)
    # 6 variants per key: 6 * code + 2 * (0 first, 1 after a value, 2 after a string) + (a string follows)
    variants = pc.binary_join_element_wise(
        pa.array(np.tile(_KEY_BEFORE, k), pa.string()), quoted_keys.take(pa.array(np.repeat(np.arange(k), 6))),
        pa.array(np.tile(_KEY_AFTER, k), pa.string()), "")
    sources, value_src, relative, quote = _values(w, kv, kind, start, end, val, depth)
    arrays = [_LITERALS, variants, *sources]
    base = np.cumsum([0] + [len(a) for a in arrays])
    codes = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)

    counts = np.bincount(kv.parent, minlength=n_owners)
    first = np.cumsum(counts) - counts
    if wanted is None or len(wanted) == n_owners:
        owner_list, j, owner_of_j = np.arange(n_owners), np.arange(len(kv)), kv.parent
    else:
        owner_list = wanted
        owner_of_j = np.repeat(np.arange(len(wanted)), counts[wanted])
        j = np.arange(len(owner_of_j)) - np.repeat(np.cumsum(counts[wanted]) - counts[wanted], counts[wanted]) \
            + np.repeat(first[wanted], counts[wanted])
    cnt = counts[owner_list]
    # elements of owner o: 2 per attribute, then `}`; so attribute j is element 2 * (j's place) + o
    lead = np.cumsum(cnt) - cnt
    index = np.empty(2 * len(j) + len(owner_list), np.int64)
    at = 2 * np.arange(len(j)) + owner_of_j
    q = quote[j]
    is_first = np.ones(len(j), bool)
    is_first[1:] = owner_of_j[1:] != owner_of_j[:-1]
    before = np.where(is_first, 0, 1 + np.roll(q, 1))
    index[at] = base[1] + 6 * codes[j] + 2 * before + q
    index[at + 1] = np.where(relative[j], base[2] + value_src[j], value_src[j])
    last = first[owner_list] + cnt - 1
    starts = np.zeros(len(owner_list) + 1, np.int64)
    starts[1:] = 2 * (lead + cnt) + np.arange(1, len(owner_list) + 1)
    index[starts[1:] - 1] = np.where(cnt > 0, CLOSE + quote[np.maximum(last, 0)] if len(quote) else CLOSE,
                                     EMPTY_OBJECT)
    taken = pa.concat_arrays(arrays).take(pa.array(index))
    offsets = np.frombuffer(taken.buffers()[1], np.int32)[taken.offset:taken.offset + len(taken) + 1]
    objects = pa.Array.from_buffers(pa.string(), len(owner_list),
                                    [None, pa.py_buffer(np.ascontiguousarray(offsets[starts])), taken.buffers()[2]])
    # dict semantics for a key given twice: its first place, its last value (json.loads keeps
    # exactly that, and writing the parsed values back gives the same texts)
    pair = kv.parent * max(k, 1) + codes
    if n_owners * max(k, 1) <= 16 * len(pair) + 1024:  # of the attributes sharing a slot, all but one lose
        slots = np.empty(n_owners * max(k, 1), np.int32)
        slots[pair] = np.arange(len(pair), dtype=np.int32)
        dup = pair[slots[pair] != np.arange(len(pair), dtype=np.int32)]
    else:
        pair = np.sort(pair)
        dup = pair[1:][pair[1:] == pair[:-1]]
    if len(dup):
        dup_owner = np.zeros(n_owners, bool)
        dup_owner[np.unique(dup // max(k, 1))] = True
        mask = dup_owner[owner_list]
        fixed = [dumps(json.loads(t)) for t in pc.filter(objects, pa.array(mask)).to_pylist()]
        objects = pc.replace_with_mask(objects, pa.array(mask), pa.array(fixed, pa.string()))
    return objects


def _key_values(w: Wire, kv: Level):
    """Per KeyValue: its key's byte range, and its value: kind (0 null, else the AnyValue
    field number), byte range (the string or bytes; the whole AnyValue for arrays and
    kvlists) and bits (bool, int, double).

    The canonical shape (key, then a value holding one string, bool, int or double)
    is read in one pass; the other KeyValues go through the general reader.
    """
    b = w.b
    top = len(b) - PAD
    s, e = kv.start, kv.end

    def at(p):
        return np.minimum(p, top)

    def varint(p):
        v, after, ok = _varints(b, at(p))
        ok = v < np.uint64(1 << 31) if ok is None else ok & (v < np.uint64(1 << 31))
        return v, after, ok

    klen, key_start, ok = varint(s + 1)
    ok &= (b[at(s)] == 0x0A) & (s < e)
    key_end = key_start + np.where(ok, klen, 0).astype(np.int64)
    ok &= (key_end < e) & (b[at(key_end)] == 0x12)
    vlen, vs, oki = varint(key_end + 1)
    ok &= oki & (vs + np.where(ok, vlen, 0).astype(np.int64) == e)
    tag = b[at(vs)]
    empty = vs == e
    x, after, oki = _varints(b, at(vs + 1))
    oki = np.ones(len(s), bool) if oki is None else oki
    kind = np.select([empty, tag == 0x0A, tag == 0x10, tag == 0x18, tag == 0x21], [0, 1, 2, 3, 4], -1)
    string = kind == 1
    start = np.where(string, after, 0)
    end = np.where(string, after + np.where(string & (x < np.uint64(1 << 31)), x, 0).astype(np.int64), 0)
    ok &= (kind >= 0) & np.select([string, (kind == 2) | (kind == 3), kind == 4],
                                  [oki & (end == e), oki & (after == e), vs + 9 == e], empty)
    val = np.where(kind == 4, _fixed64(w, vs + 1), x)
    slow = np.flatnonzero(~ok)
    if len(slow):
        sub = Level(s[slow], e[slow], slow, kv.req[slow])
        kf = _fields(w, sub, KEY_VALUE)
        key_start[slow], key_end[slow] = _ranges(kf, _one(kf, 1, len(sub)), sub)
        value_at = _one(kf, 2, len(sub))
        has = np.flatnonzero(value_at >= 0)
        av = Level(kf.start[value_at[has]], kf.end[value_at[has]], has, sub.req[has])
        af = _fields(w, av, ANY_VALUE)
        is_value = (af.num >= 1) & (af.num <= 7)
        twice = np.bincount(af.msg[is_value], minlength=len(av)) > 1  # oneof: the last would win
        if twice.any():
            w.fail(av.req[twice])
        i = np.flatnonzero(is_value)
        kind[slow] = 0
        here = slow[has[af.msg[i]]]
        kind[here] = af.num[i]
        start[here], end[here], val[here] = af.start[i], af.end[i], af.val[i]
        nested = (af.num[i] == 5) | (af.num[i] == 6)  # these go to upb whole
        start[here[nested]], end[here[nested]] = av.start[af.msg[i][nested]], av.end[af.msg[i][nested]]
    return key_start, key_end, kind, start, end, val


def _values(w: Wire, kv: Level, kind: np.ndarray, start: np.ndarray, end: np.ndarray, val: np.ndarray,
            depth: int):
    """The JSON text of each KeyValue's value (see `_key_values`; `depth`: for upb's nesting limit).

    Returns (source arrays; per KeyValue the index of its text, in `_LITERALS` or,
    where `relative`, in the concatenated sources; whether a closing quote must
    follow, for strings given unquoted).
    """
    n = len(kv)
    src = np.full(n, NULL, np.int64)
    relative = np.zeros(n, bool)
    quote = np.zeros(n, bool)
    sources: list[pa.Array] = []
    raw = w.raw

    def add(where: np.ndarray, texts: pa.Array) -> None:
        src[where] = np.arange(len(texts)) + sum(len(x) for x in sources)
        relative[where] = True
        sources.append(texts)

    sel = np.flatnonzero(kind == 1)
    if len(sel):
        texts = _texts(w, start[sel], end[sel], kv.req[sel])
        odd = _with_specials(texts)
        add(sel, texts)
        quote[sel] = ~odd
        special = np.flatnonzero(odd)
        if len(special):  # these are written as whole JSON literals instead
            add(sel[special], _quoted(texts.take(pa.array(special))))
    sel = np.flatnonzero(kind == 2)
    src[sel] = np.where(val[sel] != 0, TRUE, FALSE)
    sel = np.flatnonzero(kind == 3)
    if len(sel):
        add(sel, pa.array(val[sel].view(np.int64)).cast(pa.string()))
    sel = np.flatnonzero(kind == 4)
    if len(sel):
        doubles = val[sel].view(np.float64)
        add(sel, pa.array([dumps(x) if x - x == 0 else "null" for x in doubles.tolist()], pa.string()))
    sel = np.flatnonzero(kind == 7)
    if len(sel):
        add(sel, pa.array(['"' + base64.b64encode(raw[s:e]).decode("ascii") + '"'
                           for s, e in zip(start[sel].tolist(), end[sel].tolist())], pa.string()))
    sel = np.flatnonzero((kind == 5) | (kind == 6))
    if len(sel):
        add(sel, pa.array([_nested(w, bytes(raw[s:e]), r, depth) for s, e, r in
                           zip(start[sel].tolist(), end[sel].tolist(), kv.req[sel].tolist())], pa.string()))
    return sources, src, relative, quote


def _with_specials(texts: pa.Array) -> np.ndarray:
    """Which strings hold a byte JSON must escape."""
    offsets = np.frombuffer(texts.buffers()[1], np.int32)[texts.offset:texts.offset + len(texts) + 1]
    data = texts.buffers()[2]
    if data is None or offsets[-1] == offsets[0]:
        return np.zeros(len(texts), bool)
    d = np.frombuffer(data, np.uint8)[offsets[0]:offsets[-1]]
    at = np.flatnonzero(_SPECIAL[d])
    return np.diff(np.searchsorted(at, offsets - offsets[0])) > 0


def _nested(w: Wire, data: bytes, req: int, depth: int) -> str:
    """An array or kvlist AnyValue through upb and the reference conversion."""
    try:
        v = AnyValue.FromString(data)
    except DecodeError:
        w.fail(req)
        return "null"
    if depth - 1 + _nesting(v) > MAX_NESTING:
        w.fail(req)
        return "null"
    return dumps(proto.any_value(v))


def _nesting(v) -> int:
    """How many messages deep an AnyValue goes (itself included)."""
    which = v.WhichOneof("value")
    if which == "array_value":
        return 2 + max((_nesting(x) for x in v.array_value.values), default=0)
    if which == "kvlist_value":
        return 2 + max((1 + (_nesting(kv.value) if kv.HasField("value") else 0)
                        for kv in v.kvlist_value.values), default=0)
    return 1


# ---- requests to rows ---------------------------------------------------------------

def decode_requests(items: list[tuple[int, bytes]]) -> tuple[pa.Table, list[tuple[int, str, str]]]:
    """`otel_spans` rows and ingest errors of (line, serialized request) pairs, as the reference walk gives."""
    table, errors, _ = decode_with_fallbacks(items)
    return table, errors


def decode_with_fallbacks(items: list[tuple[int, bytes]]):
    """`decode_requests`, and which requests took the reference walk (a bool per request)."""
    return _decode(Wire.joined([data for _, data in items]), np.array([line for line, _ in items], np.int64))


def decode_buffer(raw: bytes | bytearray, start, end, lines) -> tuple[pa.Table, list[tuple[int, str, str]]]:
    """`decode_requests` of the requests at raw[start[i]:end[i]], which ends with PAD zero bytes."""
    table, errors, _ = _decode(Wire(raw, start, end), np.asarray(lines, np.int64))
    return table, errors


def _decode(w: Wire, lines: np.ndarray):
    n = len(lines)
    reqs = Level(w.start, w.end, np.arange(n), np.arange(n))
    rf = _fields(w, reqs, REQUEST)

    rs = _child(rf, reqs, 1)
    rsf = _fields(w, rs, RESOURCE_SPANS)
    _text(w, rsf, rs, 3)  # schema_url: only checked

    res = _child(rsf, rs, 1)
    resf = _fields(w, res, RESOURCE)
    resource_json = pa.concat_arrays([_objects(w, _child(resf, res, 1), len(res), 5), pa.array(["{}"], pa.string())])
    resource_of_rs = np.full(len(rs), len(res), np.int64)
    resource_of_rs[res.parent] = np.arange(len(res))

    ss = _child(rsf, rs, 2)
    ssf = _fields(w, ss, SCOPE_SPANS)
    _text(w, ssf, ss, 3)
    scope = _child(ssf, ss, 1)
    scf = _fields(w, scope, SCOPE)
    scope_names = _text(w, scf, scope, 1)
    scope_versions = _text(w, scf, scope, 2)
    _objects(w, _child(scf, scope, 3), len(scope), 6)  # scope attributes: only checked
    scope_of_ss = np.full(len(ss), len(scope), np.int64)
    scope_of_ss[scope.parent] = np.arange(len(scope))
    scope_names = pa.concat_arrays([scope_names, pa.array([""])])
    scope_versions = pa.concat_arrays([scope_versions, pa.array([""])])

    sp = _child(ssf, ss, 2)
    table, errors = _span_rows(w, sp, _span_columns(w, sp), lines)
    ss_of = sp.parent
    rs_of = ss.parent[ss_of]
    table = _with(table, {
        "resource": resource_json.take(pa.array(resource_of_rs[rs_of])),
        "scope_name": _or_null(scope_names.take(pa.array(scope_of_ss[ss_of]))),
        "scope_version": _or_null(scope_versions.take(pa.array(scope_of_ss[ss_of]))),
    })
    return _assemble(w, lines, table, errors)


class Columns:
    """Per message of a Level: the byte range and bits of each singular field (an empty range
    at the message's start and 0 when it is absent), and the messages of each repeated field."""

    def __init__(self, starts: dict, ends: dict, vals: dict, children: dict[int, Level]) -> None:
        self.starts, self.ends, self.vals, self.children = starts, ends, vals, children

    @classmethod
    def of(cls, f: Fields, lvl: Level, singular: list[int], repeated: list[int]) -> Columns:
        starts, ends, vals = {}, {}, {}
        for num in singular:
            at = _one(f, num, len(lvl))
            starts[num], ends[num] = _ranges(f, at, lvl)
            vals[num] = _bits(f, at)
        return cls(starts, ends, vals, {num: _child(f, lvl, num) for num in repeated})

    def range(self, num: int) -> tuple[np.ndarray, np.ndarray]:
        return self.starts[num], self.ends[num]

    def bits(self, num: int) -> np.ndarray:
        return self.vals[num]

    def child(self, num: int) -> Level:
        return self.children[num]


# A span as the SDKs and the Collector write it: fields by increasing number, each
# singular one at most once, the repeated ones in a run. (number, wire type, repeated)
_SPAN_ORDER = [(num, int(SPAN[0][num]), not SPAN[1][num]) for num in range(1, 17)]


def _span_columns(w: Wire, sp: Level) -> Columns:
    """The fields of all spans: spans in the canonical order are read field number by field
    number (no per-field bookkeeping); the others go through the general reader."""
    n = len(sp)
    b = w.b
    top = len(b) - PAD
    pos = sp.start.copy()
    end = sp.end
    good = np.ones(n, bool)
    starts, ends, vals, runs = {}, {}, {}, {}
    for num, wt, repeated in _SPAN_ORDER:
        tag = num << 3 | wt
        first_byte, second_byte = (tag, None) if tag < 0x80 else ((tag & 0x7F) | 0x80, tag >> 7)
        if not repeated:
            starts[num], ends[num], vals[num] = sp.start.copy(), sp.start.copy(), np.zeros(n, np.uint64)
        run = []
        cand = np.flatnonzero(pos < end)
        t = 0
        while len(cand):
            p = pos[cand]
            hit = b[p] == first_byte
            if second_byte is not None:
                hit &= b[p + 1] == second_byte
            i = cand[hit]
            if not len(i):
                break
            q = pos[i] + (1 if second_byte is None else 2)
            if wt == LEN:
                s, e, ok = _length_delimited(b, q)
                v = None
            elif wt == VARINT:
                v, e, ok = _varints(b, q)
                s = q
            else:
                s, e, ok = q, q + (8 if wt == I64 else 4), None
                v = w.words[np.minimum(q, top)]
                if wt == I32:
                    v = v & np.uint64(0xFFFFFFFF)
            fits = e <= end[i]
            ok = fits if ok is None else ok & fits
            if not ok.all():  # left to the general reader
                good[i[~ok]] = False
                pos[i[~ok]] = end[i[~ok]]
                i, s, e = i[ok], s[ok], e[ok]
                v = None if v is None else v[ok]
            pos[i] = e
            if not repeated:
                starts[num][i], ends[num][i] = s, e
                if v is not None:
                    vals[num][i] = v
                break
            run.append((i, t, s, e))
            cand = i[e < end[i]]
            t += 1
        if repeated:
            runs[num] = run
    slow = np.flatnonzero(~good | (pos != end))
    children = {}
    for num, run in runs.items():
        if not run:
            z = np.zeros(0, np.int64)
            children[num] = Level(z, z, z, z)
            continue
        parent = np.concatenate([r[0] for r in run])
        counts = np.bincount(parent, minlength=n)
        at = (np.cumsum(counts) - counts)[parent] + np.concatenate([np.full(len(r[0]), r[1]) for r in run])
        order = np.empty(len(parent), np.int64)
        order[at] = np.arange(len(parent))
        parent = parent[order]
        children[num] = Level(np.concatenate([r[2] for r in run])[order], np.concatenate([r[3] for r in run])[order],
                              parent, sp.req[parent])
    if len(slow):
        sub = Level(sp.start[slow], sp.end[slow], slow, sp.req[slow])
        other = Columns.of(_fields(w, sub, SPAN), sub, [num for num, _, r in _SPAN_ORDER if not r],
                           [num for num, _, r in _SPAN_ORDER if r])
        for num in starts:
            starts[num][slow], ends[num][slow], vals[num][slow] = other.starts[num], other.ends[num], other.vals[num]
        is_slow = np.zeros(n, bool)
        is_slow[slow] = True
        for num, lvl in children.items():
            mine = ~is_slow[lvl.parent]
            theirs = other.children[num]
            start = np.concatenate([lvl.start[mine], theirs.start])
            order = np.argsort(start, kind="stable")  # wire order
            parent = np.concatenate([lvl.parent[mine], slow[theirs.parent]])[order]
            children[num] = Level(start[order], np.concatenate([lvl.end[mine], theirs.end])[order],
                                  parent, sp.req[parent])
    return Columns(starts, ends, vals, children)


def _span_rows(w: Wire, sp: Level, cols: Columns, lines: np.ndarray):
    n = len(sp)
    tid_s, tid_e = cols.range(1)
    sid_s, sid_e = cols.range(2)
    pid_s, pid_e = cols.range(4)
    _texts(w, *cols.range(3), sp.req)  # trace_state: only checked
    names = _texts(w, *cols.range(5), sp.req)
    tid_n, sid_n, pid_n = tid_e - tid_s, sid_e - sid_s, pid_e - pid_s
    tid_raw, sid_raw = _bytes_at(w, tid_s, 16), _bytes_at(w, sid_s, 8)
    tid_zero = ~tid_raw.any(axis=1)
    sid_zero = ~sid_raw.any(axis=1)
    start_ns, end_ns = cols.bits(7), cols.bits(8)
    past_int64 = (start_ns > np.uint64(proto.INT64_MAX)) | (end_ns > np.uint64(proto.INT64_MAX))
    problem = (tid_n != 16) | tid_zero | (sid_n != 8) | sid_zero | ((pid_n != 0) & (pid_n != 8)) | past_int64

    def enum_index(v: np.ndarray, size: int) -> pa.Array:
        v32 = (v & np.uint64(0xFFFFFFFF)).astype(np.int64)  # upb keeps an enum as int32
        return pa.array(np.where(v32 < size, v32, 0))

    st = Level(*cols.range(15), np.arange(n), sp.req)  # an absent status reads as an empty one
    stf = _fields(w, st, STATUS)
    msgs = _text(w, stf, st, 2)
    codes = _bits(stf, _one(stf, 3, len(st)))

    accepted = np.flatnonzero(~problem)
    attributes = _objects(w, cols.child(9), n, 6, accepted)
    events = _events(w, sp, cols.child(11))
    lk = cols.child(13)
    lkf = _fields(w, lk, LINK)
    _text(w, lkf, lk, 3)  # links: only checked
    _objects(w, _child(lkf, lk, 4), len(lk), 7)

    # Rows of requests that take the reference walk are dropped here, and rejected spans.
    live = ~w.bad[sp.req]
    keep = np.flatnonzero(live & ~problem)
    if len(keep) < len(accepted):
        attributes = attributes.filter(pa.array(live[accepted]))
    errors = []
    rejected = np.flatnonzero(live & problem)
    if len(rejected):
        texts = names.take(pa.array(rejected)).to_pylist()
        raw = w.raw
        for i, name in zip(rejected.tolist(), texts):
            what = Span(trace_id=bytes(raw[tid_s[i]:tid_e[i]]), span_id=bytes(raw[sid_s[i]:sid_e[i]]),
                        parent_span_id=bytes(raw[pid_s[i]:pid_e[i]]),
                        start_time_unix_nano=int(start_ns[i]), end_time_unix_nano=int(end_ns[i]))
            errors.append((int(sp.req[i]), f"<protobuf span {name[:200]!r}>",
                           f"span rejected: {proto.span_problem(what)}"))
    k = pa.array(keep)
    has_parent = pid_n[keep] > 0
    ns = {}
    for col, v in (("started_at", start_ns), ("ended_at", end_ns)):
        ns[col] = micros(pa.array(v[keep].astype(np.int64)))
    table = {
        "trace_id": _hex(tid_raw[keep]),
        "span_id": _hex(sid_raw[keep]),
        "parent_span_id": _hex(_bytes_at(w, pid_s[keep], 8), has_parent),
        "name": names.take(k),
        "kind": _KIND_NAMES.take(enum_index(cols.bits(6)[keep], len(SPAN_KINDS))),
        "started_at": ns["started_at"],
        "ended_at": ns["ended_at"],
        "status_code": _CODE_NAMES.take(enum_index(codes[keep], len(STATUS_CODES))),
        "status_message": _or_null(msgs.take(k)),
        "attributes": attributes,
        "events": events.take(k),
        "source_line": pa.array(lines[sp.req[keep]]),
        "_req": pa.array(sp.req[keep]),
        "_span": k,
    }
    return table, errors


def _events(w: Wire, sp: Level, ev: Level) -> pa.Array:
    """Per span, the JSON array of its events `ev`, or null when it has none."""
    evf = _fields(w, ev, EVENT)
    m = len(ev)
    names = _quoted(_text(w, evf, ev, 2))
    times = _bits(evf, _one(evf, 1, m))
    attrs = _objects(w, _child(evf, ev, 3), m, 7)
    texts = pc.binary_join_element_wise('{"name":', names, ',"time_unix_nano":', pa.array(times).cast(pa.string()),
                                        ',"attributes":', attrs, "}", "")
    lists = pc.binary_join_element_wise("[", _joined(texts, ev.parent, len(sp), ","), "]", "")
    has = np.bincount(ev.parent, minlength=len(sp)) > 0
    return pc.if_else(pa.array(has), lists, pa.scalar(None, pa.string()))


def _or_null(texts: pa.Array) -> pa.Array:
    """`x or None` of the reference: the empty string becomes null."""
    return pc.if_else(pc.equal(texts, ""), pa.scalar(None, pa.string()), texts)


def _with(table: dict, more: dict) -> dict:
    k = table["_span"]
    return {**table, **{c: a.take(k) for c, a in more.items()}}


def _assemble(w: Wire, lines: np.ndarray, table: dict, errors):
    """The fast rows and the reference walk's rows of the failed requests, in request order."""
    schema = arrow_schema("otel_spans")
    n_rows = len(table["_span"])
    cols = {}
    for fld in schema:
        if fld.name == "source_file":
            cols[fld.name] = pa.nulls(n_rows, fld.type)
        else:
            cols[fld.name] = table[fld.name].cast(fld.type)
    fast = pa.table(cols, schema=schema)
    failed = np.flatnonzero(w.bad)
    errs_by_req: dict[int, list] = {}
    for req, raw, reason in errors:
        errs_by_req.setdefault(req, []).append((int(lines[req]), raw, reason))
    if not len(failed):
        return fast, [e for r in sorted(errs_by_req) for e in errs_by_req[r]], w.bad
    row_req = table["_req"].to_numpy()
    pieces = []
    done = 0
    for r in failed.tolist():
        upto = int(np.searchsorted(row_req, r))
        if upto > done:
            pieces.append(fast.slice(done, upto - done))
        done = upto
        line, data = int(lines[r]), w.request(r)
        batch = SpanBatch()
        errs: list[tuple[int, str, str]] = []
        try:
            proto.add_request(proto.parse_request(data), line, batch, errs)
        except DecodeError as exc:
            errs.append((line, f"<{len(data)} bytes of protobuf>",
                         f"not a valid OTLP ExportTraceServiceRequest ({exc})"))
        errs_by_req[r] = errs
        if len(batch):
            pieces.append(batch.to_arrow())
    if done < len(fast):
        pieces.append(fast.slice(done))
    table = pa.concat_tables(pieces) if pieces else fast.slice(0, 0)
    return table, [e for r in sorted(errs_by_req) for e in errs_by_req[r]], w.bad
