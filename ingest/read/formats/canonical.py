"""Canonical JSONL: `{"record": "task" | "step" | "message" | "audit", ...}`.

The keys are the warehouse column names (see `ingest/read/records.py` for the
contract and `trace-audit schema` for its JSON Schema).
"""

from __future__ import annotations

from ..fields import BOOL, INT, JSON, JSON_TEXT, STATUS_STEP, STATUS_TASK, STR, TS, Field
from ..vocabulary import MESSAGE_ROLE, STEP_KIND
from ..field_reader import FieldReader, Mapping

TASK = [
    Field("task_id", STR, required=True), Field("user_id", STR), Field("conversation_id", STR),
    Field("goal", STR), Field("plan", JSON), Field("status", STATUS_TASK), Field("total_steps", INT),
    Field("success_steps", INT), Field("replanned", BOOL), Field("started_at", TS), Field("finished_at", TS),
    Field("final_answer", STR), Field("agent_version", STR), Field("model", STR),
    Field("prompt_version", STR), Field("metadata", JSON), Field("source", STR),
]
STEP = [
    Field("task_id", STR, required=True), Field("seq", INT, required=True), Field("step_id", STR),
    Field("tool", STR), Field("kind", STR), Field("args", JSON_TEXT), Field("reason", STR),
    Field("status", STATUS_STEP), Field("verified", BOOL), Field("attempts", INT), Field("error", STR),
    Field("detail", STR), Field("result", JSON_TEXT), Field("started_at", TS), Field("ended_at", TS),
    Field("model", STR), Field("input_tokens", INT), Field("output_tokens", INT), Field("trace_id", STR),
    Field("span_id", STR), Field("parent_span_id", STR), Field("metadata", JSON),
]
MESSAGE = [
    Field("message_id", STR, required=True), Field("conversation_id", STR), Field("user_id", STR),
    Field("role", STR), Field("content", STR), Field("created_at", TS), Field("task_id", STR),
    Field("metadata", JSON), Field("source", STR),
]
AUDIT = [
    Field("audit_id", STR, required=True), Field("user_id", STR), Field("task_id", STR),
    Field("action", STR), Field("result", STR), Field("created_at", TS), Field("detail", STR),
    Field("metadata", JSON), Field("source", STR),
]


class CanonicalReader(FieldReader):
    name = "canonical"
    claims = [
        (kind, f"list_contains(k, 'record') AND lower(raw ->> '$.record') = '{kind}'")
        for kind in ("task", "step", "message", "audit")
    ]
    mappings = {
        "task": Mapping("tasks", TASK, {"source": "coalesce(source, 'canonical')"}),
        "step": Mapping("steps", STEP, {"kind": STEP_KIND}),
        "message": Mapping("messages", MESSAGE, {"role": MESSAGE_ROLE, "source": "coalesce(source, 'canonical')"}),
        "audit": Mapping("audit_logs", AUDIT, {"source": "coalesce(source, 'canonical')"}),
    }
