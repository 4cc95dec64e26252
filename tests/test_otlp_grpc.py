"""OTLP/gRPC into the receiver: the SDK's own gRPC exporter, and raw gRPC calls for the status codes."""

from __future__ import annotations

import errno
import http.client
import json
import socket

import grpc
import pytest
from google.rpc.error_details_pb2 import RetryInfo
from google.rpc.status_pb2 import Status
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcSpanExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpSpanExporter
from opentelemetry.exporter.otlp.proto.grpc.exporter import Compression
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from opentelemetry.sdk.trace.export import SpanExportResult

from test_otlp_receiver import rows
from test_otlp_support import finished_spans, request_of, sample_turns
from trace_audit.ingest.receive.receiver import Receiver, ReceiverConfig

TRACE_EXPORT = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


def start(tmp_path, name: str = "w", **kw) -> Receiver:
    return Receiver(ReceiverConfig(db_path=str(tmp_path / f"{name}.duckdb"), spool_dir=str(tmp_path / f"{name}-spool"),
                                   port=0, grpc_port=0, drain_interval=0.2, **kw)).start()


@pytest.fixture
def receiver(tmp_path):
    r = start(tmp_path, max_bytes=256 * 1024)
    yield r
    r.stop()


def call(r: Receiver, body: bytes, method: str = TRACE_EXPORT, metadata=()):
    """One unary call with raw bytes; returns (code, response bytes or None, details, trailing metadata)."""
    with grpc.insecure_channel(f"127.0.0.1:{r.grpc_port}") as channel:
        stub = channel.unary_unary(method)
        try:
            resp, c = stub.with_call(body, timeout=10, metadata=metadata)
            return c.code(), resp, c.details(), dict(c.trailing_metadata() or ())
        except grpc.RpcError as err:
            return err.code(), None, err.details(), dict(err.trailing_metadata() or ())


TABLES = {
    "tasks": "SELECT goal, status, final_answer, conversation_id, user_id, agent_version, model, total_steps, "
             "success_steps, finished_at IS NOT NULL FROM tasks ORDER BY started_at",
    "steps": "SELECT t.goal, s.seq, s.kind, s.tool, s.status, s.verified, s.attempts, s.error, s.detail "
             "FROM steps s JOIN tasks t USING (task_id) ORDER BY t.started_at, s.seq",
    "messages": "SELECT role, content FROM messages ORDER BY created_at, role",
}


def test_sdk_grpc_exporter_stores_what_the_http_exporter_stores(tmp_path):
    """The same turns through the stock gRPC exporter (gzip, as many deployments set) and the HTTP one."""
    spans = finished_spans(sample_turns())
    over_grpc, over_http = start(tmp_path, "grpc"), start(tmp_path, "http")
    try:
        exporter = GrpcSpanExporter(endpoint=f"http://127.0.0.1:{over_grpc.grpc_port}", insecure=True,
                                    compression=Compression.Gzip)
        assert exporter.export(spans) == SpanExportResult.SUCCESS
        exporter.shutdown()
        exporter = HttpSpanExporter(endpoint=f"{over_http.url}/v1/traces")
        assert exporter.export(spans) == SpanExportResult.SUCCESS
        exporter.shutdown()
    finally:
        over_grpc.stop()
        over_http.stop()
    got = {t: rows(over_grpc.config.db_path, q) for t, q in TABLES.items()}
    assert got == {t: rows(over_http.config.db_path, q) for t, q in TABLES.items()}
    assert [r[:3] for r in got["tasks"]] == [
        ("remind me at 8 tomorrow to call mum", "success", "OK, your reminder for 8:00 tomorrow is set."),
        ("what's on my list?", "success", "You have 2 reminders."),
        ("delete everything", "failed", "Done, all deleted."),
    ]
    assert [(r[3], r[4], r[7]) for r in got["steps"] if r[2] == "tool"] == [
        ("create_reminder", "success", None), ("list_reminders", "success", None),
        ("delete_reminder", "failed", "permission denied: WRITE"), ("delete_reminder", "failed", "timeout after 30s")]
    assert ("assistant", "Done, all deleted.") in got["messages"]
    assert over_grpc.stats.spans_accepted == over_http.stats.spans_accepted == len(spans)


def test_partial_success_names_the_rejected_spans(receiver):
    request = request_of(finished_spans(sample_turns()[:1]))
    request.resource_spans[0].scope_spans[0].spans[0].trace_id = b"\x01\x02"
    code, resp, _, _ = call(receiver, request.SerializeToString())
    assert code == grpc.StatusCode.OK
    answer = ExportTraceServiceResponse.FromString(resp)
    assert answer.partial_success.rejected_spans == 1
    assert answer.partial_success.error_message == "1 span(s) rejected: trace_id is 2 bytes, expected 16 non-zero bytes"
    receiver.drain_once()
    assert rows(receiver.config.db_path, "SELECT count(*) FROM otel_spans") == [(3,)]


def test_an_empty_request_is_ok_with_no_partial_success(receiver):
    code, resp, _, _ = call(receiver, b"")
    assert code == grpc.StatusCode.OK and ExportTraceServiceResponse.FromString(resp) == ExportTraceServiceResponse()


def test_an_unreadable_request_is_invalid_argument(receiver):
    code, _, details, _ = call(receiver, b"\xff\xff\xff garbage")
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert details.startswith("the body is not an OTLP ExportTraceServiceRequest in protobuf")


def test_over_the_size_limit_is_resource_exhausted(receiver):
    request = request_of(finished_spans(sample_turns()))
    request.resource_spans[0].scope_spans[0].spans[0].name = "x" * (300 * 1024)
    code, _, _, _ = call(receiver, request.SerializeToString())
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert receiver.stats.requests == 0


def test_a_full_spool_is_unavailable_with_retry_info(receiver, monkeypatch):
    def disk_full(kind, payload):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(receiver.spool, "append", disk_full)
    code, _, details, trailers = call(receiver, request_of(finished_spans(sample_turns()[:1])).SerializeToString())
    assert code == grpc.StatusCode.UNAVAILABLE
    assert details == "cannot persist the request (No space left on device); retry later"
    status = Status.FromString(trailers["grpc-status-details-bin"])
    info = RetryInfo()
    assert status.code == grpc.StatusCode.UNAVAILABLE.value[0] and status.details[0].Unpack(info)
    assert info.retry_delay.seconds == 5


def test_other_services_are_unimplemented(receiver):
    code, _, _, _ = call(receiver, b"", "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export")
    assert code == grpc.StatusCode.UNIMPLEMENTED


def test_bearer_token_over_grpc(tmp_path):
    r = start(tmp_path, token="s3cret")
    try:
        body = request_of(finished_spans(sample_turns()[:1])).SerializeToString()
        assert call(r, body)[0] == grpc.StatusCode.UNAUTHENTICATED
        assert call(r, body, metadata=(("authorization", "Bearer nope"),))[0] == grpc.StatusCode.UNAUTHENTICATED
        exporter = GrpcSpanExporter(endpoint=f"http://127.0.0.1:{r.grpc_port}", insecure=True,
                                    headers={"authorization": "Bearer s3cret"})
        assert exporter.export(finished_spans(sample_turns()[:1])) == SpanExportResult.SUCCESS
        exporter.shutdown()
    finally:
        r.stop()
    assert rows(r.config.db_path, "SELECT count(*) FROM tasks") == [(1,)]


def _http_port(r: Receiver) -> int:
    return int(r.url.rsplit(":", 1)[1])


def test_grpc_sent_to_the_http_port_gets_a_400_that_says_what_to_set(receiver):
    # An HTTP/2 connection (what a gRPC exporter pointed at 4318 opens with).
    with socket.create_connection(("127.0.0.1", _http_port(receiver)), timeout=5) as s:
        s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        reply = b""
        while chunk := s.recv(4096):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ")
    message = json.loads(body)["message"]
    assert f"send gRPC to port {receiver.grpc_port}" in message
    assert "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf" in message
    # gRPC framing over HTTP/1.1 (a proxy that downgrades), by its content type.
    conn = http.client.HTTPConnection("127.0.0.1", _http_port(receiver), timeout=5)
    conn.request("POST", "/opentelemetry.proto.collector.trace.v1.TraceService/Export", b"\x00\x00\x00\x00\x00",
                 {"Content-Type": "application/grpc"})
    resp = conn.getresponse()
    assert resp.status == 400 and "gRPC request (Content-Type application/grpc)" in json.loads(resp.read())["message"]
    conn.close()


def test_calls_past_the_cap_are_refused_at_once_not_queued(receiver, monkeypatch):
    import threading
    import time

    release = threading.Event()
    real_append = receiver.spool.append

    def slow_disk(kind, *payloads):
        release.wait(20)
        real_append(kind, *payloads)

    monkeypatch.setattr(receiver.spool, "append", slow_disk)
    body = request_of(finished_spans(sample_turns()[:1])).SerializeToString()
    with grpc.insecure_channel(f"127.0.0.1:{receiver.grpc_port}") as channel:
        export = channel.unary_unary(TRACE_EXPORT)
        calls = [export.future(body, timeout=60) for _ in range(70)]
        time.sleep(2)
        # The ones past the cap have come back while the others still wait on the disk.
        refused = [c.code() for c in calls if c.done()]
        release.set()
        codes = [c.code() for c in calls]
    assert refused and set(refused) == {grpc.StatusCode.RESOURCE_EXHAUSTED}
    assert codes.count(grpc.StatusCode.OK) == 64 and codes.count(grpc.StatusCode.RESOURCE_EXHAUSTED) == 6
