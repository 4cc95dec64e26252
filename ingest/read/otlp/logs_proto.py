"""Protobuf files of the logs signal: `ExportLogsServiceRequest`, alone or as the Collector's
length-prefixed stream (the same two layouts as traces, see `proto`).

A logs request and a trace request look alike for their first bytes (field 1 of the request,
field 1 and 2 of its resource entry, field 2 of its scope entry), so the sniffer walks down to
the first record: a span always starts with its trace id (field 1, length-delimited: 0x0A), a log
record never does (its field 1 is the fixed64 time, 0x09; every other field has another tag). A
head that ends before the first record is left to the trace reader, as before.
"""

from __future__ import annotations

import struct
from typing import BinaryIO, Iterator

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

from ..framing import Frame
from . import proto
from .logs import LogBatch, add_proto_request

FRAME_RECORDS = 50_000


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        if pos >= len(buf) or shift > 63:
            raise IndexError
        b = buf[pos]
        value |= (b & 0x7F) << shift
        pos += 1
        if not b & 0x80:
            return value, pos
        shift += 7


def _first_field(buf: bytes, pos: int, end: int, want: int) -> tuple[int, int] | None:
    """(start, end) of the first length-delimited field `want` in buf[pos:end], skipping others."""
    while pos < end:
        tag, pos = _varint(buf, pos)
        field, wire = tag >> 3, tag & 7
        if wire == 2:
            n, pos = _varint(buf, pos)
            if field == want:
                return pos, min(pos + n, end)
            pos += n
        elif wire == 0:
            _, pos = _varint(buf, pos)
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        else:
            return None
    return None


def _is_logs(head: bytes, at: int, end: int) -> bool:
    try:
        got = _first_field(head, at, end, 1)  # resource_logs / resource_spans
        got = got and _first_field(head, got[0], got[1], 2)  # scope_logs / scope_spans
        got = got and _first_field(head, got[0], got[1], 2)  # log_records / spans
        return bool(got) and got[0] < len(head) and head[got[0]] != 0x0A
    except IndexError:  # the head ends first
        return False


def sniff(head: bytes):
    """A framing sniffer: a frame generator for protobuf logs files, else None (tried before `proto.sniff`)."""
    if len(head) >= 5 and head[4] == 0x0A:
        (length,) = struct.unpack(">I", head[:4])
        if 0 < length <= proto.MAX_MESSAGE_BYTES and _is_logs(head, 4, min(len(head), 4 + length)):
            return length_prefixed_frames
    if head[:1] == b"\x0a" and _is_logs(head, 0, len(head)):
        return single_message_frames
    return None


def _frames(batches, counter) -> Iterator[Frame]:
    batch, errors = LogBatch(), []
    yielded = False
    for raw, starts, ends, lines, problems in batches:
        errors.extend(problems)
        for start, end, line in zip(starts, ends, lines):
            try:
                request = ExportLogsServiceRequest.FromString(bytes(raw[start:end]))
            except DecodeError as exc:
                errors.append((line, f"<{end - start} bytes of protobuf>",
                               f"not an OTLP ExportLogsServiceRequest in protobuf: {exc}"))
                continue
            add_proto_request(request, line, batch, errors)
            if len(batch) >= FRAME_RECORDS:
                yield Frame(errors=sorted(errors), tables={"otel_logs": batch.to_arrow()}, bytes_read=counter.count)
                batch, errors, yielded = LogBatch(), [], True
    if len(batch) or errors or not yielded:
        tables = {"otel_logs": batch.to_arrow()} if len(batch) else {}
        yield Frame(errors=sorted(errors), tables=tables, bytes_read=counter.count)


def single_message_frames(stream: BinaryIO, head: bytes, counter, max_bytes: int) -> Iterator[Frame]:
    rest = stream.read(proto.MAX_MESSAGE_BYTES)
    if stream.read(1):
        yield Frame(errors=[(1, "", f"a protobuf request over {proto.MAX_MESSAGE_BYTES // 1048576} MiB; "
                                    "split it or use the length-prefixed stream")], bytes_read=counter.count)
        return
    data = head + rest
    yield from _frames(iter([(data, [0], [len(data)], [1], [])]), counter)


def length_prefixed_frames(stream: BinaryIO, head: bytes, counter, max_bytes: int) -> Iterator[Frame]:
    yield from _frames(proto._length_prefixed_batches(stream, head, proto._Budget()), counter)
