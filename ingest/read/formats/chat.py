"""Chat transcripts with tool calls (OpenAI message style), including tau-bench runs.

A record holds a list of messages under `messages` or `traj` (tau-bench result
files are a JSON array of runs `{task_id, trial, reward, info, traj}`).
Assistant messages carry `tool_calls: [{id, function: {name, arguments}}]`
(arguments as a JSON string); `role: tool` messages answer them by
`tool_call_id`. One record becomes one task, one step per tool call in the
order the calls were made, and one message row per message.

Task ids must not collide with other sources (tau-bench task ids are small
integers, like seed-004 ids, and the retail and airline files reuse them):
- tau-bench runs: `tau:<env>:<task_id>:<trial>`, where env is the domain named
  by the system prompt's heading ("# Retail agent policy" -> `retail`), or
  `h<10 hex>` (a hash of the record) when no heading names one;
- other transcripts: `chat:<id>`, the id being the record's task_id, id or
  conversation_id, else `h<10 hex>` as above.

Messages may also be LangChain / LangGraph messages (`{type, data}`, or
`{type: human|ai|tool, tool_calls: [{name, args, id}], status}`); see
`conversation.message` for every shape read. A step failed when its tool result
says so, in the shared failure vocabulary (`vocabulary.failure`): text starting
with `Error:`, a JSON object with a non-empty `error`, `success: false`,
`isError: true`, `status: "error"`, a non-zero exit code; a LangChain
ToolMessage with `status: "error"`. A call that no tool message answers is `unknown`. `verified` stays NULL:
a tool result here is arbitrary data (a profile's "verified" flag is not a
read-back), so it is never read as one. These files carry no timestamps;
times stay NULL unless a message has `created_at`/`timestamp`.

Without times, order is the only clock: every message row and every step
records `metadata.message_index`, the position in the conversation of the
message itself (for a step: the assistant message that made the call; the
message id is `<task id>:<index>`). The rules use it to judge a reply only
by the tool calls made since the previous reply (docs/rules.md, tau-bench).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from ..base import PythonReader, RecordContext, RowError, Rows
from .conversation import Transcript, message
from .seed001 import text_or_json, timestamp

MAX_INFO_BYTES = 64 * 1024
_ENV_HEADING = re.compile(r"^\s*#\s*([A-Za-z][\w-]*)\s+agent\s+policy", re.IGNORECASE | re.MULTILINE)
_MESSAGE_KEYS = {"role", "content", "created_at", "timestamp"}


def _short_hash(record: Any) -> str:
    text = json.dumps(record, sort_keys=True, ensure_ascii=False, default=str)
    return "h" + hashlib.sha256(text.encode()).hexdigest()[:10]


def _environment(messages: list[dict[str, Any]]) -> str | None:
    for m in messages:
        if m.get("role") == "system" and isinstance(m.get("content"), str):
            found = _ENV_HEADING.search(m["content"])
            if found:
                return found.group(1).lower()
    return None


def conversation_rows(transcript: Transcript, messages: list[Any], key: str) -> None:
    """Every message of a chat into `transcript`: a message row each, a step per tool call,
    tool messages settling the calls they answer."""
    for pos, raw in enumerate(messages):
        where = f"{key}[{pos}]"
        m = message(raw, where)
        inner = m.raw
        created = timestamp(inner.get("created_at", inner.get("timestamp")), f"{where}.created_at")
        extra = {k: v for k, v in inner.items() if k not in _MESSAGE_KEYS and v not in (None, [], {}, "")}
        if "role" not in inner:
            extra.pop("type", None)  # the LangChain type was the role
        index = transcript.add_message(m.role, m.text, created_at=created, meta=extra)
        if m.role == "assistant":
            for c in m.calls:
                transcript.call(c.tool, c.arguments, call_id=c.call_id, reason=m.text, at_message=index)
        elif m.role == "tool":
            transcript.answer(m, created)


class ChatReader(PythonReader):
    name = "chat"
    claims = [("run", "list_contains(k, 'traj') OR list_contains(k, 'messages')")]

    def rows(self, record: dict[str, Any], ctx: RecordContext) -> Rows:
        key = "traj" if "traj" in record else "messages"
        messages = record.get(key)
        if not isinstance(messages, list):
            raise RowError(f"field {key}: expected a list of messages, got {type(messages).__name__}")
        for i, m in enumerate(messages):
            if not isinstance(m, dict):
                raise RowError(f"field {key}[{i}]: expected a message object, got {type(m).__name__}")
        task_id, env, id_key = self._task_id(record, key, messages)
        info = record.get("info")
        task_user = info.get("task", {}).get("user_id") if isinstance(info, dict) and isinstance(info.get("task"), dict) else None
        user_id = text_or_json(record.get("user_id") or task_user)
        transcript = Transcript(task_id, self.name, text_or_json(record.get("conversation_id")), user_id)
        conversation_rows(transcript, messages, key)
        return transcript.rows(model=text_or_json(record.get("model")),
                               metadata=self._metadata(record, key, env, id_key))

    def _task_id(self, record: dict[str, Any], key: str, messages: list[dict[str, Any]]) -> tuple[str, str | None, str | None]:
        """(task id, tau environment, the record key the id came from)."""
        if key == "traj":
            env = _environment(messages) or _short_hash(record)
            own = text_or_json(record.get("task_id"))
            parts = ["tau", env, own if own is not None else _short_hash(record)]
            if record.get("trial") is not None:
                parts.append(text_or_json(record["trial"]))
            return ":".join(parts), env, "task_id" if own is not None else None
        used = next((k for k in ("task_id", "id", "conversation_id") if record.get(k) not in (None, "")), None)
        return f"chat:{text_or_json(record[used]) if used else _short_hash(record)}", None, used

    def _metadata(self, record: dict[str, Any], key: str, env: str | None, id_key: str | None) -> dict[str, Any] | None:
        meta: dict[str, Any] = {}
        if env is not None:
            meta["env"] = env
        if id_key is not None:
            meta["source_task_id"] = record[id_key]
        consumed = {key, id_key, "info", "user_id", "conversation_id", "model"}
        for k, v in record.items():
            if k not in consumed:
                meta[k] = v
        if "info" in record:
            info = record["info"]
            if len(json.dumps(info, ensure_ascii=False, default=str).encode()) <= MAX_INFO_BYTES:
                meta["info"] = info
            else:
                meta["reward_info"] = info.get("reward_info") if isinstance(info, dict) else None
                meta["info_dropped"] = f"info over {MAX_INFO_BYTES // 1024} KB; only reward_info kept"
        return meta or None
