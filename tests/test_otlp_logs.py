"""The logs signal: GenAI events give the turn its request and reply text; other log records are kept.

Turns are made with the real OpenTelemetry SDK as the official OpenAI instrumentation (openai-v2)
makes them by default: the `chat` spans carry no message content, which goes out as log events
in the span's context (`gen_ai.user.message` with body {content}, `gen_ai.choice` with body
{index, finish_reason, message: {role, content}}: the shapes of that instrumentation's
`message_to_event` / `choice_to_event`), or, in the later GenAI conventions, as one
`gen_ai.client.inference.operation.details` event with `gen_ai.input.messages` /
`gen_ai.output.messages`. They reach the receiver through the SDK's own OTLP log exporters.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from opentelemetry import trace
from opentelemetry._logs import LogRecord
from opentelemetry.exporter.otlp.proto.grpc._log_exporter import OTLPLogExporter as GrpcLogExporter
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcSpanExporter
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter as HttpLogExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpSpanExporter
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest, ExportLogsServiceResponse
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.trace import SpanKind, Status, StatusCode

from test_otlp_receiver import post, rows
from trace_audit.ingest.load.loader import ingest
from trace_audit.ingest.receive.receiver import Receiver, ReceiverConfig

T0 = 1_794_000_000_000_000_000
EXAMPLES = Path("/work/shared/real_traces/otlp_proto_examples")
if not EXAMPLES.exists():  # CI's copy of shared/ sits beside the checkout
    EXAMPLES = Path(__file__).resolve().parents[2] / "shared" / "real_traces" / "otlp_proto_examples"
REQUEST = "remind me at 8 tomorrow to call mum"
REPLY = "OK, your reminder for 8:00 tomorrow is set."


def emit_turn(tp: TracerProvider, lp: LoggerProvider, details_event: bool = False) -> None:
    """An agent turn whose tool fails and whose reply says it is done; texts only in log events."""
    tracer, logger = tp.get_tracer("agent"), lp.get_logger("opentelemetry.instrumentation.openai_v2")
    clock = [T0]

    def tick() -> int:
        clock[0] += 1_000_000
        return clock[0]

    def event(name: str, body=None, **attrs) -> None:
        logger.emit(LogRecord(timestamp=tick(), event_name=name, body=body,
                              attributes={"gen_ai.system": "openai", **attrs}))

    agent = tracer.start_span("invoke_agent reminder-assistant", start_time=tick(), attributes={
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "reminder-assistant", "user.id": "u-1"})
    with trace.use_span(agent, end_on_exit=False):
        chat = tracer.start_span("chat gpt-4o", kind=SpanKind.CLIENT, start_time=tick(),
                                 attributes={"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o"})
        with trace.use_span(chat, end_on_exit=False):
            if details_event:
                event("gen_ai.client.inference.operation.details", None,
                      **{"gen_ai.input.messages": json.dumps([{"role": "user", "parts": [
                          {"type": "text", "content": REQUEST}]}])})
            else:
                event("gen_ai.system.message", {"content": "You set reminders."})
                event("gen_ai.user.message", {"content": REQUEST})
                event("gen_ai.choice", {"index": 0, "finish_reason": "tool_calls", "message": {
                    "role": "assistant", "tool_calls": [{"id": "call_1", "type": "function", "function": {
                        "name": "create_reminder", "arguments": '{"time": "08:00"}'}}]}})
        chat.end(end_time=tick())
        tool = tracer.start_span("execute_tool create_reminder", start_time=tick(), attributes={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "create_reminder",
            "gen_ai.tool.call.arguments": '{"time": "08:00"}',
            "gen_ai.tool.call.result": '{"success": false, "error": "permission denied: WRITE"}'})
        tool.set_status(Status(StatusCode.ERROR, "permission denied: WRITE"))
        tool.end(end_time=tick())
        final = tracer.start_span("chat gpt-4o", kind=SpanKind.CLIENT, start_time=tick(),
                                  attributes={"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o"})
        with trace.use_span(final, end_on_exit=False):
            if details_event:
                event("gen_ai.client.inference.operation.details", None, **{
                    "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [
                        {"type": "text", "content": REQUEST}]}]),
                    "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
                        {"type": "text", "content": REPLY}], "finish_reason": "stop"}])})
            else:
                event("gen_ai.user.message", {"content": REQUEST})
                event("gen_ai.tool.message", {"content": "permission denied: WRITE", "id": "call_1"})
                event("gen_ai.choice", {"index": 0, "finish_reason": "stop",
                                        "message": {"role": "assistant", "content": REPLY}})
        final.end(end_time=tick())
        logger.emit(LogRecord(timestamp=tick(), severity_text="INFO", body="reminder request handled"))
    agent.end(end_time=tick())


def providers(span_exporter, log_exporter) -> tuple[TracerProvider, LoggerProvider]:
    resource = Resource.create({"service.name": "agent-svc", "service.version": "2.4.0"})
    tp = TracerProvider(resource=resource)
    tp.add_span_processor(SimpleSpanProcessor(span_exporter))
    lp = LoggerProvider(resource=resource)
    lp.add_log_record_processor(SimpleLogRecordProcessor(log_exporter))
    return tp, lp


@pytest.fixture
def receiver(tmp_path):
    r = Receiver(ReceiverConfig(db_path=str(tmp_path / "w.duckdb"), spool_dir=str(tmp_path / "spool"),
                                port=0, grpc_port=0, drain_interval=0.2)).start()
    yield r
    r.stop()


def exporters(r: Receiver, transport: str):
    if transport == "grpc":
        endpoint = f"http://127.0.0.1:{r.grpc_port}"
        return GrpcSpanExporter(endpoint=endpoint, insecure=True), GrpcLogExporter(endpoint=endpoint, insecure=True)
    return HttpSpanExporter(endpoint=f"{r.url}/v1/traces"), HttpLogExporter(endpoint=f"{r.url}/v1/logs")


def said_but_not_done(db_path: str) -> list[tuple]:
    out = subprocess.run([sys.executable, "-m", "trace_audit.cli.main", "rules", "run", "--db", db_path],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode in (0, 1), out.stderr
    return rows(db_path, "SELECT t.goal, t.final_answer FROM findings f JOIN tasks t USING (task_id) "
                         "WHERE f.rule_id = 'said_but_not_done'")


@pytest.mark.parametrize("transport", ["http", "grpc"])
@pytest.mark.parametrize("details_event", [False, True], ids=["message events", "inference details event"])
def test_sdk_log_events_supply_the_turns_texts(receiver, transport, details_event):
    spans, logs = exporters(receiver, transport)
    tp, lp = providers(spans, logs)
    emit_turn(tp, lp, details_event)
    tp.shutdown()
    lp.shutdown()
    receiver.drain_once()
    path = receiver.config.db_path
    assert rows(path, "SELECT goal, final_answer, status, total_steps - success_steps FROM tasks") == [
        (REQUEST, REPLY, "failed", 1)]
    assert rows(path, "SELECT role, content FROM messages ORDER BY role DESC") == [("user", REQUEST),
                                                                                   ("assistant", REPLY)]
    # Every record is stored, the plain log line too, each joined to its span by ids.
    stored = rows(path, "SELECT l.event_name, s.name FROM otel_logs l LEFT JOIN otel_spans s USING (trace_id, span_id) "
                        "ORDER BY l.logged_at")
    assert stored[-1] == (None, "invoke_agent reminder-assistant")
    assert len(stored) == (3 if details_event else 7) and all(name for _, name in stored)
    assert receiver.stats.logs_accepted == len(stored) and receiver.stats.logs_rejected == 0
    assert said_but_not_done(path) == [(REQUEST, REPLY)]
    out = subprocess.run([sys.executable, "-m", "trace_audit.cli.main", "stats", "--db", path, "--json"],
                         capture_output=True, text=True, timeout=60)
    assert json.loads(out.stdout)["otel_logs"] == len(stored)


def test_logs_before_spans_and_again_are_the_same_turn(tmp_path):
    """Logs and spans in separate files, logs first, the logs file loaded twice: one turn, each log once."""
    span_mem, log_mem = trace_export_memory(), InMemoryLogRecordExporter()
    tp, lp = providers(span_mem, log_mem)
    emit_turn(tp, lp)
    tp.shutdown()
    lp.shutdown()
    from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    logs_pb = encode_logs(log_mem.get_finished_logs()).SerializeToString()
    (tmp_path / "logs.otlp").write_bytes(len(logs_pb).to_bytes(4, "big") + logs_pb)  # Collector stream layout
    (tmp_path / "logs.pb").write_bytes(logs_pb)  # one request per file
    (tmp_path / "spans.pb").write_bytes(encode_spans(span_mem.get_finished_spans()).SerializeToString())
    path = str(tmp_path / "w.duckdb")
    for name in ("logs.otlp", "spans.pb", "logs.pb"):
        summary = ingest([str(tmp_path / name)], path, progress=False)
        assert [f.status for f in summary.files] == ["loaded"] and summary.quarantined == 0
    assert rows(path, "SELECT goal, final_answer FROM tasks") == [(REQUEST, REPLY)]
    assert rows(path, "SELECT count(*), count(DISTINCT log_id) FROM otel_logs") == [(7, 7)]


def trace_export_memory():
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    return InMemorySpanExporter()


def test_the_specification_examples_load(tmp_path):
    path = str(tmp_path / "w.duckdb")
    summary = ingest([str(EXAMPLES / "logs.json"), str(EXAMPLES / "events.json")], path, progress=False)
    assert [(f.status, f.counts.get("otel_logs"), f.errors) for f in summary.files] == [("loaded", 1, 0)] * 2
    got = rows(path, "SELECT trace_id, span_id, event_name, severity_number, severity_text, body, "
                     "attributes->>'map.attribute', resource->>'service.name', scope_name, "
                     "strftime(logged_at, '%Y-%m-%d %H:%M:%S.%f') FROM otel_logs ORDER BY severity_number DESC")
    assert got == [
        ("5b8efff798038103d269b633813fc60c", "eee19b7ec3c1b174", None, 10, "Information", '"Example log record"',
         '{"some.map.key":"some value"}', "my.service", "my.library", "2018-12-13 14:51:00.300000"),
        (None, None, "browser.page_view", 9, "test severity text",
         '{"type":0,"url":"https://www.guidgenerator.com/online-guid-generator.aspx",'
         '"referrer":"https://wwww.google.com","title":"Free Online GUID Generator"}',
         None, "my.service", "my.library", "2018-12-13 14:51:00.300000"),
    ]


def test_logs_partial_success_and_refusals(receiver):
    doc = json.loads((EXAMPLES / "logs.json").read_text())
    records = doc["resourceLogs"][0]["scopeLogs"][0]["logRecords"]
    records.append({**records[0], "traceId": "0102"})  # read as base64: 3 bytes, unusable
    status, _, answer = post(f"{receiver.url}/v1/logs", json.dumps(doc).encode(), "application/json")
    assert status == 200 and json.loads(answer)["partialSuccess"] == {
        "rejectedLogRecords": "1", "errorMessage": "1 log record(s) rejected: traceId '0102' is 3 bytes, "
                                                   "expected 16 (hex or base64)"}
    request = ExportLogsServiceRequest()
    request.resource_logs.add().scope_logs.add().log_records.add(span_id=b"\x01\x02", event_name="x")
    with grpc.insecure_channel(f"127.0.0.1:{receiver.grpc_port}") as channel:
        export = channel.unary_unary("/opentelemetry.proto.collector.logs.v1.LogsService/Export")
        answer = ExportLogsServiceResponse.FromString(export(request.SerializeToString(), timeout=10))
        assert answer.partial_success.rejected_log_records == 1
        with pytest.raises(grpc.RpcError) as err:
            export(b"\xff\xff garbage", timeout=10)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert post(f"{receiver.url}/v1/logs", b'{"resourceLogs": 3}', "application/json")[0] == 400
    receiver.drain_once()
    assert rows(receiver.config.db_path, "SELECT count(*) FROM otel_logs") == [(1,)]


def test_a_logs_request_over_the_record_limit_is_cut_not_quarantined(tmp_path):
    """A JSON request larger than one record the loader reads is spooled as several, every record kept."""
    from trace_audit.ingest.receive.validate_logs import check_logs_json

    records = [{"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174",
                "eventName": "gen_ai.user.message", "timeUnixNano": str(T0 + i),
                "body": {"kvlistValue": {"values": [{"key": "content", "value": {"stringValue": f"{i} " + "x" * 900}}]}}}
               for i in range(40)]
    body = json.dumps({"resourceLogs": [{"resource": {"attributes": [
        {"key": "service.name", "value": {"stringValue": "agent-svc"}}]},
        "scopeLogs": [{"scope": {"name": "openai_v2"}, "logRecords": records}]}]}).encode()
    checked = check_logs_json(body, max_record_bytes=8 * 1024)
    assert (checked.accepted, checked.rejected) == (40, 0) and len(checked.records) > 4
    assert all(len(r) <= 8 * 1024 for r in checked.records)
    spool = tmp_path / "segment.otlp.logs.jsonl"
    spool.write_bytes(b"".join(r + b"\n" for r in checked.records))
    path = str(tmp_path / "w.duckdb")
    assert ingest([str(spool)], path, progress=False).quarantined == 0
    assert rows(path, "SELECT count(DISTINCT body), min(resource->>'service.name'), min(scope_name) FROM otel_logs") \
        == [(40, "agent-svc", "openai_v2")]
