"""Seed-001 `AgentTrace` records (the verification-framework article).

One record is one agent turn:

    {"task_id", "user_query", "plan": [...], "final_answer", "metadata": {...},
     "tool_calls": [{"tool_name", "arguments", "result", "error",
                     "start_time", "end_time"}]}

It becomes one task, one step per tool call (ordered by start_time, then by
position), the user's query as a user message and the final answer as an
assistant message. The format has no task status, so one is derived from the
steps (see `derived_task_status`). `verified` is only ever taken from the
tool's own result envelope (`result.verified`); it is never assumed.
"""

from __future__ import annotations

import json
import math
from datetime import datetime
from typing import Any

from ..base import PythonReader, RecordContext, RowError, Rows, epoch_to_datetime, parse_iso
from ..vocabulary import step_kind

# metadata keys lifted onto task columns; everything else stays in metadata.
_META_COLUMNS = {
    "user_id": ("user_id",),
    "conversation_id": ("conversation_id", "session_id"),
    "agent_version": ("agent_version",),
    "model": ("llm_version", "model"),
    "prompt_version": ("prompt_version",),
}
_RECORD_KEYS = {"task_id", "user_query", "plan", "tool_calls", "final_answer", "metadata"}
_CALL_KEYS = {"tool_name", "arguments", "result", "error", "start_time", "end_time", "id", "call_id",
              "reason", "attempts"}


def timestamp(value: Any, field: str) -> datetime | None:
    """Epoch seconds (ms/us/ns by magnitude) or ISO 8601 to UTC; naive ISO stays naive (read in --tz)."""
    if value is None:
        return None
    try:
        if isinstance(value, str) and not _is_number(value):
            return parse_iso(value)
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise ValueError
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError
        return epoch_to_datetime(value)
    except (RowError, ValueError, OverflowError, OSError):
        raise RowError(f"field {field}: expected epoch seconds or an ISO 8601 time, got {str(value)[:60]!r}") from None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def text_or_json(value: Any) -> str | None:
    """A string as is; any other value as its JSON text (so nothing is lost)."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def has_error(value: Any) -> bool:
    if value is None or value is False:
        return False
    if isinstance(value, str):
        return value.strip() != ""
    if isinstance(value, (dict, list)):
        return len(value) > 0
    return True


def derived_task_status(step_statuses: list[str]) -> str:
    """The turn's status from its steps' statuses.

    success: every step succeeded. failed: some step failed and none succeeded.
    partial: some failed, some succeeded. unknown: no steps at all (nothing was
    executed to judge by), or steps whose outcome is unknown and none failed.
    """
    if not step_statuses:
        return "unknown"
    failed = step_statuses.count("failed")
    succeeded = step_statuses.count("success")
    if failed:
        return "partial" if succeeded else "failed"
    return "success" if succeeded == len(step_statuses) else "unknown"


class Seed001Reader(PythonReader):
    name = "seed001"
    claims = [
        ("trace", "list_contains(k, 'tool_calls') AND (list_contains(k, 'user_query') "
                  "OR (list_contains(k, 'task_id') AND list_contains(k, 'final_answer')))"),
    ]

    def rows(self, record: dict[str, Any], ctx: RecordContext) -> Rows:
        task_id = text_or_json(record.get("task_id"))
        if task_id is None or task_id.strip() == "":
            raise RowError("missing required field task_id")
        calls = record.get("tool_calls")
        if calls is None:
            calls = []
        if not isinstance(calls, list):
            raise RowError(f"field tool_calls: expected a list of tool calls, got {type(calls).__name__}")
        metadata = record.get("metadata")
        if metadata is None:
            metadata = {}
        if not isinstance(metadata, dict):
            raise RowError(f"field metadata: expected an object, got {type(metadata).__name__}")

        steps = self._steps(task_id, calls, ctx)
        statuses = [s["status"] for s in steps]
        starts = [s["started_at"] for s in steps if s["started_at"] is not None]
        ends = [s["ended_at"] for s in steps if s["ended_at"] is not None]
        started_at = min(starts) if starts else None
        finished_at = max(ends) if ends else None

        meta = dict(metadata)
        lifted = {}
        for column, keys in _META_COLUMNS.items():
            used = next((k for k in keys if meta.get(k) is not None), None)
            if used is not None:
                lifted[column] = text_or_json(meta.pop(used))
        replanned = meta.pop("replanned", None) if isinstance(meta.get("replanned"), bool) else None
        extra = {k: v for k, v in record.items() if k not in _RECORD_KEYS}
        if extra:
            meta.update(extra)  # unknown top-level keys are kept, not dropped

        final_answer = text_or_json(record.get("final_answer"))
        goal = text_or_json(record.get("user_query"))
        task = {
            "task_id": task_id,
            "source": self.name,
            "goal": goal,
            "plan": record.get("plan"),
            "status": derived_task_status(statuses),
            "total_steps": len(steps),
            "success_steps": statuses.count("success"),
            "replanned": replanned,
            "started_at": started_at,
            "finished_at": finished_at,
            "final_answer": final_answer,
            "metadata": meta or None,
            **lifted,
        }
        messages = []
        who = {"conversation_id": lifted.get("conversation_id"), "user_id": lifted.get("user_id")}
        if goal is not None:
            messages.append({"message_id": f"{task_id}:query", "role": "user", "content": goal,
                             "created_at": started_at, "task_id": task_id, "source": self.name, **who})
        if final_answer is not None:
            messages.append({"message_id": f"{task_id}:final", "role": "assistant", "content": final_answer,
                             "created_at": finished_at, "task_id": task_id, "source": self.name, **who})
        return Rows(tasks=[task], steps=steps, messages=messages)

    def _steps(self, task_id: str, calls: list[Any], ctx: RecordContext) -> list[dict[str, Any]]:
        unordered = []
        for pos, call in enumerate(calls):
            where = f"tool_calls[{pos}]"
            if not isinstance(call, dict):
                raise RowError(f"field {where}: expected an object, got {type(call).__name__}")
            tool = call.get("tool_name")
            if not isinstance(tool, str) or not tool.strip():
                raise RowError(f"field {where}.tool_name: missing (every tool call needs the tool's name)")
            started = timestamp(call.get("start_time"), f"{where}.start_time")
            ended = timestamp(call.get("end_time"), f"{where}.end_time")
            unordered.append((pos, call, tool, started, ended))
        # Order by start_time, then position; calls without a start time go last (as NULLS LAST).
        unordered.sort(key=lambda c: (c[3] is None, c[3].timestamp() if c[3] else 0.0, c[0]))
        steps = []
        for seq, (pos, call, tool, started, ended) in enumerate(unordered, start=1):
            steps.append(self._step(task_id, seq, pos, call, tool, started, ended))
        return steps

    def _step(self, task_id, seq, pos, call, tool, started, ended) -> dict[str, Any]:
        result = call.get("result")
        envelope = result if isinstance(result, dict) else {}
        error = call.get("error")
        failed = has_error(error) or envelope.get("success") is False
        if not has_error(error) and envelope.get("success") is False:
            error = envelope.get("error") or envelope.get("message")
        verified = envelope.get("verified")
        detail = envelope.get("detail")
        attempts = call.get("attempts", envelope.get("attempts"))
        arguments = call.get("arguments")
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                pass  # not JSON: kept as the string it is
        extra = {k: v for k, v in call.items() if k not in _CALL_KEYS}
        if pos + 1 != seq:
            extra["position"] = pos  # reordered by start_time: where it stood in tool_calls
        return {
            "task_id": task_id,
            "seq": seq,
            "step_id": text_or_json(call.get("id", call.get("call_id"))),
            "tool": tool,
            "kind": step_kind(tool),
            "args": arguments,
            "reason": text_or_json(call.get("reason")),
            "status": "failed" if failed else "success",
            "verified": verified if isinstance(verified, bool) else None,
            "attempts": attempts if isinstance(attempts, int) and not isinstance(attempts, bool) else None,
            "error": text_or_json(error) if has_error(error) else None,
            "detail": text_or_json(detail),
            "result": result,
            "started_at": started,
            "ended_at": ended,
            "metadata": extra or None,
        }
