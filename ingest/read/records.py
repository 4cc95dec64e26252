"""The canonical record shapes: the contract between producers and trace-audit.

A canonical JSONL file holds one object per line with `"record"` set to one of
`task`, `step`, `message`, `audit`; the other keys are the columns of the
matching warehouse table. These pydantic models are that contract: `trace-audit
schema` prints their JSON Schema, and the canonical reader's field mappings are
derived from them (`contract_fields`): the bulk path does not validate row by row
with pydantic (see `fields.py`), it converts each field as its annotation says.
"""

from __future__ import annotations

import types
import typing
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from . import fields, vocabulary

TaskStatus = Literal[vocabulary.TASK_STATUSES]
StepStatus = Literal[vocabulary.STEP_STATUSES]
StepKind = Literal[vocabulary.STEP_KINDS]
Role = Literal[vocabulary.ROLES]


_SOURCE = "The system the record came from; default: canonical"


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow")


class TaskRecord(_Record):
    """One agent turn: the user's request and how the agent settled it."""

    record: Literal["task"] = "task"
    task_id: str = Field(description="Stable id of the turn; key of the tasks table")
    user_id: str | None = None
    conversation_id: str | None = None
    goal: str | None = Field(None, description="What the user asked for")
    plan: list[Any] | None = Field(None, description="Planned steps, as the agent wrote them")
    status: TaskStatus | None = Field(None, description="Other spellings (SUCCESS, done, error...) are normalised")
    total_steps: int | None = None
    success_steps: int | None = None
    replanned: bool | None = None
    started_at: datetime | None = Field(None, description="ISO 8601; naive times are read in --tz")
    finished_at: datetime | None = None
    final_answer: str | None = Field(None, description="The reply the user saw")
    agent_version: str | None = None
    model: str | None = None
    prompt_version: str | None = None
    metadata: dict[str, Any] | None = None
    source: str | None = Field(None, description=_SOURCE)


class StepRecord(_Record):
    """One step of a turn: a tool call, an LLM call or a verification."""

    record: Literal["step"] = "step"
    task_id: str
    seq: int = Field(description="Order within the turn; continues across re-plans. Key: (task_id, seq)")
    step_id: str | None = None
    tool: str | None = None
    kind: StepKind | None = Field(None, description="Default: verify for verify_result, else tool")
    args: Any = Field(None, description="Tool arguments: a JSON object, or a string holding JSON")
    reason: str | None = None
    status: StepStatus | None = None
    verified: bool | None = Field(None, description="Read-back passed; null = not checked (never true)")
    attempts: int | None = None
    error: str | None = None
    detail: str | None = Field(None, description="What the tool said, e.g. '已存在相同记录,未重复创建'")
    result: Any = None
    started_at: datetime | None = None
    ended_at: datetime | None = None
    model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    trace_id: str | None = None
    span_id: str | None = None
    parent_span_id: str | None = None
    metadata: dict[str, Any] | None = None


class MessageRecord(_Record):
    """A chat message; the assistant's reply is what the rules check claims in."""

    record: Literal["message"] = "message"
    message_id: str
    conversation_id: str | None = None
    user_id: str | None = None
    role: Role | None = None
    content: str | None = None
    created_at: datetime | None = None
    task_id: str | None = Field(None, description="Often missing; rules link by conversation and time")
    metadata: dict[str, Any] | None = None
    source: str | None = Field(None, description=_SOURCE)


class AuditRecord(_Record):
    """An audit-log row. SUCCESS must mean success AND verified."""

    record: Literal["audit"] = "audit"
    audit_id: str
    user_id: str | None = None
    task_id: str | None = None
    action: str | None = Field(None, description="Usually the tool name")
    result: str | None = Field(None, description="SUCCESS or FAIL")
    created_at: datetime | None = None
    detail: str | None = None
    metadata: dict[str, Any] | None = None
    source: str | None = Field(None, description=_SOURCE)


RECORD_MODELS: dict[str, type[_Record]] = {
    "task": TaskRecord,
    "step": StepRecord,
    "message": MessageRecord,
    "audit": AuditRecord,
}


def json_schema() -> dict[str, Any]:
    """One JSON Schema document describing every canonical record kind."""
    defs = {}
    for name, model in RECORD_MODELS.items():
        defs[model.__name__] = model.model_json_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "trace-audit canonical records (one JSON object per line)",
        "oneOf": [{"$ref": f"#/$defs/{m.__name__}"} for m in RECORD_MODELS.values()],
        "$defs": defs,
    }


def contract_fields(model: type[_Record]) -> list[fields.Field]:
    """The field mapping of one record kind, read off its model: each field's conversion
    from its annotation, required when the model has no default."""
    return [fields.Field(name, _conversion(info.annotation), required=info.is_required())
            for name, info in model.model_fields.items() if name != "record"]


def _conversion(annotation: Any) -> str:
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        (annotation,) = [a for a in args if a is not type(None)]
    if annotation is TaskStatus:
        return fields.STATUS_TASK
    if annotation is StepStatus:
        return fields.STATUS_STEP
    if annotation is Any:  # an object, or a string holding JSON (MySQL dumps)
        return fields.JSON_TEXT
    origin = typing.get_origin(annotation)
    if origin is Literal or annotation is str:  # kinds and roles are normalised by the reader's SQL
        return fields.STR
    if origin in (list, dict):
        return fields.JSON
    return {int: fields.INT, bool: fields.BOOL, datetime: fields.TS}[annotation]
