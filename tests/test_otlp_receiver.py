"""The OTLP/HTTP receiver, driven by the real OpenTelemetry SDK exporter and raw HTTP."""

from __future__ import annotations

import gzip
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from google.protobuf.json_format import MessageToDict
from google.rpc.status_pb2 import Status
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from opentelemetry.sdk.trace.export import SpanExportResult

from test_otlp_support import finished_spans, request_of, sample_turns
from trace_audit.ingest.receive.receiver import Receiver, ReceiverConfig
from trace_audit.queries.warehouse import db


@pytest.fixture
def receiver(tmp_path):
    r = Receiver(ReceiverConfig(db_path=str(tmp_path / "w.duckdb"), spool_dir=str(tmp_path / "spool"),
                                port=0, drain_interval=0.2, max_bytes=256 * 1024)).start()
    yield r
    r.stop()


def post(url: str, body: bytes, ctype: str, headers: dict | None = None) -> tuple[int, str, bytes]:
    req = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": ctype, **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.headers["Content-Type"], resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers["Content-Type"], err.read()


def rows(db_path: str, sql: str) -> list[tuple]:
    con = db.connect(db_path, read_only=True, wait_seconds=10)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_sdk_exporter_turns_become_tasks_steps_and_replies(receiver):
    exporter = OTLPSpanExporter(endpoint=f"{receiver.url}/v1/traces")
    spans = finished_spans(sample_turns())
    assert exporter.export(spans) == SpanExportResult.SUCCESS
    exporter.shutdown()
    receiver.drain_once()
    path = receiver.config.db_path
    tasks = rows(path, "SELECT goal, status, final_answer, conversation_id, user_id, agent_version, model, "
                       "total_steps, success_steps, finished_at IS NOT NULL FROM tasks ORDER BY started_at")
    assert tasks == [
        ("remind me at 8 tomorrow to call mum", "success", "OK, your reminder for 8:00 tomorrow is set.",
         "conv-1", "u-1", "2.4.0", "gpt-4o", 1, 1, True),
        ("what's on my list?", "success", "You have 2 reminders.", "conv-2", "u-2", "2.4.0", "gpt-4o", 1, 1, True),
        ("delete everything", "failed", "Done, all deleted.", "conv-3", "u-3", "2.4.0", "gpt-4o", 2, 0, True),
    ]
    steps = rows(path, "SELECT t.goal, s.seq, s.kind, s.tool, s.status, s.verified, s.attempts, s.error, s.detail, "
                       "s.args->>'time', s.input_tokens FROM steps s JOIN tasks t USING (task_id) "
                       "WHERE s.kind <> 'llm' ORDER BY t.started_at, s.seq")
    assert steps == [
        ("remind me at 8 tomorrow to call mum", 2, "tool", "create_reminder", "success", False, 2, None,
         "read-back found nothing", "2026-11-09T08:00", None),
        ("what's on my list?", 2, "tool", "list_reminders", "success", True, 1, None, None, None, None),
        ("delete everything", 2, "tool", "delete_reminder", "failed", None, None, "permission denied: WRITE",
         None, None, None),
        ("delete everything", 3, "tool", "delete_reminder", "failed", None, None, "timeout after 30s",
         None, None, None),
    ]
    llm = rows(path, "SELECT count(*), sum(input_tokens), min(model) FROM steps WHERE kind = 'llm'")
    assert llm == [(6, 3 * 320, "gpt-4o")]
    msgs = rows(path, "SELECT role, content FROM messages m JOIN tasks t USING (task_id) "
                      "WHERE t.conversation_id = 'conv-1' ORDER BY role DESC")
    assert msgs == [("user", "remind me at 8 tomorrow to call mum"),
                    ("assistant", "OK, your reminder for 8:00 tomorrow is set.")]
    assert receiver.stats.spans_accepted == 13 and receiver.stats.spans_loaded == 13
    assert list(Path(receiver.config.spool_dir).glob("*.otlp.*")) == []  # drained and removed


def test_json_over_http_and_gzip(receiver):
    body = MessageToDict(request_of(finished_spans(sample_turns()[:1])))  # base64 ids, enum names, int64 strings
    status, ctype, answer = post(f"{receiver.url}/v1/traces", gzip.compress(json.dumps(body, indent=2).encode()),
                                 "application/json", {"Content-Encoding": "gzip"})
    assert (status, ctype, json.loads(answer)) == (200, "application/json", {})
    receiver.drain_once()
    assert rows(receiver.config.db_path, "SELECT goal, status FROM tasks") == [
        ("remind me at 8 tomorrow to call mum", "success")]


def test_partial_success_counts_rejected_spans(receiver):
    request = request_of(finished_spans(sample_turns()[:1]))
    bad = request.resource_spans[0].scope_spans[0].spans[0]
    bad.trace_id = b"\x01\x02"  # 2 bytes: unusable
    status, ctype, answer = post(f"{receiver.url}/v1/traces", request.SerializeToString(), "application/x-protobuf")
    resp = ExportTraceServiceResponse.FromString(answer)
    assert (status, ctype) == (200, "application/x-protobuf")
    assert resp.partial_success.rejected_spans == 1
    assert "trace_id is 2 bytes" in resp.partial_success.error_message
    doc = {"resourceSpans": [{"scopeSpans": [{"spans": [
        {"traceId": "zz", "spanId": "0102030405060708", "name": "bad"},
        {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174", "name": "good",
         "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}}]}]}]}]}
    status, _, answer = post(f"{receiver.url}/v1/traces", json.dumps(doc).encode(), "application/json")
    assert status == 200 and json.loads(answer)["partialSuccess"]["rejectedSpans"] == "1"
    receiver.drain_once()
    assert rows(receiver.config.db_path, "SELECT count(*) FROM otel_spans") == [(4 - 1 + 1,)]  # a turn is 4 spans


@pytest.mark.parametrize("ctype,body", [("application/json", b"{}"), ("application/json", b'{"resourceSpans": []}'),
                                        ("application/x-protobuf", b"")])
def test_an_empty_request_is_acknowledged_and_spools_nothing(receiver, ctype, body):
    # An empty ExportTraceServiceRequest is valid in both encodings (an absent repeated field is empty).
    status, answer_type, answer = post(f"{receiver.url}/v1/traces", body, ctype)
    assert (status, answer_type) == (200, ctype)
    assert (json.loads(answer) if ctype == "application/json" else ExportTraceServiceResponse.FromString(answer)) \
        == ({} if ctype == "application/json" else ExportTraceServiceResponse())
    assert list(Path(receiver.config.spool_dir).glob("*.otlp.*")) == []


@pytest.mark.parametrize("ctype,body,headers,code", [
    ("application/x-protobuf", b"\xff\xff\xff garbage", {}, 400),
    ("application/json", b"{not json", {}, 400),
    ("application/json", b"[1, 2]", {}, 400),
    ("application/json", b'{"resourceSpans": 7}', {}, 400),
    ("text/plain", b"hello", {}, 415),
    ("application/json", b"{}", {"Content-Encoding": "br"}, 415),
    ("application/json", b"x" * (300 * 1024), {}, 413),
    ("application/json", gzip.compress(b" " * (300 * 1024)), {"Content-Encoding": "gzip"}, 413),
])
def test_error_codes(receiver, ctype, body, headers, code):
    status, answer_type, answer = post(f"{receiver.url}/v1/traces", body, ctype, headers)
    assert status == code
    if answer_type == "application/x-protobuf":
        assert Status.FromString(answer).message
    else:
        assert json.loads(answer)["message"]


def test_other_paths_and_methods(receiver):
    assert post(f"{receiver.url}/v1/metrics", b"{}", "application/json")[0] == 404
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(f"{receiver.url}/v1/traces", timeout=5)
    assert err.value.code == 405


def test_bearer_token(tmp_path):
    r = Receiver(ReceiverConfig(db_path=str(tmp_path / "w.duckdb"), spool_dir=str(tmp_path / "spool"),
                                port=0, token="s3cret")).start()
    try:
        body = request_of(finished_spans(sample_turns()[:1])).SerializeToString()
        assert post(f"{r.url}/v1/traces", body, "application/x-protobuf")[0] == 401
        assert post(f"{r.url}/v1/traces", body, "application/x-protobuf", {"Authorization": "Bearer nope"})[0] == 401
        exporter = OTLPSpanExporter(endpoint=f"{r.url}/v1/traces", headers={"Authorization": "Bearer s3cret"})
        assert exporter.export(finished_spans(sample_turns()[:1])) == SpanExportResult.SUCCESS
    finally:
        r.stop()
    assert rows(str(tmp_path / "w.duckdb"), "SELECT count(*) FROM tasks") == [(1,)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(db_path: Path, port: int, *extra: str) -> subprocess.Popen:
    if "--grpc-port" not in extra:
        extra = ("--grpc-port", str(_free_port()), *extra)  # never the shared default 4317
    proc = subprocess.Popen([sys.executable, "-m", "trace_audit.cli.main", "serve-otlp", "--db", str(db_path),
                             "--port", str(port), "--drain-interval", "0.2", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1).read()
            return proc
        except OSError:
            if proc.poll() is not None:
                raise AssertionError(f"serve-otlp exited: {proc.stderr.read()}")
            time.sleep(0.1)
    proc.kill()
    raise AssertionError("serve-otlp did not start")


def test_no_loss_across_a_crash_after_200_ok(tmp_path):
    """Acknowledged requests survive a SIGKILL before they were loaded; the next start loads them."""
    db_path = tmp_path / "w.duckdb"
    port = _free_port()
    proc = _serve(db_path, port, "--no-drain")
    try:
        exporter = OTLPSpanExporter(endpoint=f"http://127.0.0.1:{port}/v1/traces")
        for turn in sample_turns():  # three requests, three acknowledgements
            assert exporter.export(finished_spans([turn])) == SpanExportResult.SUCCESS
        exporter.shutdown()
    finally:
        os.kill(proc.pid, signal.SIGKILL)  # no chance to load or clean up
        proc.wait(timeout=10)
    assert not db_path.exists() or rows(str(db_path), "SELECT count(*) FROM tasks") == [(0,)]
    proc = _serve(db_path, port)  # drains the spool before it listens
    try:
        got = rows(str(db_path), "SELECT count(*), count(DISTINCT goal), sum(total_steps) FROM tasks")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
    assert got == [(3, 3, 4)]
    assert list((tmp_path / "w.duckdb.otlp-spool").glob("*.otlp.*")) == []


def test_cli_serves_grpc_on_its_port(tmp_path):
    """`serve-otlp --grpc-port N`: the SDK's gRPC exporter reaches it; SIGTERM loads what was acknowledged."""
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcSpanExporter

    db_path = tmp_path / "w.duckdb"
    grpc_port = _free_port()
    proc = _serve(db_path, _free_port(), "--grpc-port", str(grpc_port), "--no-drain")
    try:
        exporter = GrpcSpanExporter(endpoint=f"http://127.0.0.1:{grpc_port}", insecure=True)
        assert exporter.export(finished_spans(sample_turns())) == SpanExportResult.SUCCESS
        exporter.shutdown()
    finally:
        os.kill(proc.pid, signal.SIGKILL)  # acknowledged over gRPC, then a crash before any load
        proc.wait(timeout=10)
    proc = _serve(db_path, _free_port(), "--grpc-port", str(grpc_port))
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    assert f"and gRPC 127.0.0.1:{grpc_port}" in proc.stderr.read()
    assert rows(str(db_path), "SELECT count(*), sum(total_steps) FROM tasks") == [(3, 4)]


def test_cli_reads_while_the_receiver_runs(tmp_path):
    """`stats` works while serve-otlp is running and loading."""
    db_path = tmp_path / "w.duckdb"
    port = _free_port()
    proc = _serve(db_path, port)
    try:
        exporter = OTLPSpanExporter(endpoint=f"http://127.0.0.1:{port}/v1/traces")
        assert exporter.export(finished_spans(sample_turns())) == SpanExportResult.SUCCESS
        deadline = time.monotonic() + 20
        while True:
            try:
                if rows(str(db_path), "SELECT count(*) FROM tasks") == [(3,)]:
                    break
            except db.DatabaseError:
                pass
            assert time.monotonic() < deadline, "the receiver did not load the turns"
            time.sleep(0.2)
        out = subprocess.run([sys.executable, "-m", "trace_audit.cli.main", "stats", "--db", str(db_path)],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
