"""Agent turns produced by the real OpenTelemetry SDK, for the OTLP tests (no tests here).

A turn is `invoke_agent {agent}` with a `chat` LLM call, one `execute_tool`
span per tool call, and a final `chat`; the reply is on the agent span's
`gen_ai.output.messages`, as the GenAI semantic conventions describe.
"""

from __future__ import annotations

import base64
import copy
import json
from dataclasses import dataclass, field

from google.protobuf import json_format
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, Status, StatusCode

T0 = 1_794_000_000_000_000_000  # 2026-11-08, in ns


@dataclass
class ToolCall:
    name: str
    args: dict
    result: dict
    error: str | None = None          # set: span status ERROR with this message
    verified: bool | None = None
    attempts: int | None = None


@dataclass
class Turn:
    user: str
    reply: str
    tools: list[ToolCall] = field(default_factory=list)
    conversation_id: str = "conv-1"
    user_id: str = "u-1"
    agent: str = "reminder-assistant"


def sample_turns() -> list[Turn]:
    return [
        Turn("remind me at 8 tomorrow to call mum", "OK, your reminder for 8:00 tomorrow is set.",
             [ToolCall("create_reminder", {"time": "2026-11-09T08:00", "text": "call mum"},
                       {"success": True, "id": 41, "verified": False, "detail": "read-back found nothing"},
                       verified=False, attempts=2)]),
        Turn("what's on my list?", "You have 2 reminders.",
             [ToolCall("list_reminders", {}, {"items": [1, 2]}, verified=True, attempts=1)],
             conversation_id="conv-2", user_id="u-2"),
        Turn("delete everything", "Done, all deleted.",
             [ToolCall("delete_reminder", {"id": 7}, {"error": "permission denied: WRITE"}),
              ToolCall("delete_reminder", {"id": 8}, {}, error="timeout after 30s")],
             conversation_id="conv-3", user_id="u-3"),
    ]


def provider(service: str = "agent-svc", version: str = "2.4.0", exporter=None):
    tp = TracerProvider(resource=Resource.create({"service.name": service, "service.version": version}))
    memory = InMemorySpanExporter()
    tp.add_span_processor(SimpleSpanProcessor(memory))
    if exporter is not None:
        tp.add_span_processor(SimpleSpanProcessor(exporter))
    return tp, memory


def emit(tracer: trace.Tracer, turn: Turn, t0: int = T0, model: str = "gpt-4o") -> None:
    """One agent turn with explicit, increasing timestamps (1 ms apart)."""
    clock = [t0]

    def tick() -> int:
        clock[0] += 1_000_000
        return clock[0]

    agent = tracer.start_span(f"invoke_agent {turn.agent}", kind=SpanKind.INTERNAL, start_time=tick(), attributes={
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": turn.agent,
        "gen_ai.conversation.id": turn.conversation_id, "user.id": turn.user_id,
        "gen_ai.provider.name": "openai", "gen_ai.request.model": model,
        "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": turn.user}]}]),
    })
    ctx = trace.set_span_in_context(agent)
    chat = tracer.start_span(f"chat {model}", context=ctx, kind=SpanKind.CLIENT, start_time=tick(), attributes={
        "gen_ai.operation.name": "chat", "gen_ai.request.model": model, "gen_ai.response.model": model + "-2024",
        "gen_ai.usage.input_tokens": 120, "gen_ai.usage.output_tokens": 30,
    })
    chat.end(end_time=tick())
    for call in turn.tools:
        attrs = {
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": call.name,
            "gen_ai.tool.call.id": f"call_{call.name}_{clock[0]}",
            "gen_ai.tool.call.arguments": json.dumps(call.args), "gen_ai.tool.call.result": json.dumps(call.result),
        }
        if call.verified is not None:
            attrs["trace_audit.verified"] = call.verified
        if call.attempts is not None:
            attrs["trace_audit.attempts"] = call.attempts
        span = tracer.start_span(f"execute_tool {call.name}", context=ctx, start_time=tick(), attributes=attrs)
        if call.error:
            span.set_status(Status(StatusCode.ERROR, call.error))
            span.set_attribute("error.type", "timeout")
        span.end(end_time=tick())
    final = tracer.start_span(f"chat {model}", context=ctx, kind=SpanKind.CLIENT, start_time=tick(), attributes={
        "gen_ai.operation.name": "chat", "gen_ai.request.model": model,
        "gen_ai.usage.input_tokens": 200, "gen_ai.usage.output_tokens": 15,
        "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": turn.reply}],
                                               "finish_reason": "stop"}]),
    })
    final.end(end_time=tick())
    agent.set_attribute("gen_ai.output.messages", json.dumps(
        [{"role": "assistant", "parts": [{"type": "text", "content": turn.reply}], "finish_reason": "stop"}]))
    agent.end(end_time=tick())


def finished_spans(turns: list[Turn], **kw):
    tp, memory = provider(**kw)
    tracer = tp.get_tracer("test-agent", "1.0")
    for i, turn in enumerate(turns):
        emit(tracer, turn, T0 + i * 60_000_000_000)
    tp.shutdown()
    return memory.get_finished_spans()


def request_of(spans):
    """The ExportTraceServiceRequest the SDK's own encoder makes of these spans."""
    return encode_spans(spans)


def protobuf_of_json(doc: dict) -> bytes:
    """An OTLP/JSON request as the protobuf request an SDK would send (`doc` is left as it was)."""
    doc = copy.deepcopy(doc)
    for rs in doc["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for span in ss["spans"]:  # OTLP/JSON ids are hex; protobuf's JSON reader wants base64
                for k in ("traceId", "spanId", "parentSpanId"):
                    if span.get(k):
                        span[k] = base64.b64encode(bytes.fromhex(span[k])).decode()
    return json_format.ParseDict(doc, ExportTraceServiceRequest()).SerializeToString()
