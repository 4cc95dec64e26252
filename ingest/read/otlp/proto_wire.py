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

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from . import proto
from .spans import SPAN_KINDS, STATUS_CODES, SpanBatch, micros
from ....queries.warehouse.types import arrow_schema
from .proto_levels import (PAD, VARINT, I64, LEN, I32, REQUEST, RESOURCE_SPANS, RESOURCE, SCOPE_SPANS, SCOPE,
                           SPAN, STATUS, EVENT, LINK, _KIND_NAMES, _CODE_NAMES, Wire, Level, Fields)
from .proto_fields import _varints, _length_delimited, _fields, _child, _one, _ranges, _bits
from .proto_texts import _texts, _text, _quoted, _hex, _bytes_at, _joined
from .proto_attributes import _objects


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
