"""OTLP protobuf to `otel_spans` rows, and the binary file layouts that carry it.

Two file layouts are recognised by their first bytes (never by name):

- one `ExportTraceServiceRequest` per file (what `SerializeToString()` writes;
  starts with 0x0A, field 1 `resource_spans`);
- the Collector file exporter's `format: proto` stream: each request preceded
  by its length as a 4-byte big-endian integer.

Rows are the same as from OTLP/JSON (`spans.SpanBatch`), so everything after
decoding is shared. A file's "line" for ingest_errors is the 1-based number of
the request inside it.
"""

from __future__ import annotations

import base64
import math
import struct
from typing import Any, BinaryIO, Iterator

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from ..framing import Frame
from .spans import SPAN_KINDS, STATUS_CODES, SpanBatch, dumps

MAX_MESSAGE_BYTES = 256 * 1024 * 1024
FRAME_SPANS = 50_000  # spans per frame handed to the loader (bounded memory, one upsert each)
DECODE_SPANS = 2 * FRAME_SPANS  # spans per batch of requests decoded together (fewer numpy steps per span)
DECODE_BYTES_FIRST = 16 * 1024 * 1024  # the first batch, before the size of a span is known
DECODE_BYTES_MIN, DECODE_BYTES_MAX = 1024 * 1024, 32 * 1024 * 1024
PAD = 16  # zero bytes after the last request of a batch: proto_wire reads a few bytes past a field
INT64_MAX = (1 << 63) - 1


def any_value(v) -> Any:
    which = v.WhichOneof("value")
    if which is None:
        return None
    if which == "string_value":
        return v.string_value
    if which == "int_value":
        return v.int_value
    if which == "bool_value":
        return v.bool_value
    if which == "double_value":
        d = v.double_value
        return d if math.isfinite(d) else None
    if which == "array_value":
        return [any_value(x) for x in v.array_value.values]
    if which == "kvlist_value":
        return attributes(v.kvlist_value.values)
    return base64.b64encode(v.bytes_value).decode("ascii")


def attributes(kvs) -> dict[str, Any]:
    out = {}
    for kv in kvs:
        v = kv.value
        which = v.WhichOneof("value")
        # The common kinds inline: the reference walk runs this once per attribute.
        if which == "string_value":
            out[kv.key] = v.string_value
        elif which == "int_value":
            out[kv.key] = v.int_value
        elif which == "bool_value":
            out[kv.key] = v.bool_value
        else:
            out[kv.key] = any_value(v)
    return out


def span_problem(span) -> str | None:
    """Why a protobuf span cannot be stored, or None."""
    if len(span.trace_id) != 16 or not any(span.trace_id):
        return f"trace_id is {len(span.trace_id)} bytes{' of zeros' if len(span.trace_id) == 16 else ''}, expected 16 non-zero bytes"
    if len(span.span_id) != 8 or not any(span.span_id):
        return f"span_id is {len(span.span_id)} bytes, expected 8 non-zero bytes"
    if span.parent_span_id and len(span.parent_span_id) != 8:
        return f"parent_span_id is {len(span.parent_span_id)} bytes, expected 8"
    for name, ns in (("start_time_unix_nano", span.start_time_unix_nano), ("end_time_unix_nano", span.end_time_unix_nano)):
        if ns > INT64_MAX:  # a uint64 on the wire; no timestamp reaches it (the year 2262)
            return f"{name} {ns} is past the largest time there is (2^63 - 1 ns, in the year 2262)"
    return None


def add_request(request: ExportTraceServiceRequest, line: int, batch: SpanBatch,
                errors: list[tuple[int, str, str]]) -> tuple[int, int]:
    """Add the spans of one decoded request; returns (accepted, rejected).

    The reference walk over upb message objects: `proto_wire` decodes requests in
    bulk and sends here the few it does not reproduce exactly; its tests require
    the same rows and errors from both.
    """
    c = batch.cols
    add_trace, add_span, add_parent = c["trace_id"].append, c["span_id"].append, c["parent_span_id"].append
    add_name, add_kind, add_start, add_end = c["name"].append, c["kind"].append, c["start_ns"].append, c["end_ns"].append
    add_code, add_msg, add_attrs = c["status_code"].append, c["status_message"].append, c["attributes"].append
    add_res, add_scope, add_scope_v = c["resource"].append, c["scope_name"].append, c["scope_version"].append
    add_events, add_line = c["events"].append, c["source_line"].append
    kinds, codes = SPAN_KINDS, STATUS_CODES
    accepted = rejected = 0
    for rs in request.resource_spans:
        resource_text = dumps(attributes(rs.resource.attributes))
        for ss in rs.scope_spans:
            scope = ss.scope
            scope_name = scope.name or None
            scope_version = scope.version or None
            for span in ss.spans:
                problem = span_problem(span)
                if problem:
                    rejected += 1
                    errors.append((line, f"<protobuf span {span.name[:200]!r}>", f"span rejected: {problem}"))
                    continue
                trace_id, span_id, parent = span.trace_id, span.span_id, span.parent_span_id
                accepted += 1
                status = span.status
                add_trace(trace_id.hex())
                add_span(span_id.hex())
                add_parent(parent.hex() if parent else None)
                add_name(span.name)
                add_kind(kinds.get(span.kind, "unspecified"))
                add_start(span.start_time_unix_nano)
                add_end(span.end_time_unix_nano)
                add_code(codes.get(status.code, "unset"))
                add_msg(status.message or None)
                add_attrs(dumps(attributes(span.attributes)))
                add_res(resource_text)
                add_scope(scope_name)
                add_scope_v(scope_version)
                events = span.events
                add_events(dumps([{
                    "name": e.name, "time_unix_nano": e.time_unix_nano, "attributes": attributes(e.attributes),
                } for e in events]) if events else None)
                add_line(line)
    return accepted, rejected


def parse_request(data: bytes) -> ExportTraceServiceRequest:
    """Raises DecodeError on bytes that are not an ExportTraceServiceRequest."""
    return ExportTraceServiceRequest.FromString(data)


# ---- files ---------------------------------------------------------------------------

def sniff(head: bytes):
    """A framing sniffer: returns a frame generator for OTLP protobuf files, else None."""
    if len(head) >= 5 and head[4] == 0x0A:
        (length,) = struct.unpack(">I", head[:4])
        if 0 < length <= MAX_MESSAGE_BYTES:
            return length_prefixed_frames
    if head[:1] == b"\x0a":
        return single_message_frames
    return None


class _Budget:
    """Bytes of requests to decode together; adjusted to give about DECODE_SPANS spans."""

    def __init__(self) -> None:
        self.bytes = DECODE_BYTES_FIRST

    def saw(self, n_bytes: int, n_spans: int) -> None:
        if n_spans:
            self.bytes = min(max(n_bytes * DECODE_SPANS // n_spans, DECODE_BYTES_MIN), DECODE_BYTES_MAX)


# A batch: (buffer ending with PAD zero bytes, request starts, request ends, request lines,
# problems of the stream itself as (line, raw, reason)).
Batch = tuple[bytes | bytearray, list[int], list[int], list[int], list[tuple[int, str, str]]]


def _frames_of(batches: Iterator[Batch], counter, budget: _Budget) -> Iterator[Frame]:
    """Frames of at most FRAME_SPANS rows from batches of requests decoded together by `proto_wire`."""
    from . import proto_wire  # it imports this module (its reference walk)

    yielded = False
    errors: list[tuple[int, str, str]] = []
    for raw, starts, ends, lines, problems in batches:
        table, found = proto_wire.decode_buffer(raw, starts, ends, lines)
        errors = sorted(errors + found + problems, key=lambda e: e[0])
        budget.saw(sum(ends) - sum(starts), table.num_rows)
        for at in range(0, table.num_rows, FRAME_SPANS):
            yield Frame(errors=errors, tables={"otel_spans": table.slice(at, FRAME_SPANS)}, bytes_read=counter.count)
            errors, yielded = [], True
    if errors or not yielded:
        yield Frame(errors=errors, bytes_read=counter.count)


def single_message_frames(stream: BinaryIO, head: bytes, counter, max_bytes: int) -> Iterator[Frame]:
    rest = stream.read(MAX_MESSAGE_BYTES)
    if stream.read(1):
        yield Frame(errors=[(1, "", f"a protobuf request over {MAX_MESSAGE_BYTES // 1048576} MiB; "
                                    "split it or use the length-prefixed stream")], bytes_read=counter.count)
        return
    size = len(head) + len(rest)
    data = b"".join([head, rest, bytes(PAD)])
    del rest  # not held twice while the request is decoded
    yield from _frames_of(iter([(data, [0], [size], [1], [])]), counter, _Budget())


def length_prefixed_frames(stream: BinaryIO, head: bytes, counter, max_bytes: int) -> Iterator[Frame]:
    budget = _Budget()
    yield from _frames_of(_length_prefixed_batches(stream, head, budget), counter, budget)


def _length_prefixed_batches(stream: BinaryIO, head: bytes, budget: _Budget) -> Iterator[Batch]:
    """The stream read into buffers of about `budget.bytes`, each holding whole requests.

    A request cut by the end of a buffer starts the next one; a buffer grows to
    hold a request larger than the budget. Requests are not copied one by one.
    """
    carry = bytes(head)  # read but not yet handed out
    n = 0  # requests seen
    eof = False
    need = 0  # bytes the first request of the next buffer needs
    buf = bytearray()
    while True:
        size = max(budget.bytes, need, len(carry))
        if len(buf) < size + PAD or len(buf) > 2 * (size + PAD):
            # Its last PAD bytes are never written. Made anew when much too big too: a
            # buffer grown for one large request would otherwise set every later batch's size.
            buf = bytearray(size + PAD)
        else:
            # The previous batch is decoded by now, into rows that hold no view of this buffer
            # (tests/test_otlp_proto_wire.py reads all frames of a stream at the end).
            size = len(buf) - PAD
        buf[:len(carry)] = carry
        filled = len(carry)
        with memoryview(buf) as view:
            while filled < size and not eof:
                got = stream.readinto(view[filled:size])
                if got:
                    filled += got
                else:
                    eof = True
        starts: list[int] = []
        ends: list[int] = []
        lines: list[int] = []
        problems: list[tuple[int, str, str]] = []
        pos = 0
        stop = False
        need = 0
        while True:
            if filled - pos < 4:
                if eof:
                    if filled > pos:
                        problems.append((n + 1, "<0 bytes of protobuf>",
                                         f"{filled - pos} stray bytes at the end of the stream (file cut short?)"))
                    stop = True
                break
            length = int.from_bytes(buf[pos:pos + 4], "big")
            if length > MAX_MESSAGE_BYTES:
                n += 1
                problems.append((n, "<0 bytes of protobuf>",
                                 f"message length {length} is over {MAX_MESSAGE_BYTES // 1048576} MiB: "
                                 "not a length-prefixed OTLP stream, or corrupt; the rest is not read"))
                stop = True
                break
            if pos + 4 + length > filled:
                if eof:
                    n += 1
                    problems.append((n, "<0 bytes of protobuf>",
                                     f"the last message is cut short ({filled - pos - 4} of {length} bytes)"))
                    stop = True
                else:
                    need = 4 + length
                break
            n += 1
            starts.append(pos + 4)
            ends.append(pos + 4 + length)
            lines.append(n)
            pos += 4 + length
        carry = buf[pos:filled]  # a copy: buf is refilled
        if starts or problems:
            yield buf, starts, ends, lines, problems
        if stop:
            return
