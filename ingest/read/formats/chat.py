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

A step failed when its tool result says so: text starting with `Error:`, or a
JSON object with a non-empty `error`, `success: false` or `isError: true`.
A call that no tool message answers is `unknown`. `verified` stays NULL:
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
from .seed001 import derived_task_status, step_kind, text_or_json, timestamp

MAX_INFO_BYTES = 64 * 1024
_ENV_HEADING = re.compile(r"^\s*#\s*([A-Za-z][\w-]*)\s+agent\s+policy", re.IGNORECASE | re.MULTILINE)
_ROLES = {"assistant": "assistant", "ai": "assistant", "model": "assistant", "bot": "assistant",
          "user": "user", "human": "user", "tool": "tool", "function": "tool", "system": "system",
          "developer": "system"}
_MESSAGE_KEYS = {"role", "content", "created_at", "timestamp"}


def _short_hash(record: dict[str, Any]) -> str:
    text = json.dumps(record, sort_keys=True, ensure_ascii=False, default=str)
    return "h" + hashlib.sha256(text.encode()).hexdigest()[:10]


def content_text(content: Any) -> str | None:
    """Message content as text: a string as is, content parts joined, anything else as JSON."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(p, dict) for p in content):
        texts = [p.get("text") for p in content if isinstance(p.get("text"), str)]
        if texts:
            return "\n".join(texts)
    return json.dumps(content, ensure_ascii=False)


def parsed_json(text: Any) -> Any:
    """JSON text parsed when it is JSON; anything else returned unchanged."""
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


def tool_failure(content: str | None, result: Any) -> str | None:
    """The error a tool result reports, or None when it reports none."""
    if isinstance(content, str) and content.lstrip().startswith("Error:"):
        return content.strip()
    if isinstance(result, dict):
        err = result.get("error")
        if err not in (None, "", False, {}, []):
            return err if isinstance(err, str) else json.dumps(err, ensure_ascii=False)
        if result.get("success") is False or result.get("isError") is True:
            said = result.get("message") or result.get("detail") or result.get("content")
            return content_text(said) if said not in (None, "", []) else content
    return None


def _environment(messages: list[dict[str, Any]]) -> str | None:
    for m in messages:
        if m.get("role") == "system" and isinstance(m.get("content"), str):
            found = _ENV_HEADING.search(m["content"])
            if found:
                return found.group(1).lower()
    return None


def _calls_of(message: dict[str, Any], where: str) -> list[tuple[str | None, str, Any]]:
    """(call id, tool name, raw arguments) for each tool call an assistant message makes."""
    calls = message.get("tool_calls")
    if calls is None and isinstance(message.get("function_call"), dict):
        calls = [{"function": message["function_call"]}]  # the older single-call spelling
    if calls is None:
        return []
    if not isinstance(calls, list):
        raise RowError(f"field {where}.tool_calls: expected a list, got {type(calls).__name__}")
    out = []
    for i, call in enumerate(calls):
        fn = call.get("function") if isinstance(call, dict) else None
        name = fn.get("name") if isinstance(fn, dict) else None
        if not isinstance(name, str) or not name.strip():
            raise RowError(f"field {where}.tool_calls[{i}].function.name: missing (every tool call needs the tool's name)")
        out.append((text_or_json(call.get("id")), name, fn.get("arguments")))
    return out


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
        conversation_id = text_or_json(record.get("conversation_id")) or task_id

        steps: list[dict[str, Any]] = []
        open_calls: dict[str, dict[str, Any]] = {}  # call id -> step still waiting for its result
        rows_out: list[dict[str, Any]] = []
        goal = final_answer = None
        for pos, m in enumerate(messages):
            where = f"{key}[{pos}]"
            role = _ROLES.get(str(m.get("role", "")).strip().lower(), str(m.get("role") or "").lower() or None)
            text = content_text(m.get("content"))
            if role == "user" and goal is None:
                goal = text
            if role == "assistant" and isinstance(text, str) and text.strip():
                final_answer = text
            if role == "assistant":
                for call_id, name, arguments in _calls_of(m, where):
                    step = self._step(task_id, len(steps) + 1, call_id, name, arguments, text, pos)
                    steps.append(step)
                    open_calls[call_id or f"#{step['seq']}"] = step
            elif role == "tool":
                self._answer(open_calls, m, text)
            created = timestamp(m.get("created_at", m.get("timestamp")), f"{where}.created_at", ctx.tz)
            extra = {k: v for k, v in m.items() if k not in _MESSAGE_KEYS and v not in (None, [], {})}
            extra["message_index"] = pos
            rows_out.append({
                "message_id": f"{task_id}:{pos}", "conversation_id": conversation_id, "user_id": user_id,
                "role": role, "content": text, "created_at": created, "task_id": task_id,
                "source": self.name, "metadata": extra,
            })

        statuses = [s["status"] for s in steps]
        times = [r["created_at"] for r in rows_out if r["created_at"] is not None]
        task = {
            "task_id": task_id,
            "source": self.name,
            "user_id": user_id,
            "conversation_id": conversation_id,
            "goal": goal,
            "status": derived_task_status(statuses),
            "total_steps": len(steps),
            "success_steps": statuses.count("success"),
            "started_at": min(times) if times else None,
            "finished_at": max(times) if times else None,
            "final_answer": final_answer,
            "model": text_or_json(record.get("model")),
            "metadata": self._metadata(record, key, env, id_key),
        }
        return Rows(tasks=[task], steps=steps, messages=rows_out)

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

    def _step(self, task_id, seq, call_id, name, arguments, said, pos) -> dict[str, Any]:
        return {
            "task_id": task_id, "seq": seq, "step_id": call_id, "tool": name, "kind": step_kind(name),
            "args": parsed_json(arguments), "reason": said if isinstance(said, str) and said.strip() else None,
            "status": "unknown", "verified": None, "metadata": {"message_index": pos},
        }

    def _answer(self, open_calls: dict[str, dict[str, Any]], m: dict[str, Any], text: str | None) -> None:
        call_id = m.get("tool_call_id")
        step = open_calls.pop(call_id, None) if call_id is not None else None
        if step is None:
            # No id (or an unknown one): the oldest open call of that tool name, else the oldest open call.
            name = m.get("name")
            match = next((k for k, s in open_calls.items() if s["tool"] == name), None) or next(iter(open_calls), None)
            step = open_calls.pop(match) if match is not None else None
        if step is None:
            return  # a tool message nothing asked for: kept as a message, no step
        result = parsed_json(text)
        error = tool_failure(text, result)
        step.update(result=result, status="failed" if error else "success", error=error)

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
