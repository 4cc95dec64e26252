"""The bulk protobuf reader's levels: the message layouts it handles, the buffer (Wire), one
nesting level of messages (Level) and the fields read at a level (Fields).

Part of the bulk protobuf reader: `proto_wire.py` says how it works."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, InstrumentationScope, KeyValue
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span, Status

from . import proto
from .spans import SPAN_KINDS, STATUS_CODES


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
