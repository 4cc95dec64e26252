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

from trace_audit.ingest.framing import Frame
from trace_audit.ingest.otlp.spans import SPAN_KINDS, STATUS_CODES, SpanBatch, dumps

MAX_MESSAGE_BYTES = 256 * 1024 * 1024
FRAME_SPANS = 50_000  # spans per frame handed to the loader (bounded memory, one upsert each)
DECODE_SPANS = 2 * FRAME_SPANS  # spans per batch of requests decoded together (fewer numpy steps per span)
DECODE_BYTES_FIRST = 16 * 1024 * 1024  # the first batch, before the size of a span is known
DECODE_BYTES_MIN, DECODE_BYTES_MAX = 1024 * 1024, 32 * 1024 * 1024


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
        # The common kinds inline: this loop runs once per attribute of every span.
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
    return None


def add_request(request: ExportTraceServiceRequest, line: int, batch: SpanBatch,
                errors: list[tuple[int, str, str]]) -> tuple[int, int]:
    """Add the spans of one decoded request; returns (accepted, rejected).

    The hot loop of protobuf ingest: every field access on a message object
    costs a call into the protobuf runtime, so each is read once, columns are
    appended through bound methods, and the common attribute kinds are inlined.
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
                trace_id, span_id, parent = span.trace_id, span.span_id, span.parent_span_id
                if len(trace_id) != 16 or len(span_id) != 8 or (parent and len(parent) != 8) \
                        or not any(trace_id) or not any(span_id):
                    rejected += 1
                    errors.append((line, f"<protobuf span {span.name[:200]!r}>", f"span rejected: {span_problem(span)}"))
                    continue
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


def _frames_of(messages: Iterator[tuple[int, bytes | None, str | None]], counter) -> Iterator[Frame]:
    """Frames of about FRAME_SPANS rows; requests are decoded in batches by `proto_wire`.

    A batch is cut by bytes (spans are only counted once decoded), aiming at
    DECODE_SPANS spans from the bytes per span seen so far; its table is then
    sliced into frames of at most FRAME_SPANS rows.
    """
    from trace_audit.ingest.otlp import proto_wire  # imports this module (its reference walk)

    pending: list[tuple[int, bytes]] = []
    pending_bytes = 0
    errors: list[tuple[int, str, str]] = []
    budget = DECODE_BYTES_FIRST
    yielded = False

    def decoded() -> Iterator[Frame]:
        nonlocal pending, pending_bytes, errors, budget, yielded
        table, found = proto_wire.decode_requests(pending)
        errors = sorted(errors + found, key=lambda e: e[0])
        if table.num_rows:
            budget = min(max(pending_bytes * DECODE_SPANS // table.num_rows, DECODE_BYTES_MIN), DECODE_BYTES_MAX)
            for at in range(0, table.num_rows, FRAME_SPANS):
                yield Frame(errors=errors, tables={"otel_spans": table.slice(at, FRAME_SPANS)},
                            bytes_read=counter.count)
                errors, yielded = [], True
        pending, pending_bytes = [], 0

    for line, data, problem in messages:
        if problem is None:
            pending.append((line, data))
            pending_bytes += len(data)
        else:
            errors.append((line, f"<{len(data or b'')} bytes of protobuf>", problem))
        if pending_bytes >= budget:
            yield from decoded()
    if pending:
        yield from decoded()
    if errors or not yielded:
        yield Frame(errors=errors, bytes_read=counter.count)


def single_message_frames(stream: BinaryIO, head: bytes, counter, max_bytes: int) -> Iterator[Frame]:
    data = head + stream.read(MAX_MESSAGE_BYTES)
    if stream.read(1):
        yield Frame(errors=[(1, "", f"a protobuf request over {MAX_MESSAGE_BYTES // 1048576} MiB; "
                                    "split it or use the length-prefixed stream")], bytes_read=counter.count)
        return
    yield from _frames_of(iter([(1, data, None)]), counter)


def length_prefixed_frames(stream: BinaryIO, head: bytes, counter, max_bytes: int) -> Iterator[Frame]:
    def messages():
        buf = bytearray(head)
        pos = 0
        n = 0

        def fill(k: int) -> bool:  # at least k unread bytes in buf, unless the stream ends
            nonlocal buf, pos
            while len(buf) - pos < k:
                if pos > 4 * 1024 * 1024:
                    del buf[:pos]
                    pos = 0
                more = stream.read(max(k - (len(buf) - pos), 1024 * 1024))
                if not more:
                    return False
                buf += more
            return True

        while True:
            if not fill(4):
                if len(buf) > pos:
                    yield n + 1, None, f"{len(buf) - pos} stray bytes at the end of the stream (file cut short?)"
                return
            (length,) = struct.unpack_from(">I", buf, pos)
            n += 1
            if length > MAX_MESSAGE_BYTES:
                yield n, None, (f"message length {length} is over {MAX_MESSAGE_BYTES // 1048576} MiB: "
                                "not a length-prefixed OTLP stream, or corrupt; the rest is not read")
                return
            if not fill(4 + length):
                yield n, None, f"the last message is cut short ({len(buf) - pos - 4} of {length} bytes)"
                return
            yield n, bytes(buf[pos + 4:pos + 4 + length]), None
            pos += 4 + length

    yield from _frames_of(messages(), counter)
