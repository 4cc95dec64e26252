"""Reading protobuf fields for every open message of a level at once (varints, lengths,
fixed64), a plain loop for the few long messages, and the checks that send a request to the
reference walk.

Part of the bulk protobuf reader: `proto_wire.py` says how it works."""

from __future__ import annotations

import numpy as np
from opentelemetry.proto.trace.v1.trace_pb2 import ScopeSpans

from .proto_levels import PAD, SCALAR_BELOW, VARINT, I64, LEN, I32, Wire, Level, Fields


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
