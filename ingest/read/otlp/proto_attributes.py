"""KeyValue lists to JSON attribute objects in bulk: the canonical shapes in one pass; arrays,
kvlists, bytes and doubles one value at a time by the reference's rules.

Part of the bulk protobuf reader: `proto_wire.py` says how it works."""

from __future__ import annotations

import base64
import json

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from google.protobuf.message import DecodeError
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from . import proto
from .spans import dumps
from .proto_levels import PAD, MAX_NESTING, KEY_VALUE, ANY_VALUE, Wire, Level
from .proto_fields import _varints, _fixed64, _fields, _one, _ranges
from .proto_texts import _texts, _SPECIAL, _quoted


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
