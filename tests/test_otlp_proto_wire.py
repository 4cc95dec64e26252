"""The bulk wire-format decoder (`otlp.proto_wire`) gives what the upb walk (`proto.add_request`) gives.

`proto.add_request` over upb message objects is the readable statement of how
a protobuf request becomes `otel_spans` rows; file ingest runs `proto_wire`.
Random requests are built with the real protobuf classes (every AnyValue kind,
nested values, repeated keys, unicode and escapes, huge and odd numbers, good,
short, long and all-zero ids, several resource and scope spans, events, links,
unknown fields) and both must give the same Arrow table and the same errors.
Requests the fast path does not copy exactly must take the reference walk.
"""

from __future__ import annotations

import io
import json
import math
import random
import struct
from pathlib import Path

import pyarrow as pa
import pytest
from google.protobuf.message import DecodeError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, ArrayValue, KeyValue, KeyValueList
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from test_otlp_support import finished_spans, protobuf_of_json, request_of, sample_turns
from trace_audit.ingest.read.otlp import proto, proto_levels, proto_wire
from trace_audit.ingest.read.otlp.spans import SpanBatch

REAL = Path("/work/shared/real_traces/otlp_proto_examples")
TEXTS = ["", "x", "日本 ✓", 'quote " and \\ back', "line\nbreak\r\ttab", "\x00\x01\x1f\x7f ctl", "\b\f",
         "{\"j\": 1}", "emoji 🧪", "a" * 300, "\u2028sep"]


def reference(items: list[tuple[int, bytes]]):
    """What ingest did before proto_wire: one upb parse and walk per request."""
    batch, errors = SpanBatch(), []
    for line, data in items:
        try:
            proto.add_request(proto.parse_request(data), line, batch, errors)
        except DecodeError as exc:
            errors.append((line, f"<{len(data)} bytes of protobuf>", f"not a valid OTLP ExportTraceServiceRequest ({exc})"))
    return batch.to_arrow(), errors


def assert_same(items: list[tuple[int, bytes]]) -> list[bool]:
    """Both decoders agree on `items`; returns which requests took the reference walk."""
    want_table, want_errors = reference(items)
    table, errors, fell_back = proto_wire.decode_with_fallbacks(items)
    assert table.schema == want_table.schema
    for name in want_table.column_names:
        assert table[name].to_pylist() == want_table[name].to_pylist(), name
    assert table.equals(want_table)
    assert errors == want_errors
    return fell_back.tolist()


# ---- random requests ----------------------------------------------------------------

def _any(rng: random.Random, depth: int = 0) -> AnyValue:
    kinds = ["s", "s", "s", "b", "i", "d", "bytes", "arr", "kv", "empty"] if depth < 3 else ["s", "b", "i", "d"]
    kind = rng.choice(kinds)
    if kind == "s":
        return AnyValue(string_value=rng.choice(TEXTS))
    if kind == "b":
        return AnyValue(bool_value=rng.random() < 0.5)
    if kind == "i":
        return AnyValue(int_value=rng.choice([0, 5, -3, 2**63 - 1, -2**63, 9007199254740993, 300]))
    if kind == "d":
        return AnyValue(double_value=rng.choice([1.5, 2.0, math.nan, math.inf, -math.inf, 0.1, 1e300, -0.0, 1e16, 5e-324]))
    if kind == "bytes":
        return AnyValue(bytes_value=rng.choice([b"", b"\x01\x02", bytes(range(256))]))
    if kind == "arr":
        return AnyValue(array_value=ArrayValue(values=[_any(rng, depth + 1) for _ in range(rng.randint(0, 3))]))
    if kind == "kv":
        return AnyValue(kvlist_value=KeyValueList(values=_attrs(rng, depth + 1, 3)))
    return AnyValue()


def _attrs(rng: random.Random, depth: int = 0, most: int = 6) -> list[KeyValue]:
    out = []
    for _ in range(rng.randint(0, most)):
        key = rng.choice(["k", "gen_ai.tool.name", "same", "same", "", "日本", 'q"k', "a\nb"])
        if rng.random() < 0.08:
            out.append(KeyValue(key=key))  # no value at all
        else:
            out.append(KeyValue(key=key, value=_any(rng, depth)))
    return out


def _id(rng: random.Random, n: int) -> bytes:
    r = rng.random()
    if r < 0.04:
        return b""
    if r < 0.08:
        return bytes(n)
    if r < 0.12:
        return rng.randbytes(rng.choice([n - 1, n + 1, 3]))
    return rng.randbytes(n)


def _unknown(rng: random.Random) -> bytes:
    """A field no message here knows, with a valid wire type."""
    number = rng.choice([50, 99, 1000, 12345])
    kind = rng.choice([0, 1, 2, 5])
    tag = _varint(number << 3 | kind)
    if kind == 0:
        return tag + _varint(rng.choice([0, 1, 300, 2**64 - 1]))
    if kind == 1:
        return tag + rng.randbytes(8)
    if kind == 5:
        return tag + rng.randbytes(4)
    payload = rng.randbytes(rng.randint(0, 5))
    return tag + _varint(len(payload)) + payload


def _varint(v: int) -> bytes:
    out = bytearray()
    while True:
        out.append((v & 0x7F) | (0x80 if v > 0x7F else 0))
        v >>= 7
        if not v:
            return bytes(out)


def _span(rng: random.Random) -> Span:
    s = Span(trace_id=_id(rng, 16), span_id=_id(rng, 8),
             parent_span_id=rng.choice([b"", b"", _id(rng, 8)]),
             name=rng.choice(TEXTS), kind=rng.choice([0, 1, 2, 3, 4, 5, 7]),
             start_time_unix_nano=rng.choice([0, 1, 1_794_000_000_123_456_789, 2**63 - 1]),
             end_time_unix_nano=rng.choice([0, 1_794_000_000_999_000_001]))
    s.attributes.extend(_attrs(rng))
    if rng.random() < 0.3:
        s.trace_state = rng.choice(["", "k=v", "ü=1"])
    if rng.random() < 0.4:
        s.status.code = rng.choice([0, 1, 2, 5])
        s.status.message = rng.choice(TEXTS)
    for _ in range(rng.choice([0, 0, 1, 2])):
        e = s.events.add(name=rng.choice(TEXTS), time_unix_nano=rng.choice([0, 5, 2**64 - 1]))
        e.attributes.extend(_attrs(rng, 0, 3))
    for _ in range(rng.choice([0, 0, 0, 1])):
        link = s.links.add(trace_id=_id(rng, 16), span_id=_id(rng, 8), trace_state="a=b", flags=1)
        link.attributes.extend(_attrs(rng, 0, 2))
    if rng.random() < 0.2:
        s.dropped_attributes_count = 3
        s.flags = 0x100
    if rng.random() < 0.15:  # upb keeps unknown fields and writes them back out
        s = Span.FromString(s.SerializeToString() + _unknown(rng))
    return s


def random_request(rng: random.Random) -> bytes:
    req = ExportTraceServiceRequest()
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        rs = req.resource_spans.add()
        if rng.random() < 0.8:
            rs.resource.attributes.extend(_attrs(rng, 0, 4))
        if rng.random() < 0.2:
            rs.schema_url = "https://opentelemetry.io/schemas/1.21.0"
        for _ in range(rng.choice([0, 1, 1, 2])):
            ss = rs.scope_spans.add()
            if rng.random() < 0.7:
                ss.scope.name = rng.choice(["", "my.library", "ünï"])
                ss.scope.version = rng.choice(["", "1.0"])
            if rng.random() < 0.2:
                ss.scope.attributes.extend(_attrs(rng, 0, 2))
            ss.spans.extend(_span(rng) for _ in range(rng.choice([0, 1, 2, 5, 30])))
    data = req.SerializeToString()
    if rng.random() < 0.1:
        data += _unknown(rng)
    return data


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40))
def test_random_requests_decode_as_the_reference_walk_does(seed, n):
    rng = random.Random(seed)
    items = [(i + 1, random_request(rng)) for i in range(n)]
    fell_back = assert_same(items)
    # Overflowing timestamps are the reference's to raise on; everything else here is canonical.
    big = [any(s.start_time_unix_nano >= 2**63 for rs in ExportTraceServiceRequest.FromString(d).resource_spans
               for ss in rs.scope_spans for s in ss.spans) for _, d in items]
    assert fell_back == big


def test_many_requests_many_spans_take_the_fast_path():
    rng = random.Random(5)
    items = [(i + 1, random_request(rng)) for i in range(300)]
    assert not any(assert_same(items))


# ---- canonical requests ---------------------------------------------------------------

def test_sdk_exporter_requests_take_the_fast_path():
    data = request_of(finished_spans(sample_turns())).SerializeToString()
    assert assert_same([(1, data), (2, data), (3, data)]) == [False, False, False]


def _from_otlp_json(path: Path) -> bytes:
    return protobuf_of_json(json.loads(path.read_text()))


def test_the_specification_example_decodes_as_the_reference():
    data = _from_otlp_json(REAL / "trace.json")
    assert assert_same([(1, data)]) == [False]
    table, errors = proto_wire.decode_requests([(7, data)])
    assert errors == []
    row = table.to_pylist()[0]
    assert (row["trace_id"], row["span_id"], row["parent_span_id"], row["kind"], row["scope_name"], row["source_line"]) \
        == ("5b8efff798038103d269b633813fc60c", "eee19b7ec3c1b174", "eee19b7ec3c1b173", "server", "my.library", 7)
    assert json.loads(row["attributes"]) == {"my.span.attr": "some value"}
    assert json.loads(row["resource"]) == {"service.name": "my.service"}


# ---- what must take the reference walk ------------------------------------------------

def _simple(**span) -> ExportTraceServiceRequest:
    req = ExportTraceServiceRequest()
    s = req.resource_spans.add().scope_spans.add().spans.add(
        trace_id=b"\x01" * 16, span_id=b"\x02" * 8, name="step", start_time_unix_nano=10**18, **span)
    s.attributes.add(key="k", value=AnyValue(string_value="v"))
    return req


def _with_span_bytes(extra: bytes) -> bytes:
    """A request whose only span has `extra` appended to its encoding."""
    span = _simple().resource_spans[0].scope_spans[0].spans[0].SerializeToString() + extra
    ss = b"\x12" + _varint(len(span)) + span
    rs = b"\x12" + _varint(len(ss)) + ss
    return b"\x0a" + _varint(len(rs)) + rs


@pytest.mark.parametrize("extra,why", [
    (b"\x2a\x05other", "name given twice (the last wins)"),
    (b"\x7a\x02\x18\x01\x7a\x04\x12\x02hi", "status given twice (merged: code and message)"),
    (b"\x2a\x02\xc3\x28", "invalid UTF-8 in the name"),
    (b"\x1a\x01\xff", "invalid UTF-8 in trace_state, a field the rows do not use"),
    (b"\x4a\x05\x0a\x01k\x18\x01", "KeyValue.key_strindex, known to upb, not read here"),
    (b"\x4a\x06\x0a\x01k\x12\x01\x40", "AnyValue.string_value_strindex"),
    (b"\x4a\x0a\x0a\x01k\x12\x05\x0a\x01a\x18\x07", "two members of the AnyValue oneof"),
    (b"\x2a\x01", "a length past the end"),
    (b"\x30\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", "a varint over ten bytes"),
    (b"\xa3\x06\xa4\x06", "a group (an unknown field, upb skips it)"),
    (b"\xa6\x06", "wire type 6"),
    (b"\x02\x00", "field number 0"),
    (b"\x28\x01", "name with the wrong wire type"),
])
def test_unusual_requests_take_the_reference_walk(extra, why):
    data = _with_span_bytes(extra)
    good = _simple().SerializeToString()
    items = [(1, good), (2, data), (3, good)]
    try:
        want = reference(items)
    except (OverflowError, pa.ArrowException) as exc:
        with pytest.raises(type(exc)):
            proto_wire.decode_requests(items)
        return
    assert assert_same(items) == [False, True, False], why
    assert want[0].column("source_line").to_pylist()[:1] == [1] and want[0].column("source_line").to_pylist()[-1:] == [3]


@pytest.mark.parametrize("name", ["start_time_unix_nano", "end_time_unix_nano"])
def test_a_time_past_int64_rejects_the_span_not_the_run(name):
    # 2^63 ns does not fit a timestamp: the span is quarantined with why (it raised OverflowError
    # in the reference walk, which stopped the whole ingest run), its neighbours load.
    bad = _simple()
    setattr(bad.resource_spans[0].scope_spans[0].spans[0], name, 2**63)
    good = _simple().SerializeToString()
    items = [(1, good), (2, bad.SerializeToString()), (3, good)]
    assert assert_same(items) == [False, False, False]
    table, errors = proto_wire.decode_requests(items)
    assert table.column("source_line").to_pylist() == [1, 3]
    assert errors == [(2, "<protobuf span 'step'>",
                       f"span rejected: {name} 9223372036854775808 is past the largest time there is "
                       "(2^63 - 1 ns, in the year 2262)")]


def test_a_request_over_the_fast_size_takes_the_reference_walk(monkeypatch):
    # Over MAX_FAST_BYTES the bulk reader hands the request over whole (its memory is bounded by it).
    rng = random.Random(5)
    datas = [random_request(rng) for _ in range(4)]
    big = max(range(4), key=lambda i: len(datas[i]))
    monkeypatch.setattr(proto_levels, "MAX_FAST_BYTES", len(datas[big]) - 1)
    items = list(enumerate(datas, 1))
    assert assert_same(items) == [len(d) > len(datas[big]) - 1 for d in datas]


def test_no_requests_give_an_empty_table():
    table, errors = proto_wire.decode_requests([])
    assert table.num_rows == 0 and errors == [] and table.schema == reference([])[0].schema


def test_unknown_fields_are_skipped_on_the_fast_path():
    data = _with_span_bytes(b"\x90\x03\x05" + b"\xfa\x3e\x02hi" + b"\x85\x07\x01\x02\x03\x04")
    assert assert_same([(1, data)]) == [False]


def test_truncated_and_garbage_requests_are_quarantined_with_upb_message():
    good = _simple().SerializeToString()
    items = [(1, good[:-3]), (2, b"\x0a\xff\xff"), (3, good), (4, b"")]
    assert assert_same(items) == [True, True, False, False]
    _, errors = proto_wire.decode_requests(items)
    assert [e[0] for e in errors] == [1, 2]
    assert all("not a valid OTLP ExportTraceServiceRequest" in e[2] for e in errors)


def test_deep_nested_values_follow_upb_limit():
    """upb refuses a request nested over 100 messages deep; values near that take the reference walk."""
    for depth in (3, 40, 47, 48, 60):
        value = b"\x0a\x01x"
        for _ in range(depth):  # AnyValue.array_value -> ArrayValue.values -> AnyValue ...
            array = b"\x0a" + _varint(len(value)) + value
            value = b"\x2a" + _varint(len(array)) + array
        kv = b"\x0a\x04deep\x12" + _varint(len(value)) + value
        data = _with_span_bytes(b"\x4a" + _varint(len(kv)) + kv)
        assert assert_same([(1, data)]) == [depth > 42]
    assert reference([(1, data)])[1][0][2].endswith("Exceeded upb_DecodeOptions_MaxDepth)")


def test_long_messages_and_many_attributes_give_the_reference_rows():
    req = ExportTraceServiceRequest()
    ss = req.resource_spans.add().scope_spans.add()
    for i in range(5000):
        ss.spans.add(trace_id=b"\x01" * 16, span_id=i.to_bytes(8, "big") if i else b"\x09" * 8, name=f"s{i}")
    big = ss.spans[3]
    for i in range(3000):
        big.attributes.add(key=f"k{i % 2500}", value=AnyValue(int_value=i))
    assert assert_same([(1, req.SerializeToString())]) == [False]


# ---- frames -----------------------------------------------------------------------------

class Counter:
    count = 0


def _stream_frames(stream: bytes):
    return list(proto.length_prefixed_frames(io.BytesIO(stream[8:]), stream[:8], Counter, 0))


@pytest.mark.parametrize("tail,error", [
    (b"", None),
    (b"\x00\x00", "2 stray bytes at the end of the stream (file cut short?)"),
    (b"\x00\x00\x00\x09abc", "the last message is cut short (3 of 9 bytes)"),
    (b"\x7f\x00\x00\x00abc", "message length 2130706432 is over 256 MiB: not a length-prefixed OTLP stream, "
                             "or corrupt; the rest is not read"),
])
def test_length_prefixed_frames_are_the_reference_rows_in_frames(monkeypatch, tail, error):
    rng = random.Random(11)
    datas = [random_request(rng) for _ in range(60)]
    datas[7] = b"".join(datas[:30])  # one request over twice a batch: the buffer grows for it
    stream = b"".join(struct.pack(">I", len(d)) + d for d in datas) + tail
    monkeypatch.setattr(proto, "FRAME_SPANS", 100)
    monkeypatch.setattr(proto, "DECODE_BYTES_FIRST", 20_000)
    monkeypatch.setattr(proto, "DECODE_BYTES_MIN", 5_000)
    monkeypatch.setattr(proto, "DECODE_BYTES_MAX", 30_000)
    frames = _stream_frames(stream)
    tables = [f.tables["otel_spans"] for f in frames if "otel_spans" in f.tables]
    assert len(tables) > 3 and all(t.num_rows <= 100 for t in tables)
    # After the big request the batches are back within the budget (the grown buffer is not kept).
    sizes = [len(raw) for raw, *_ in proto._length_prefixed_batches(io.BytesIO(stream[8:]), stream[:8], proto._Budget())]
    big = sizes.index(max(sizes))
    assert max(sizes) > 2 * (20_000 + proto.PAD) and all(n <= 2 * (20_000 + proto.PAD) for n in sizes[big + 1:])
    want_table, want_errors = reference(list(enumerate(datas, 1)))
    assert pa.concat_tables(tables).equals(want_table)
    errors = [e for f in frames for e in f.errors]
    assert errors == want_errors + ([(61, "<0 bytes of protobuf>", error)] if error else [])


def test_a_stream_of_one_request_and_an_empty_stream_end():
    data = _simple().SerializeToString()
    frames = _stream_frames(struct.pack(">I", len(data)) + data)
    assert len(frames) == 1 and frames[0].errors == []
    assert frames[0].tables["otel_spans"].equals(reference([(1, data)])[0])


def test_fields_in_declaration_order_stay_on_the_fast_path():
    """Some writers follow the .proto's order, where `flags` (16) comes before `name` (5)."""
    span = (b"\x0a\x10" + b"\x01" * 16 + b"\x12\x08" + b"\x02" * 8 + b"\x85\x01\x01\x01\x00\x00"
            + b"\x2a\x04step" + b"\x30\x01" + b"\x39" + (10**18).to_bytes(8, "little"))
    ss = b"\x12" + _varint(len(span)) + span
    rs = b"\x12" + _varint(len(ss)) + ss
    data = b"\x0a" + _varint(len(rs)) + rs
    assert assert_same([(1, data)]) == [False]
    twice = span + b"\x85\x01\x00\x00\x00\x00"  # and a singular field given twice, out of order
    ss = b"\x12" + _varint(len(twice)) + twice
    rs = b"\x12" + _varint(len(ss)) + ss
    assert assert_same([(1, b"\x0a" + _varint(len(rs)) + rs)]) == [True]


def test_scope_or_resource_given_twice_take_the_reference_walk():
    span = _simple().resource_spans[0].scope_spans[0].spans[0].SerializeToString()
    spans = (b"\x12" + _varint(len(span)) + span) * 30
    for ss, rs_extra in [(b"\x0a\x03\x0a\x01a" + spans + b"\x0a\x05\x12\x03v.1", b""),   # scope twice: merged
                         (b"\x0a\x03\x0a\x01a" + spans, b"\x0a\x00\x0a\x06\x0a\x04\x0a\x02kk")]:  # resource twice
        rs = b"\x12" + _varint(len(ss)) + ss + rs_extra
        data = b"\x0a" + _varint(len(rs)) + rs
        plain = _simple().SerializeToString()
        assert assert_same([(1, plain)] * 30 + [(31, data)]) == [False] * 30 + [True]
