"""One conversation, whatever stack wrote it: messages of the known shapes, and the rows they make.

Two things every transcript-like reader needs, so each reader only maps its own fields:

- `message()`: one chat message in any of the shapes agent stacks write, read into a `Message`
  (role, text, tool calls, the call a tool message answers, its status). Shapes:
  OpenAI chat (`role`, `content`, `tool_calls[].function.{name, arguments}`, `tool_call_id`);
  LangChain `messages_to_dict` (`{type, data: {...}}`), LangChain `model_dump` / LangGraph state
  (`{type: human|ai|tool|system, content, tool_calls: [{name, args, id}], tool_call_id, status}`),
  LangChain's serialised form (`{lc: 1, type: constructor, id: [..., "AIMessage"], kwargs}`);
  Inspect AI (`tool_calls[].function` a name, `arguments` an object, `error` on tool messages);
  content as a string or a list of parts (`{type: text, text}`).
- `Transcript`: messages and tool calls in the order they happened, into one task, its steps
  (seq 1..n in call order) and its message rows. A step's outcome comes from the shared failure
  vocabulary (`vocabulary.failure`). Every message row and step records
  `metadata.message_index` (the message's position; a step: the message that made the call),
  which the rules use to judge a reply by the calls made since the previous reply.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..base import RowError, Rows
from ..vocabulary import ROLE_SPELLINGS, failure, is_coding_tool, step_kind
from .seed001 import derived_task_status, text_or_json

# LangChain message types (the `type` key) that name a role.
LANGCHAIN_TYPES = frozenset({"human", "ai", "tool", "system", "function", "chat", "remove",
                             "AIMessageChunk", "HumanMessageChunk", "ToolMessageChunk", "SystemMessageChunk"})


def content_text(content: Any) -> str | None:
    """Message content as text: a string as is, text parts joined, anything else as JSON."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(p, dict) for p in content):
        texts = [p.get("text") for p in content if isinstance(p.get("text"), str)]
        if texts:
            return "\n".join(texts)
        if not content:
            return None
    return json.dumps(content, ensure_ascii=False, default=str)


def parsed_json(text: Any) -> Any:
    """JSON text parsed when it is JSON; anything else returned unchanged."""
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


@dataclass
class Call:
    call_id: str | None
    tool: str
    arguments: Any


@dataclass
class Message:
    role: str | None
    text: str | None
    calls: list[Call] = field(default_factory=list)
    answers: str | None = None          # the tool call id a tool message answers
    name: str | None = None             # a tool message's tool name (or a speaker's name)
    status: Any = None                  # a tool message's own status (LangChain ToolMessage.status)
    error: Any = None                   # a tool message's own error (Inspect ChatMessageTool.error)
    raw: dict[str, Any] = field(default_factory=dict)  # the message's own fields (the `data` of {type, data})


def unwrap(m: dict[str, Any]) -> dict[str, Any]:
    """The message's own fields: LangChain's `{type, data}` and `{lc, kwargs}` wrappers removed."""
    if isinstance(m.get("data"), dict) and m.get("type") in LANGCHAIN_TYPES and "content" in m["data"]:
        inner = dict(m["data"])
        inner.setdefault("type", m["type"])
        return inner
    if m.get("lc") == 1 and isinstance(m.get("kwargs"), dict):
        inner = dict(m["kwargs"])
        ids = m.get("id")
        if "type" not in inner and isinstance(ids, list) and ids:
            inner["type"] = str(ids[-1])
        return inner
    return m


def looks_like_message(m: Any) -> bool:
    if not isinstance(m, dict):
        return False
    m = unwrap(m)
    return ("role" in m or m.get("type") in LANGCHAIN_TYPES or str(m.get("type", "")).lower() in ROLE_SPELLINGS) \
        and ("content" in m or "tool_calls" in m)


def _calls(m: dict[str, Any], where: str) -> list[Call]:
    calls = m.get("tool_calls")
    if calls is None and isinstance(m.get("additional_kwargs"), dict):
        calls = m["additional_kwargs"].get("tool_calls")  # older LangChain: the provider's raw calls
    if calls is None and isinstance(m.get("function_call"), dict):
        calls = [{"function": m["function_call"]}]  # the older single-call spelling
    if calls is None and isinstance(m.get("content"), list):  # Anthropic-style tool_use parts
        calls = [p for p in m["content"] if isinstance(p, dict) and p.get("type") == "tool_use"]
    if calls is None:
        return []
    if isinstance(calls, str):
        calls = parsed_json(calls)
    if not isinstance(calls, list):
        raise RowError(f"field {where}.tool_calls: expected a list, got {type(calls).__name__}")
    out = []
    for i, call in enumerate(calls):
        if not isinstance(call, dict):
            raise RowError(f"field {where}.tool_calls[{i}]: expected an object, got {type(call).__name__}")
        fn = call.get("function")
        if isinstance(fn, dict):                      # OpenAI: {id, function: {name, arguments}}
            name, arguments = fn.get("name"), fn.get("arguments")
        elif isinstance(fn, str):                     # Inspect AI: {id, function: name, arguments}
            name, arguments = fn, call.get("arguments")
        else:                                         # LangChain: {name, args, id}; Anthropic: {name, input}
            name = call.get("name")
            arguments = call.get("args", call.get("input", call.get("arguments")))
        if not isinstance(name, str) or not name.strip():
            spelled = "function.name" if isinstance(fn, dict) else "name"
            raise RowError(f"field {where}.tool_calls[{i}].{spelled}: missing (every tool call needs the tool's name)")
        out.append(Call(text_or_json(call.get("id")), name, parsed_json(arguments)))
    return out


def message(m: Any, where: str) -> Message:
    """One message of any known shape, read (see the module docstring)."""
    if not isinstance(m, dict):
        raise RowError(f"field {where}: expected a message object, got {type(m).__name__}")
    inner = unwrap(m)
    spelled = inner.get("role") if inner.get("role") is not None else inner.get("type")  # LangChain: type
    key = str(spelled or "").strip().lower()
    role = ROLE_SPELLINGS.get(key, key or None)
    content = inner.get("content")
    answers = text_or_json(inner.get("tool_call_id"))
    if role == "user" and isinstance(content, list):
        # Anthropic-style tool_result parts in a user turn answer a call
        results = [p for p in content if isinstance(p, dict) and p.get("type") == "tool_result"]
        if results and len(results) == len(content):
            p = results[0]
            return Message("tool", content_text(p.get("content")), answers=text_or_json(p.get("tool_use_id")),
                           error=True if p.get("is_error") is True else None, raw=inner)
    calls = _calls(inner, where) if role == "assistant" else []
    text = content_text([p for p in content if not (isinstance(p, dict) and p.get("type") == "tool_use")]
                        if isinstance(content, list) else content)
    return Message(role, text, calls, answers, text_or_json(inner.get("name") or inner.get("function")),
                   inner.get("status"), inner.get("error"), inner)


class Transcript:
    """A task under construction: messages and tool calls, in order."""

    def __init__(self, task_id: str, source: str, conversation_id: str | None = None, user_id: str | None = None):
        self.task_id, self.source = task_id, source
        self.conversation_id = conversation_id or task_id
        self.user_id = user_id
        self.steps: list[dict[str, Any]] = []
        self.messages: list[dict[str, Any]] = []
        self._open: dict[str, dict[str, Any]] = {}  # call id (or '#seq') -> step waiting for its result

    # -- messages -------------------------------------------------------------------------------
    def add_message(self, role: str | None, text: str | None, *, created_at: datetime | None = None,
                    meta: dict[str, Any] | None = None, message_id: str | None = None) -> int:
        index = len(self.messages)
        extra = dict(meta or {})
        extra["message_index"] = index
        self.messages.append({
            "message_id": message_id or f"{self.task_id}:{index}", "conversation_id": self.conversation_id,
            "user_id": self.user_id, "role": role, "content": text, "created_at": created_at,
            "task_id": self.task_id, "source": self.source, "metadata": extra,
        })
        return index

    # -- tool calls -----------------------------------------------------------------------------
    def call(self, tool: str, arguments: Any, *, call_id: str | None = None, reason: str | None = None,
             at_message: int | None = None, started_at: datetime | None = None, ended_at: datetime | None = None,
             meta: dict[str, Any] | None = None) -> dict[str, Any]:
        """A tool call, outcome unknown until `answer()`. `at_message`: the message that made it
        (default: the latest message so far)."""
        index = at_message if at_message is not None else len(self.messages) - 1
        extra = dict(meta or {})
        extra["message_index"] = index
        step = {
            "task_id": self.task_id, "seq": len(self.steps) + 1, "step_id": call_id, "tool": tool,
            "kind": step_kind(tool), "args": arguments,
            "reason": reason if isinstance(reason, str) and reason.strip() else None,
            "status": "unknown", "verified": None, "started_at": started_at, "ended_at": ended_at,
            "metadata": extra,
        }
        self.steps.append(step)
        self._open[call_id or f"#{step['seq']}"] = step
        return step

    def pending(self, call_id: str | None, tool: str | None = None) -> dict[str, Any] | None:
        """The open call a result answers: by id, else the oldest open call of that tool, else the oldest."""
        step = self._open.pop(call_id, None) if call_id is not None else None
        if step is None:
            match = next((k for k, s in self._open.items() if tool is not None and s["tool"] == tool), None) \
                or next(iter(self._open), None)
            step = self._open.pop(match) if match is not None else None
        return step

    def settle(self, step: dict[str, Any], result: Any = None, *, text: Any = None, error: Any = None,
               status: Any = None, exit_code: Any = None, level: Any = None,
               ended_at: datetime | None = None, shell: bool | None = None) -> None:
        """Record a call's result; its outcome from the shared failure vocabulary. `shell`: read
        failure observations as a shell's (default: when the tool is a shell or file editor)."""
        shown = failure(result, text=text, error=error, status=status, exit_code=exit_code, level=level,
                        shell=is_coding_tool(step["tool"]) if shell is None else shell)
        step.update(result=result, status="failed" if shown else "success", error=shown)
        if ended_at is not None:
            step["ended_at"] = ended_at

    def answer(self, msg: Message, created_at: datetime | None = None) -> None:
        """A tool message answering an open call (nothing asked for it: kept only as a message)."""
        step = self.pending(msg.answers, msg.name)
        if step is not None:
            self.settle(step, parsed_json(msg.text), text=msg.text, error=msg.error, status=msg.status,
                        ended_at=created_at)

    # -- the task -------------------------------------------------------------------------------
    def rows(self, *, goal: str | None = None, final_answer: str | None = None, status: str | None = None,
             **task: Any) -> Rows:
        """The task and its rows. goal / final answer default to the first user message and the
        last assistant message with text; status to the one derived from the steps."""
        if goal is None:
            goal = next((m["content"] for m in self.messages if m["role"] == "user" and m["content"]), None)
        if final_answer is None:
            final_answer = next((m["content"] for m in reversed(self.messages)
                                 if m["role"] == "assistant" and isinstance(m["content"], str)
                                 and m["content"].strip()), None)
        statuses = [s["status"] for s in self.steps]
        times = [t for r in self.messages for t in (r["created_at"],) if t is not None] + \
                [t for s in self.steps for t in (s["started_at"], s["ended_at"]) if t is not None]
        row = {
            "task_id": self.task_id, "source": self.source, "user_id": self.user_id,
            "conversation_id": self.conversation_id, "goal": goal,
            "status": status or derived_task_status(statuses), "total_steps": len(self.steps),
            "success_steps": statuses.count("success"),
            "started_at": min(times) if times else None, "finished_at": max(times) if times else None,
            "final_answer": final_answer,
        }
        row.update({k: v for k, v in task.items() if v is not None})
        return Rows(tasks=[row], steps=self.steps, messages=self.messages)
