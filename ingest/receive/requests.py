"""The signals an OTLP export request may carry, the one check both transports call, and the answer.

`check(signal, encoding, body)` judges a request (what is stored is what passes; see
`validate`) and `Receiver.accept` spools what passed, so a request is accepted or refused
for the same reasons whether it came over HTTP or gRPC. The transports keep only what is
theirs: HTTP headers (size, Content-Encoding, token) and gRPC metadata. `answer` builds the
`Export...ServiceResponse` with partial success in either encoding.

Codes are HTTP status codes; the gRPC server maps them (`grpc_server.GRPC_CODES`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass

from .validate import Checked, Refused, check_json, check_protobuf
from .validate_logs import check_logs_json, check_logs_protobuf

PROTOBUF = "application/x-protobuf"
JSON = "application/json"
Rejected = Refused  # a request refused as a whole; `code` is the HTTP status to answer


@dataclass(frozen=True)
class Signal:
    name: str  # traces | logs
    path: str  # OTLP/HTTP path
    item: str  # what partial success counts, as the answer's words say it


TRACES = Signal("traces", "/v1/traces", "span")
LOGS = Signal("logs", "/v1/logs", "log record")
SIGNALS = {s.path: s for s in (TRACES, LOGS)}


def check(signal: Signal, encoding: str, body: bytes) -> Checked:
    """Decode and check one request; `encoding` is PROTOBUF or JSON. Raises Rejected(400)."""
    if signal is LOGS:
        return check_logs_protobuf(body) if encoding == PROTOBUF else check_logs_json(body)
    return check_protobuf(body) if encoding == PROTOBUF else check_json(body)


def partial_message(signal: Signal, rejected: int, reasons: list[str]) -> str:
    return f"{rejected} {signal.item}(s) rejected: " + "; ".join(reasons) if rejected else ""


def answer(signal: Signal, encoding: str, rejected: int, reasons: list[str]) -> bytes:
    """The Export...ServiceResponse of an accepted request, with partial success when items were rejected."""
    message = partial_message(signal, rejected, reasons)
    if encoding == PROTOBUF:
        if signal is LOGS:
            from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse as Response
        else:
            from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
                ExportTraceServiceResponse as Response)
        resp = Response()
        if rejected:
            if signal is LOGS:
                resp.partial_success.rejected_log_records = rejected
            else:
                resp.partial_success.rejected_spans = rejected
            resp.partial_success.error_message = message
        return resp.SerializeToString()
    field = "rejectedLogRecords" if signal is LOGS else "rejectedSpans"
    body = {"partialSuccess": {field: str(rejected), "errorMessage": message}} if rejected else {}
    return json.dumps(body).encode()


def bearer_matches(authorization: str, token: str) -> bool:
    """Whether an Authorization value (HTTP header or gRPC metadata) is `Bearer <token>`."""
    scheme, _, value = authorization.partition(" ")
    # Digests, not the texts: compare_digest on texts of different lengths returns early.
    return scheme.lower() == "bearer" and hmac.compare_digest(
        hashlib.sha256(value.strip().encode()).digest(), hashlib.sha256(token.encode()).digest())
