"""OTLP files: every encoding producers write, each dialect, split and out-of-order traces."""

from __future__ import annotations

import base64
import gzip
import json
import struct
from pathlib import Path

import pytest
from google.protobuf.json_format import MessageToDict

from test_otlp_support import finished_spans, request_of, sample_turns
from trace_audit.ingest.load.loader import ingest
from trace_audit.queries.warehouse import db

REAL = Path("/work/shared/real_traces/otlp_proto_examples")
TASK_COLS = "task_id, status, goal, final_answer, conversation_id, user_id, agent_version, model, total_steps, success_steps, started_at, finished_at"
STEP_COLS = "task_id, seq, kind, tool, status, verified, attempts, error, detail, CAST(args AS VARCHAR), CAST(result AS VARCHAR), model, input_tokens, output_tokens, span_id"


def load(db_path: str, *paths) -> list:
    summary = ingest([str(p) for p in paths], db_path, progress=False)
    assert not summary.failed, [f.message for f in summary.failed]
    return summary.files


def q(db_path: str, sql: str) -> list[tuple]:
    con = db.connect(db_path, read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def snapshot(db_path: str) -> tuple:
    return (q(db_path, f"SELECT {TASK_COLS} FROM tasks ORDER BY task_id"),
            q(db_path, f"SELECT {STEP_COLS} FROM steps ORDER BY task_id, seq"),
            q(db_path, "SELECT message_id, role, content, created_at, task_id FROM messages ORDER BY message_id"))


def to_otlp_json(request) -> dict:
    """The OTLP/JSON form: hex ids and integer enums (protobuf's printer writes base64 and names)."""
    doc = MessageToDict(request)
    for rs in doc["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for s in ss["spans"]:
                for k in ("traceId", "spanId", "parentSpanId"):
                    if k in s:
                        s[k] = base64.b64decode(s[k]).hex().upper()  # upper case is accepted too
                s["kind"] = {"SPAN_KIND_INTERNAL": 1, "SPAN_KIND_CLIENT": 3}.get(s.get("kind"), 0)
                if "status" in s and "code" in s["status"]:
                    s["status"]["code"] = {"STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2}[s["status"]["code"]]
                s["startTimeUnixNano"] = int(s["startTimeUnixNano"])  # numbers as well as strings
    return doc


@pytest.fixture(scope="module")
def request_():
    return request_of(finished_spans(sample_turns()))


@pytest.fixture(scope="module")
def expected(request_, tmp_path_factory):
    d = tmp_path_factory.mktemp("ref")
    (d / "ref.binpb").write_bytes(request_.SerializeToString())
    load(str(d / "ref.duckdb"), d / "ref.binpb")
    snap = snapshot(str(d / "ref.duckdb"))
    assert len(snap[0]) == 3 and len(snap[1]) == 10 and len(snap[2]) == 6
    return snap


def write_variant(kind: str, request, d: Path) -> Path:
    data = request.SerializeToString()
    if kind == "protobuf":
        p = d / "x.pb"
        p.write_bytes(data)
    elif kind == "length-prefixed":  # the Collector file exporter's proto format, two requests
        half = type(request)()
        half.CopyFrom(request)
        p = d / "x.otlp"
        p.write_bytes(struct.pack(">I", len(data)) + data + struct.pack(">I", len(data)) + data)
    elif kind == "protobuf-gz":
        p = d / "x.pb.gz"
        p.write_bytes(gzip.compress(data))
    elif kind == "protojson-base64":  # base64 ids, enum names, int64 as strings
        p = d / "x.json"
        p.write_text(json.dumps(MessageToDict(request), indent=2))
    elif kind == "otlp-json-lines":  # Collector file exporter JSON: one request per line
        doc = to_otlp_json(request)
        one = {"resourceSpans": doc["resourceSpans"]}
        p = d / "x.jsonl"
        p.write_text(json.dumps(one) + "\n" + json.dumps(one) + "\n")
    elif kind == "otlp-json-gz-snake":
        doc = MessageToDict(request, preserving_proto_field_name=True)
        p = d / "x.jsonl.gz"
        p.write_bytes(gzip.compress((json.dumps(doc) + "\n").encode()))
    return p


@pytest.mark.parametrize("kind", ["protobuf", "length-prefixed", "protobuf-gz", "protojson-base64",
                                  "otlp-json-lines", "otlp-json-gz-snake"])
def test_every_encoding_gives_the_same_rows(kind, request_, expected, tmp_path):
    path = write_variant(kind, request_, tmp_path)
    files = load(str(tmp_path / "w.duckdb"), path)
    assert files[0].errors == 0 and files[0].formats == ["otlp"]
    assert snapshot(str(tmp_path / "w.duckdb")) == expected


def test_big_requests_among_other_records_keep_their_lines(tmp_path):
    # Requests of ~2 MB: the decoder cuts such a frame into batches by size (so that
    # DuckDB reads it on every thread); each record must still get its own kind and line.
    from test_ingest_support import task
    from trace_audit.ingest.read.decoder import SCAN_BATCH_BYTES, _chunked

    def padded(turn) -> str:
        doc = to_otlp_json(request_of(finished_spans([turn])))
        doc["resourceSpans"][0]["resource"]["attributes"].append(
            {"key": "padding", "value": {"stringValue": "x" * SCAN_BATCH_BYTES}})
        return json.dumps({"resourceSpans": doc["resourceSpans"]})

    turns = sample_turns()
    lines = [padded(turns[0]), json.dumps(task(1)), "not json at all", padded(turns[1]), padded(turns[2])]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n")
    db_path = str(tmp_path / "w.duckdb")
    files = load(db_path, path)
    assert files[0].errors == 1
    assert q(db_path, "SELECT line FROM ingest_errors") == [(3,)]
    assert q(db_path, "SELECT source, source_line FROM tasks ORDER BY source_line") == [
        ("otlp", 1), ("seed004", 2), ("otlp", 4), ("otlp", 5)]
    assert q(db_path, "SELECT DISTINCT source_line FROM otel_spans ORDER BY 1") == [(1,), (4,), (5,)]

    import pyarrow as pa
    frame = pa.table({"line": pa.array(range(1, 6), pa.int64()), "raw": pa.array(lines, pa.large_string())})
    chunked = _chunked(frame)
    assert len(chunked.to_batches()) >= 3 and chunked.equals(frame)


def test_the_canonical_spec_example_parses(tmp_path):
    files = load(str(tmp_path / "w.duckdb"), REAL / "trace.json")
    assert files[0].errors == 0
    got = q(str(tmp_path / "w.duckdb"), "SELECT trace_id, span_id, parent_span_id, kind, attributes->>'my.span.attr', "
                                         "resource->>'service.name', scope_name, epoch(ended_at - started_at) FROM otel_spans")
    assert got == [("5b8efff798038103d269b633813fc60c", "eee19b7ec3c1b174", "eee19b7ec3c1b173", "server",
                    "some value", "my.service", "my.library", 1.0)]
    # A lone server span whose parent never came is not an agent turn: no task.
    assert q(str(tmp_path / "w.duckdb"), "SELECT count(*) FROM tasks") == [(0,)]


def test_logs_are_stored_and_metrics_quarantined_not_lost(tmp_path):
    files = load(str(tmp_path / "w.duckdb"), REAL / "logs.json")
    assert (files[0].errors, files[0].counts.get("otel_logs")) == (0, 1)
    metrics = tmp_path / "metrics.json"
    metrics.write_text('{"resourceMetrics": [{"scopeMetrics": [{"metrics": [{"name": "gen_ai.client.token.usage"}]}]}]}')
    files = load(str(tmp_path / "w.duckdb"), metrics)
    assert files[0].errors == 1


def test_split_and_out_of_order_give_the_same_result(request_, expected, tmp_path):
    """Each span in its own file, newest first: the agent span (which ends last) arrives first."""
    spans = [(rs, ss, s) for rs in request_.resource_spans for ss in rs.scope_spans for s in ss.spans]
    for i, (rs, ss, s) in enumerate(reversed(spans)):
        one = type(request_)()
        r = one.resource_spans.add()
        r.resource.CopyFrom(rs.resource)
        sc = r.scope_spans.add()
        sc.scope.CopyFrom(ss.scope)
        sc.spans.add().CopyFrom(s)
        (tmp_path / f"part{i:02d}.pb").write_bytes(one.SerializeToString())
    load(str(tmp_path / "w.duckdb"), *sorted(tmp_path.glob("part*.pb")))
    got = snapshot(str(tmp_path / "w.duckdb"))
    assert got == expected


def _span(trace: str, span: str, parent: str | None, name: str, start: int, end: int, attrs: dict,
          status: dict | None = None) -> dict:
    def av(v):
        if isinstance(v, bool):
            return {"boolValue": v}
        if isinstance(v, int):
            return {"intValue": str(v)}
        if isinstance(v, float):
            return {"doubleValue": v}
        return {"stringValue": v}
    s = {"traceId": trace, "spanId": span, "name": name, "kind": "SPAN_KIND_INTERNAL",
         "startTimeUnixNano": str(start), "endTimeUnixNano": str(end),
         "attributes": [{"key": k, "value": av(v)} for k, v in attrs.items()]}
    if parent:
        s["parentSpanId"] = parent
    if status:
        s["status"] = status
    return s


def _doc(*spans, resource=None) -> str:
    res = {"attributes": [{"key": k, "value": {"stringValue": v}} for k, v in (resource or {}).items()]}
    return json.dumps({"resourceSpans": [{"resource": res, "scopeSpans": [{"scope": {"name": "t"}, "spans": list(spans)}]}]})


TRACE = "0af7651916cd43dd8448eb211c80319c"
AGENT = "b7ad6b7169203331"
S = 1_794_000_000_000_000_000


def test_orphan_children_make_a_running_task_that_the_late_task_span_completes(tmp_path):
    w = str(tmp_path / "w.duckdb")
    tool = _span(TRACE, "00f067aa0ba902b7", AGENT, "execute_tool create_reminder", S + 2_000_000, S + 3_000_000,
                 {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "create_reminder",
                  "gen_ai.tool.call.result": '{"success": true}', "user.id": "u-9"})
    (tmp_path / "1.json").write_text(_doc(tool))
    load(w, tmp_path / "1.json")
    assert q(w, "SELECT task_id, status, epoch_ns(started_at), finished_at, user_id FROM tasks") == [
        (TRACE, "running", S + 2_000_000, None, "u-9")]
    agent = _span(TRACE, AGENT, None, "invoke_agent planner", S, S + 9_000_000,
                  {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "planner",
                   "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
                       {"type": "text", "content": "Reminder set."}]}])})
    (tmp_path / "2.json").write_text(_doc(agent))
    load(w, tmp_path / "2.json")
    assert q(w, "SELECT task_id, status, epoch_ns(started_at), epoch_ns(finished_at), final_answer FROM tasks") == [
        (TRACE, "success", S, S + 9_000_000, "Reminder set.")]
    assert q(w, "SELECT task_id, seq, tool FROM steps") == [(TRACE, 1, "create_reminder")]
    assert q(w, "SELECT count(*) FROM messages") == [(1,)]


def test_failure_from_the_payload_not_only_status(tmp_path):
    w = str(tmp_path / "w.duckdb")
    results = [
        ('{"isError": true, "content": [{"type": "text", "text": "quota"}]}', "failed"),
        ('{"ok": false, "error": "conflict"}', "failed"),
        ('{"success": false}', "failed"),
        ('{"error": {"code": 500}}', "failed"),
        ('{"exit_code": 1, "stdout": ""}', "failed"),
        ("Error: payment amount does not add up", "failed"),
        ('{"success": true, "error": null, "exit_code": 0}', "success"),
        ("plain text result", "success"),
    ]
    spans = [_span(TRACE, AGENT, None, "invoke_agent a", S, S + 100, {"gen_ai.operation.name": "invoke_agent"})]
    for i, (result, _) in enumerate(results):
        spans.append(_span(TRACE, f"{i + 1:016x}", AGENT, "execute_tool t", S + i + 1, S + i + 2,
                           {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": f"t{i}",
                            "gen_ai.tool.call.result": result}))
    spans.append(_span(TRACE, "00000000000000aa", AGENT, "execute_tool t", S + 50, S + 51,
                       {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "by_error_type",
                        "error.type": "TimeoutError"}))
    (tmp_path / "f.json").write_text(_doc(*spans))
    load(w, tmp_path / "f.json")
    got = q(w, "SELECT tool, status, verified FROM steps ORDER BY seq")
    assert [(t, s) for t, s, _ in got] == [(f"t{i}", want) for i, (_, want) in enumerate(results)] + [
        ("by_error_type", "failed")]
    assert {v for _, _, v in got} == {None}  # nothing said verified: NULL, never true
    assert q(w, "SELECT status, total_steps, success_steps FROM tasks") == [("partial", 9, 2)]


def test_openinference_dialect(tmp_path):
    w = str(tmp_path / "w.duckdb")
    spans = [
        _span(TRACE, AGENT, None, "agent", S, S + 10, {"openinference.span.kind": "AGENT", "session.id": "sess-1",
                                                      "user.id": "u-5", "input.value": "book a table for 2",
                                                      "output.value": "Booked for 19:00."}),
        _span(TRACE, "0000000000000001", AGENT, "ChatCompletion", S + 1, S + 2,
              {"openinference.span.kind": "LLM", "llm.model_name": "claude-3", "llm.token_count.prompt": 11,
               "llm.token_count.completion": 7}),
        _span(TRACE, "0000000000000002", AGENT, "book", S + 3, S + 4,
              {"openinference.span.kind": "TOOL", "tool.name": "book_table", "input.value": '{"people": 2}',
               "output.value": '{"ok": true, "verified": true, "attempts": 1}'}),
    ]
    (tmp_path / "oi.json").write_text(_doc(*spans))
    load(w, tmp_path / "oi.json")
    assert q(w, "SELECT goal, final_answer, conversation_id, user_id, model, status FROM tasks") == [
        ("book a table for 2", "Booked for 19:00.", "sess-1", "u-5", "claude-3", "success")]
    assert q(w, "SELECT seq, kind, tool, args->>'people', verified, attempts, model, input_tokens, output_tokens "
                "FROM steps ORDER BY seq") == [
        (1, "llm", None, None, None, None, "claude-3", 11, 7),
        (2, "tool", "book_table", "2", True, 1, None, None, None)]


def test_openllmetry_dialect_and_deprecated_names(tmp_path):
    w = str(tmp_path / "w.duckdb")
    spans = [
        _span(TRACE, AGENT, None, "support.workflow", S, S + 10,
              {"traceloop.span.kind": "workflow", "traceloop.entity.name": "support"}),
        _span(TRACE, "0000000000000001", AGENT, "openai.chat", S + 1, S + 2,
              {"llm.request.type": "chat", "gen_ai.system": "openai", "gen_ai.request.model": "gpt-4",
               "gen_ai.usage.prompt_tokens": 30, "gen_ai.usage.completion_tokens": 5,
               "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "cancel order 7",
               "gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": "Order 7 is cancelled."}),
        _span(TRACE, "0000000000000002", AGENT, "cancel_order.tool", S + 3, S + 4,
              {"traceloop.span.kind": "tool", "traceloop.entity.name": "cancel_order",
               "traceloop.entity.input": '{"args": [], "kwargs": {"order": 7}}',
               "traceloop.entity.output": '{"success": false, "message": "already shipped"}'}),
    ]
    (tmp_path / "tl.json").write_text(_doc(*spans, resource={"service.name": "support-bot", "service.version": "1.2"}))
    load(w, tmp_path / "tl.json")
    assert q(w, "SELECT goal, final_answer, status, agent_version, metadata->>'agent_name' FROM tasks") == [
        ("cancel order 7", "Order 7 is cancelled.", "failed", "1.2", "support-bot")]
    assert q(w, "SELECT seq, kind, tool, status, error, input_tokens, output_tokens, metadata->>'provider' "
                "FROM steps ORDER BY seq") == [
        (1, "llm", None, "success", None, 30, 5, "openai"),
        (2, "tool", "cancel_order", "failed", "already shipped", None, None, None)]


def test_all_anyvalue_kinds_and_bad_ids(tmp_path):
    w = str(tmp_path / "w.duckdb")
    attrs = [
        {"key": "s", "value": {"stringValue": "x"}}, {"key": "b", "value": {"boolValue": True}},
        {"key": "i", "value": {"intValue": "9007199254740993"}}, {"key": "i2", "value": {"intValue": 5}},
        {"key": "d", "value": {"doubleValue": 1.5}}, {"key": "nan", "value": {"doubleValue": "NaN"}},
        {"key": "bytes", "value": {"bytesValue": "AQI="}},
        {"key": "arr", "value": {"arrayValue": {"values": [{"stringValue": "a"}, {"intValue": "2"}]}}},
        {"key": "kv", "value": {"kvlistValue": {"values": [{"key": "k", "value": {"boolValue": False}}]}}},
        {"key": "empty", "value": {}}, {"key": "unknown_kind", "value": {"futureValue": 1}},
    ]
    good = {"traceId": TRACE, "spanId": AGENT, "name": "n", "kind": "SPAN_KIND_SERVER", "attributes": attrs,
            "status": {"code": "STATUS_CODE_ERROR", "message": "boom"}, "someFutureField": 1}
    bad = {"traceId": "not-an-id", "spanId": AGENT, "name": "bad"}
    (tmp_path / "a.json").write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [good, bad]}]}]}))
    files = load(w, tmp_path / "a.json")
    assert files[0].errors == 1 and "traceId" in files[0].first_errors[0][1]
    (attrs_json, kind, code, msg), = q(w, "SELECT CAST(attributes AS VARCHAR), kind, status_code, status_message FROM otel_spans")
    assert json.loads(attrs_json) == {"s": "x", "b": True, "i": 9007199254740993, "i2": 5, "d": 1.5, "nan": None,
                                      "bytes": "AQI=", "arr": ["a", 2], "kv": {"k": False}, "empty": None,
                                      "unknown_kind": None}
    assert (kind, code, msg) == ("server", "error", "boom")
