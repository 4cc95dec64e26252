"""OpenAI Agents SDK trace exports: the items its `BackendSpanExporter` sends, in a file.

The exporter posts batches `{"data": [item, ...]}`; an item is a trace
`{object: "trace", id, workflow_name, group_id, metadata}` or a span `{object: "trace.span",
id, trace_id, parent_id, started_at, ended_at, span_data, error}` (openai-agents-python
`tracing/traces.py`, `tracing/spans.py`, `tracing/processors.py`). A file may hold such
batches, or the items one a line, or a JSON array of items. Every span of one `trace_id` is
one task `openai-agents:<trace_id>` (see `span_tree`); the trace item, where present, names
the workflow and the conversation (`group_id`).

`span_data` (`tracing/span_data.py`) by `type`:
- `function`: a tool call, `name`, `input` (the arguments as JSON text), `output` (the result
  as text), `mcp_data`; the span's `error` (`{message: "Error running tool", data:
  {tool_name, error}}`, also "(non-fatal)" when the SDK handed the model an error text
  instead) fails the step;
- `generation` (Chat Completions models): `input` chat messages, `output` the assistant
  message(s), `model`: the user's request and the replies;
- `response` (Responses models): the export holds only `response_id` and `usage`, so no
  reply text; if a file carries the response itself (`response.output`, `input`), it is read;
- `agent`, `handoff`, `guardrail`, `custom`, `mcp_tools`, `transcription`, `speech`: structure.
"""

from __future__ import annotations

from typing import Any, Iterable

from ..base import RecordContext, RowError, Rows
from .seed001 import text_or_json, timestamp
from .span_tree import LLM, OTHER, TOOL, Span, SpanTreeReader, required_id, trace_rows

_KINDS = {"function": TOOL, "generation": LLM, "response": LLM}
_TRACE = "trace"


class OpenAIAgentsReader(SpanTreeReader):
    name = "openai-agents"
    claims = [("item", "list_contains(k, 'span_data') OR (list_contains(k, 'object') AND "
                       "json_extract_string(raw, '$.object') IN ('trace', 'trace.span'))"),
              ("batch", "len(k) = 1 AND list_contains(k, 'data') AND "
                        "json_extract_string(raw, '$.data[0].object') IN ('trace', 'trace.span')")]

    def spans(self, record: dict[str, Any], ctx: RecordContext) -> Iterable[Span]:
        if "data" in record and "object" not in record:
            items = record["data"]
            if not isinstance(items, list):
                raise RowError(f"field data: expected a list of trace items, got {type(items).__name__}")
            return [self._item(item, f"data[{i}]") for i, item in enumerate(items)]
        return [self._item(record, "item")]

    def _item(self, item: Any, where: str) -> Span:
        if not isinstance(item, dict):
            raise RowError(f"field {where}: expected a trace or span object, got {type(item).__name__}")
        if item.get("object") == _TRACE:
            return Span(trace_id=required_id(item.get("id"), f"{where}.id"), span_id=None, parent_id=None,
                        kind=_TRACE, name=text_or_json(item.get("workflow_name")),
                        meta={"group_id": item.get("group_id"), "metadata": item.get("metadata")})
        data = item.get("span_data")
        if not isinstance(data, dict):
            raise RowError(f"field {where}.span_data: expected an object, got {type(data).__name__}")
        kind = _KINDS.get(str(data.get("type") or ""), OTHER)
        if kind == LLM and data.get("type") == "response":
            response = data.get("response") if isinstance(data.get("response"), dict) else {}
            given = data.get("input")
            produced = response.get("output") if response else data.get("output")
            model = response.get("model") or data.get("model")
        else:
            given, produced, model = data.get("input"), data.get("output"), data.get("model")
        name = data.get("name")
        if data.get("type") == "handoff":
            name = f"handoff {data.get('from_agent')} -> {data.get('to_agent')}"
        meta = {"span_type": data.get("type")}
        if data.get("mcp_data"):
            meta["mcp_data"] = data["mcp_data"]
        return Span(
            trace_id=required_id(item.get("trace_id"), f"{where}.trace_id"), span_id=text_or_json(item.get("id")),
            parent_id=text_or_json(item.get("parent_id")), kind=kind, name=text_or_json(name),
            started_at=timestamp(item.get("started_at"), f"{where}.started_at"),
            ended_at=timestamp(item.get("ended_at"), f"{where}.ended_at"),
            input=given, output=produced, error=item.get("error"), model=text_or_json(model), meta=meta)

    def trace(self, trace_id: str, spans: list[Span], ctx: RecordContext) -> Rows:
        head = next((s for s in spans if s.kind == _TRACE), None)
        spans = [s for s in spans if s.kind != _TRACE]
        if not spans:
            return Rows()  # a trace item whose spans are elsewhere: nothing to judge here
        info = head.meta if head is not None else {}
        agents = sorted({s.name for s in spans if s.meta.get("span_type") == "agent" and s.name})
        guards = sorted({s.name for s in spans if s.meta.get("span_type") == "guardrail" and s.name})
        metadata = {"workflow_name": head.name if head is not None else None, "metadata": info.get("metadata"),
                    "agents": agents, "guardrails": guards}
        # No span carries the turn's own request or answer: the model calls say them.
        about = info.get("metadata") if isinstance(info.get("metadata"), dict) else {}
        user = next((about[k] for k in ("user_id", "user") if about.get(k) not in (None, "")), None)
        return trace_rows(self.name, trace_id, spans, conversation_id=text_or_json(info.get("group_id")),
                          user_id=text_or_json(user), metadata=metadata)
