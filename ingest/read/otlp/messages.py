"""A turn's request and reply text, read from span attributes in the dialects producers write.

GenAI `gen_ai.input.messages` / `gen_ai.output.messages` (message lists with parts), OpenInference
`llm.input_messages.N.message.*`, OpenLLMetry `gen_ai.prompt.N.*` / `gen_ai.completion.N.*`, and the
plain `input.value` / `output.value` / `traceloop.entity.*`. The load's rebuild calls `user_text` and
`assistant_text` once per turn; each takes any object with `attrs` (a dict) and `role`.
"""

from __future__ import annotations

import json
from typing import Any

def parse_json(value: Any) -> Any:
    if isinstance(value, str):
        t = value.strip()
        if t[:1] in ("{", "[", '"') or t in ("true", "false", "null"):
            try:
                return json.loads(t)
            except ValueError:
                return value
    return value


def _text_of_message(m: Any) -> str | None:
    if isinstance(m, str):
        return m
    if not isinstance(m, dict):
        return None
    parts = m.get("parts")
    if isinstance(parts, list):
        texts = [p.get("content") if p.get("content") is not None else p.get("text")
                 for p in parts if isinstance(p, dict) and p.get("type") == "text"]
        texts = [t for t in texts if isinstance(t, str) and t]
        if texts:
            return "\n".join(texts)
    content = m.get("content")
    if isinstance(content, str) and content:
        return content
    if isinstance(content, list):
        texts = [c.get("text") for c in content if isinstance(c, dict) and isinstance(c.get("text"), str)]
        if texts:
            return "\n".join(texts)
    return None


def last_message_text(value: Any, roles: tuple[str, ...], last_only: bool = False) -> str | None:
    """The last message of one of `roles` with text, from a GenAI messages attribute. `last_only`:
    only if it is the history's last message with a role (a run's reply, not an earlier turn's)."""
    msgs = parse_json(value)
    if isinstance(msgs, dict):
        msgs = msgs.get("messages", [msgs])
    if isinstance(msgs, str):
        return msgs or None
    if not isinstance(msgs, list):
        return None
    for m in reversed(msgs):
        if isinstance(m, dict) and m.get("role") is not None and m.get("role") not in roles:
            if last_only:
                return None
            continue
        text = _text_of_message(m)
        if text or last_only:
            return text or None
    return None


def indexed_messages(a: dict[str, Any], prefix: str) -> list[dict[str, Any]]:
    """Flattened lists: `llm.output_messages.0.message.content`, `gen_ai.completion.0.content`."""
    found: dict[int, dict[str, Any]] = {}
    for k, v in a.items():
        if not k.startswith(prefix):
            continue
        idx, _, field = k[len(prefix):].partition(".")
        if not idx.isdigit():
            continue
        field = field.removeprefix("message.")
        found.setdefault(int(idx), {})[field] = v
    return [found[i] for i in sorted(found)]


def _plain_value(value: Any) -> str | None:
    """input.value / output.value / traceloop.entity.* as the text a person reads."""
    v = parse_json(value)
    if isinstance(v, str):
        return v or None
    if isinstance(v, dict):
        text = last_message_text(v.get("messages"), ("user", "assistant")) if "messages" in v else None
        if text:
            return text
        for k in ("output", "answer", "response", "content", "text", "query", "input"):
            if isinstance(v.get(k), str) and v[k]:
                return v[k]
    if value is None:
        return None
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def user_text(s: Any) -> str | None:
    """The user's request a span records; none for a tool span (its input is the tool's arguments)."""
    if s.role == "tool":
        return None
    a = s.attrs
    for key in ("gen_ai.input.messages", "pydantic_ai.all_messages", "all_messages_events"):
        text = last_message_text(a.get(key), ("user", "human"))
        if text:
            return text
    for prefix in ("llm.input_messages.", "gen_ai.prompt."):
        msgs = [m for m in indexed_messages(a, prefix) if m.get("role") in ("user", "human")]
        if msgs and isinstance(msgs[-1].get("content"), str):
            return msgs[-1]["content"]
    if s.role != "llm":
        for key in ("input.value", "traceloop.entity.input", "langfuse.trace.input", "langfuse.observation.input"):
            text = _plain_value(a.get(key))
            if text:
                return text
    return None


def assistant_text(s: Any) -> str | None:
    """The reply a span records; none for a tool span (its output is the tool's result)."""
    if s.role == "tool":
        return None
    a = s.attrs
    text = last_message_text(a.get("gen_ai.output.messages"), ("assistant", "model", "ai"))
    if text:
        return text
    text = _plain_value(a.get("final_result"))  # Pydantic AI: the run's output
    if text:
        return text
    for key in ("pydantic_ai.all_messages", "all_messages_events"):
        text = last_message_text(a.get(key), ("assistant", "model", "ai"), last_only=True)
        if text:
            return text
    for prefix in ("llm.output_messages.", "gen_ai.completion."):
        msgs = [m for m in indexed_messages(a, prefix) if isinstance(m.get("content"), str) and m["content"]]
        if msgs:
            return msgs[-1]["content"]
    for key in ("output.value", "traceloop.entity.output", "langfuse.trace.output", "langfuse.observation.output"):
        text = _plain_value(a.get(key))
        if text:
            return text
    return None


# ---- GenAI log events (the logs signal) -----------------------------------------------------------
# Each event is (event name, body as JSON, attributes); one span's events in time order. Names from
# the GenAI semantic conventions: per-message events (gen_ai.user.message, gen_ai.choice; body
# {content} / {index, finish_reason, message: {role, content}}), as the OpenAI instrumentation
# emits them, the later gen_ai.client.inference.operation.details event (gen_ai.input.messages /
# gen_ai.output.messages attributes, the span attributes' shape), and OpenLLMetry's
# gen_ai.prompt / gen_ai.completion ({role, content}).

INFERENCE_DETAILS = "gen_ai.client.inference.operation.details"


def _body_text(body: Any) -> str | None:
    if isinstance(body, dict) and isinstance(body.get("message"), (dict, str)):
        return _text_of_message(body["message"])
    return _text_of_message(body)


def _last_event_text(events, details_key: str, roles: tuple[str, ...], is_text_event) -> str | None:
    for name, body, attrs in reversed(events):
        if name == INFERENCE_DETAILS:
            text = last_message_text(attrs.get(details_key), roles)
        elif is_text_event(name, body):
            text = _body_text(body)
        else:
            continue
        if text:
            return text
    return None


def event_user_text(events: list[tuple[str, Any, dict]]) -> str | None:
    """The last user message among one span's events."""
    return _last_event_text(events, "gen_ai.input.messages", ("user", "human"), lambda name, body: (
        name == "gen_ai.user.message"
        or (name == "gen_ai.prompt" and isinstance(body, dict) and body.get("role") in ("user", "human"))))


def event_reply_text(events: list[tuple[str, Any, dict]]) -> str | None:
    """The reply among one span's events: the last reply event with text."""
    return _last_event_text(events, "gen_ai.output.messages", ("assistant", "model", "ai"),
                            lambda name, body: name in ("gen_ai.choice", "gen_ai.completion"))
