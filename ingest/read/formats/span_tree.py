"""Traces that arrive as a flat set of spans (runs, observations) linked by trace and parent ids.

LangSmith runs, OpenAI Agents SDK spans and Langfuse observations all record one agent turn
as many small records: a root (the chain, the trace, the agent run), model calls (whose
output is what the agent said) and tool calls (what it did). A reader for such a format turns
each of its records into `Span`s; `SpanTreeReader` groups the spans of a frame by trace and
`trace_rows` makes one task per trace:

- the goal: the root's user request (else the first model call's last user message), a user
  message at the root's start;
- each model call with text in its output: an assistant message at its end (the replies the
  rules judge); the root's own output, when it says something no model call already said,
  is the final reply;
- each tool span: a step at its start (seq 1..n in time order; ties keep the export's order),
  its outcome from the shared failure vocabulary (`vocabulary.failure`, through
  `Transcript.settle`), and a tool message with its result.

A trace's records must arrive in one frame to make one task (a JSON array of up to
json_documents.ARRAY_FRAME_RECORDS records, or a JSON-lines block of up to 32 MB); the task id is
`<source>:<trace id>`, so a trace read again is the same task.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Iterable

from ..base import Decoded, PythonReader, RecordContext, RowBuckets, RowError, Rows, each_record
from .conversation import Transcript, content_text, looks_like_message, message, parsed_json
from .seed001 import text_or_json

TOOL, LLM, OTHER = "tool", "llm", "other"
# Keys under which stacks put the one value of an input or output object.
_VALUE_KEYS = ("messages", "output", "input", "content", "text", "answer", "result", "response", "question",
               "query", "prompt", "final_output", "generations", "choices", "message")


@dataclass
class Span:
    trace_id: str
    span_id: str | None
    parent_id: str | None
    kind: str                      # TOOL | LLM | OTHER
    name: str | None
    started_at: datetime | None = None
    ended_at: datetime | None = None
    input: Any = None              # a tool's arguments; a model call's or the root's request
    output: Any = None             # a tool's result; a model call's or the root's answer
    error: Any = None
    status: Any = None
    level: Any = None
    line: int = 0
    model: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


def said(value: Any, role: str, depth: int = 0) -> str | None:
    """The text of the last `role` message in an input or output value of any of the usual
    shapes: a string, a list of chat messages (OpenAI, LangChain, Inspect), one message, an
    object holding one under `messages`/`output`/`input`/..., LangChain `generations`,
    OpenAI `choices`, a Responses-style `output_text` part."""
    if depth > 6 or value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in "[{":
            parsed = parsed_json(text)
            if not isinstance(parsed, str):
                return said(parsed, role, depth + 1)
        return text or None
    if isinstance(value, list):
        if value and all(isinstance(v, list) and v and isinstance(v[0], dict) for v in value):
            # LangChain generations: [[{text, message}]]; an llm run's inputs.messages: [[message, ...]]
            value = [g for batch in value for g in batch]
        for item in reversed(value):
            got = _message_text(item, role, depth)
            if got:
                return got
        return None
    if isinstance(value, dict):
        got = _message_text(value, role, depth)
        if got:
            return got
        for key in _VALUE_KEYS:
            if key in value:
                got = said(value[key], role, depth + 1)
                if got:
                    return got
    return None


_TUPLE_ROLES = {"user": "user", "human": "user", "assistant": "assistant", "ai": "assistant"}


def _message_text(item: Any, role: str, depth: int) -> str | None:
    if isinstance(item, (list, tuple)) and len(item) == 2 and all(isinstance(x, str) for x in item):
        # LangChain's message tuples, ("user", "text"), as LangGraph inputs are often written
        return item[1].strip() or None if _TUPLE_ROLES.get(item[0].lower()) == role else None
    if not isinstance(item, dict):
        return item.strip() or None if isinstance(item, str) and role == "assistant" else None
    if looks_like_message(item):
        try:
            m = message(item, "message")
        except RowError:
            return None
        if m.role == role and isinstance(m.text, str) and m.text.strip() and not (m.calls and m.text.startswith("[")):
            return m.text.strip()
        return None
    if item.get("type") == "message" and item.get("role") == role:  # Responses API output item
        return content_text([p for p in item.get("content") or [] if isinstance(p, dict)])
    if "message" in item and isinstance(item["message"], dict):       # a generation or a choice
        return _message_text(item["message"], role, depth)
    if role == "assistant" and isinstance(item.get("text"), str) and item["text"].strip() and len(item) <= 4:
        return item["text"].strip()                                    # a LangChain Generation {text, ...}
    return None


def tool_result(value: Any) -> tuple[Any, str | None, Any]:
    """(result, its text, the status it reports) of a tool's output: a LangChain ToolMessage
    (its content and `status`), a JSON string (parsed), anything else as is."""
    if isinstance(value, dict) and set(value) == {"output"}:
        value = value["output"]
    if isinstance(value, dict) and looks_like_message(value):
        try:
            m = message(value, "output")
        except RowError:
            m = None
        if m is not None and m.role == "tool":
            return parsed_json(m.text), m.text, m.status
    if isinstance(value, str):
        return _parsed(value), value, None
    return value, text_or_json(value) if value is not None else None, None


def tool_args(value: Any) -> Any:
    """A tool's arguments: `{input: "<json>"}` (LangChain's tool run) unwrapped, and parsed."""
    if isinstance(value, dict) and set(value) == {"input"}:
        value = value["input"]
    return _parsed(value)


def _parsed(value: Any) -> Any:
    """JSON text parsed; a dict's or list's Python repr (LangChain's tool input, the Agents SDK's
    `str(output)`) read as a literal; anything else as is."""
    parsed = parsed_json(value)
    if isinstance(parsed, str) and parsed.strip()[:1] in "{[" and len(parsed) <= 64 * 1024:
        try:
            literal = ast.literal_eval(parsed.strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return parsed
        return literal if isinstance(literal, (dict, list)) else parsed
    return parsed


def _order(spans: list[Span]) -> list[Span]:
    far = datetime.max.replace(tzinfo=None)
    return [s for _, s in sorted(enumerate(spans), key=lambda p: (
        p[1].started_at.replace(tzinfo=None) if p[1].started_at else far, p[0]))]


def roots_of(spans: list[Span]) -> list[Span]:
    ids = {s.span_id for s in spans if s.span_id is not None}
    return [s for s in spans if s.parent_id is None or s.parent_id not in ids]


def trace_rows(source: str, trace_id: str, spans: list[Span], *, root: Span | None = None,
               goal: str | None = None, reply: str | None = None, conversation_id: str | None = None,
               user_id: str | None = None, metadata: dict[str, Any] | None = None) -> Rows:
    """One task for one trace's spans (see the module docstring). `root`, `goal`, `reply`:
    what the format knows of the turn itself (a trace object's input and output); by default
    the root span's."""
    spans = _order(spans)
    if root is None:
        roots = roots_of(spans)
        root = roots[0] if roots else None
    models = [s for s in spans if s.kind == LLM]
    if goal is None and root is not None and root.kind != TOOL:
        goal = said(root.input, "user")
    if goal is None:
        goal = next((g for s in models for g in (said(s.input, "user"),) if g), None)
    t = Transcript(f"{source}:{trace_id}", source, conversation_id, user_id)
    if goal:
        t.add_message("user", goal, created_at=root.started_at if root is not None else None)
    # Model replies land at their end, tool calls at their start: one timeline of both.
    events: list[tuple[datetime | None, int, Span]] = []
    for pos, s in enumerate(spans):
        if s.kind == TOOL:
            events.append((s.started_at, pos, s))
        elif s.kind == LLM:
            events.append((s.ended_at or s.started_at, pos, s))
    far = datetime.max
    events.sort(key=lambda e: (e[0].replace(tzinfo=None) if e[0] else far, e[1]))
    last_reply = None
    for _, _, s in events:
        if s.kind == LLM:
            text = said(s.output, "assistant")
            if text:
                t.add_message("assistant", text, created_at=s.ended_at, meta={"span_id": s.span_id})
                last_reply = text
            continue
        step = t.call(s.name or "tool", tool_args(s.input), call_id=s.span_id, started_at=s.started_at,
                      ended_at=s.ended_at, meta=s.meta or None)
        result, text, reported = tool_result(s.output)
        t.settle(step, result, text=text, error=s.error, status=reported if reported is not None else s.status,
                 level=s.level)
        t.add_message("tool", text if text is not None else step["error"], created_at=s.ended_at, meta={"span_id": s.span_id, "name": s.name})
    if reply is None and root is not None and root.kind != TOOL:
        reply = said(root.output, "assistant")
    if reply and reply != last_reply:
        t.add_message("assistant", reply, created_at=root.ended_at if root is not None else None,
                      meta={"span_id": root.span_id} if root is not None else None)
    meta = dict(metadata or {})
    if root is not None:
        meta.setdefault("root", root.name)
        if root.error not in (None, "", {}):
            meta.setdefault("root_error", root.error)
    model = next((s.model for s in models if s.model), None)
    return t.rows(model=model, metadata={k: v for k, v in meta.items() if v not in (None, "", [], {})} or None)


class SpanTreeReader(PythonReader):
    """A reader whose records are spans of traces: `spans(record, ctx)` turns one record into
    spans (a batch record into many), `trace(trace_id, spans, records)` into rows; the frame's
    spans are grouped by trace id before."""

    def spans(self, record: dict[str, Any], ctx: RecordContext) -> Iterable[Span]:  # pragma: no cover
        raise NotImplementedError

    def trace(self, trace_id: str, spans: list[Span], ctx: RecordContext) -> Rows:
        return trace_rows(self.name, trace_id, spans)

    def linked(self, spans: list[Span], errors: list[tuple[int, str, str]], raws: dict[int, str]) -> list[Span]:
        """The frame's spans with their trace ids settled (a format whose records may lack one
        finds it here); those that cannot be placed go to `errors`."""
        return spans

    def decode_records(self, records: list[tuple[int, str]], ctx_factory: Callable[[int], RecordContext]) -> Decoded:
        out = Decoded()
        traces: dict[str, list[Span]] = {}
        raws: dict[int, str] = {}
        every: list[Span] = []
        for line, raw, got in each_record(self.name, records, lambda r, line: list(self.spans(r, ctx_factory(line))),
                                          out.errors):
            raws[line] = raw
            for s in got:
                s.line = s.line or line
                every.append(s)
        for s in self.linked(every, out.errors, raws):
            traces.setdefault(s.trace_id, []).append(s)
        buckets = RowBuckets()
        for trace_id, spans in traces.items():
            first = min(s.line for s in spans)
            try:
                got = self.trace(trace_id, spans, ctx_factory(first))
            except (RowError, KeyError, TypeError, ValueError, AttributeError, RecursionError) as exc:
                said = str(exc) if isinstance(exc, RowError) else f"could not be read: {type(exc).__name__}: {exc}"
                lines = sorted({s.line for s in spans})
                out.errors.extend((ln, raws.get(ln, ""), f"{self.name} trace {trace_id}: {said}") for ln in lines)
                continue
            buckets.add(got, first)
        return buckets.into(out)


def required_id(value: Any, where: str) -> str:
    text = text_or_json(value)
    if text is None or not text.strip():
        raise RowError(f"field {where}: missing (every span needs its trace's id)")
    return text
