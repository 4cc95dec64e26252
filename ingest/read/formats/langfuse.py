"""Langfuse trace exports: a trace's observations, with or without the trace itself.

Shapes read (one record each; every observation of one trace is one task
`langfuse:<traceId>`, see `span_tree`):
- the trace download of the web UI, `{observations: [...], scores: [...]}` (no trace object:
  the root observation, the one without `parentObservationId`, stands for the turn);
- the older client-side download `{trace: {...}, observations: [...]}`;
- the public API's trace `GET /api/public/traces/{id}` (`TraceWithFullDetails`: the trace's
  own fields with `observations` and `scores` inside);
- observations one a record (`GET /api/public/observations`, JSON lines of them).
Field names are the API's camelCase (`traceId`, `parentObservationId`, `startTime`,
`statusMessage`); the Python SDK's `model_dump()` snake_case spellings are read too.

An observation's `type`: `TOOL` is a tool call (its `input` the arguments, `output` the
result), `GENERATION` a model call (`input` the messages sent, `output` the reply), the others
(`SPAN`, `AGENT`, `CHAIN`, `EVENT`, `RETRIEVER`, `EVALUATOR`, `EMBEDDING`, `GUARDRAIL`) are
structure. A tool failed when its `level` is `ERROR` (its `statusMessage` the error) or its
output says so (`vocabulary.failure`). The trace's (else the root's) `input` is the goal and
`output` the final reply; `userId`, `sessionId` name the user and the conversation.
"""

from __future__ import annotations

from typing import Any, Iterable

from ..base import RecordContext, RowError, Rows
from .seed001 import text_or_json, timestamp
from .span_tree import LLM, OTHER, TOOL, Span, SpanTreeReader, required_id, roots_of, said, trace_rows

_KINDS = {"TOOL": TOOL, "GENERATION": LLM}
_TRACE = "trace"
_TRACE_META = ("name", "tags", "release", "version", "environment", "metadata")


def _get(obj: dict[str, Any], camel: str) -> Any:
    """A field in the API's camelCase, else in the Python SDK's snake_case."""
    if camel in obj:
        return obj[camel]
    snake = "".join("_" + c.lower() if c.isupper() else c for c in camel)
    return obj.get(snake)


class LangfuseReader(SpanTreeReader):
    name = "langfuse"
    claims = [("export", "list_contains(k, 'observations') AND json_type(raw, '$.observations') = 'ARRAY'"),
              ("observation", "list_contains(k, 'type') AND (list_contains(k, 'traceId') AND "
                              "list_contains(k, 'startTime') OR list_contains(k, 'trace_id') AND "
                              "list_contains(k, 'start_time') AND list_contains(k, 'parent_observation_id'))")]

    def spans(self, record: dict[str, Any], ctx: RecordContext) -> Iterable[Span]:
        if "observations" not in record:
            return [self._observation(record, "observation", None)]
        observations = record["observations"]
        trace = record.get("trace") if isinstance(record.get("trace"), dict) else None
        if trace is None and ("timestamp" in record or "sessionId" in record or "userId" in record) \
                and record.get("id") is not None:
            trace = record  # TraceWithFullDetails: the trace's fields around its observations
        out: list[Span] = []
        trace_id = text_or_json(trace.get("id")) if trace is not None else None
        for i, o in enumerate(observations):
            if isinstance(o, str):
                continue  # TraceWithDetails lists only the observations' ids
            out.append(self._observation(o, f"observations[{i}]", trace_id))
        if trace_id is None:
            trace_id = next((s.trace_id for s in out), None)
        if trace_id is None:
            raise RowError("field observations: no observation names its traceId and there is no trace object")
        scores = record.get("scores") if isinstance(record.get("scores"), list) else []
        head = trace or {}
        out.append(Span(trace_id=trace_id, span_id=None, parent_id=None, kind=_TRACE,
                        name=text_or_json(head.get("name")),
                        started_at=timestamp(head.get("timestamp"), "trace.timestamp"),
                        input=head.get("input"), output=head.get("output"),
                        meta={"trace": trace is not None, "user_id": _get(head, "userId"),
                              "session_id": _get(head, "sessionId"),
                              "scores": [{k: s.get(k) for k in ("name", "value", "stringValue", "comment")
                                          if s.get(k) is not None} for s in scores if isinstance(s, dict)],
                              **{k: head.get(k) for k in _TRACE_META if head.get(k) not in (None, [], {})}}))
        return out

    def _observation(self, o: Any, where: str, trace_id: str | None) -> Span:
        if not isinstance(o, dict):
            raise RowError(f"field {where}: expected an observation object, got {type(o).__name__}")
        kind = _KINDS.get(str(o.get("type") or "").upper(), OTHER)
        level = o.get("level")
        error = _get(o, "statusMessage") if str(level or "").upper() == "ERROR" else None
        meta = {"observation_type": o.get("type")}
        if level not in (None, "DEFAULT"):
            meta["level"] = level
        return Span(
            trace_id=required_id(_get(o, "traceId") or trace_id, f"{where}.traceId"),
            span_id=text_or_json(o.get("id")), parent_id=text_or_json(_get(o, "parentObservationId")),
            kind=kind, name=text_or_json(o.get("name")),
            started_at=timestamp(_get(o, "startTime"), f"{where}.startTime"),
            ended_at=timestamp(_get(o, "endTime"), f"{where}.endTime"),
            input=o.get("input"), output=o.get("output"), error=error, level=level,
            model=text_or_json(o.get("model")), meta=meta)

    def trace(self, trace_id: str, spans: list[Span], ctx: RecordContext) -> Rows:
        heads = [s for s in spans if s.kind == _TRACE]
        spans = [s for s in spans if s.kind != _TRACE]
        head = next((h for h in heads if h.meta.get("trace")), heads[0] if heads else None)
        info = head.meta if head is not None else {}
        roots = roots_of(spans)
        root = roots[0] if roots else None
        if head is not None and info.get("trace"):
            # The trace object is the turn: its input and output, else the root observation's.
            goal = said(head.input, "user")
            reply = said(head.output, "assistant")
        else:
            goal = reply = None
        metadata = {k: info.get(k) for k in (*_TRACE_META, "scores")}
        metadata["trace_name"] = metadata.pop("name", None)
        return trace_rows(self.name, trace_id, spans, root=root, goal=goal, reply=reply,
                          conversation_id=text_or_json(info.get("session_id")),
                          user_id=text_or_json(info.get("user_id")), metadata=metadata)
