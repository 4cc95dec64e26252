"""Test reference: the spans of one trace to tasks, steps and messages, in plain Python.

This is the readable statement of the rules. Ingest runs them as set-based SQL
(`ingest/load/otlp_rebuild_sql.py`), which tests/test_otlp_rebuild_reference.py holds to exactly
these results on random traces. It ships nothing: the attribute names and the text helpers it
shares with the rebuild live in `ingest/read/otlp/attributes.py` and `messages.py`.
Change a rule here and in the SQL together.

The rules, in short (the full table is in docs/opentelemetry.md):

- A task is an agent turn: a span with `gen_ai.operation.name = invoke_agent`,
  OpenInference `AGENT` or OpenLLMetry `traceloop.span.kind = agent`; agent
  spans nested in another agent span belong to the outer turn. A trace with
  no agent span has one task per root span (a root `CHAIN` / workflow, or any
  root). Spans whose ancestor chain stops at a parent that has not arrived yet
  form an unfinished task (status `running`, started at its earliest span),
  keyed by that missing parent's id, which is the id the real task span will
  have when it arrives, so the same task is completed later, not duplicated.
- task_id is the turn's `trace_audit.task_id` (the id the user's other systems,
  such as an audit log, give the turn: from the task span, else from its other
  spans, first by start), else the trace id when the trace holds one task (the
  usual case), else `<trace_id>:<task span id>`. A claimed id is not used when it
  has the shape of a stored trace's derived id (and is not the turn's own), a task
  of another source has it, or an earlier turn (start, trace id, task span id)
  claims it too; that turn keeps its trace-derived id and says why in metadata
  (`assign_task_ids`).
- A step's error is `trace_audit.error` when set (also on a step that returned
  success, e.g. a read-back that failed verification); on a failed step, else
  the status message, what the result said, the exception event, `error.type`.
- Steps are tool spans (GenAI `execute_tool`, OpenInference `TOOL`,
  OpenLLMetry `tool`) and LLM spans (`chat`/`text_completion`/
  `generate_content`, OpenInference `LLM`), numbered by start time.
- A step failed when its status is ERROR, `error.type` is set, or its result
  says so (`isError: true`, `ok: false`, `success: false`, an `error` value,
  a non-zero exit code, a text starting with `Error:`).
- verified / attempts / detail come from `trace_audit.verified`,
  `trace_audit.attempts`, `trace_audit.detail` or the result's own keys;
  absent means NULL (not checked).
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable

from trace_audit.ingest.read.base import RawJson
from trace_audit.ingest.read.otlp.attributes import (AGENT_SPAN_NAMES, CONVERSATION_KEYS, LANGFUSE_LEVEL,
                                                    LANGFUSE_STATUS_MESSAGE, LANGFUSE_TYPE, LLM_OPERATIONS,
                                                    MCP_METHOD, MCP_TOOL_CALL, MODEL, TASK_ID_KEY, TOOL_ARGS,
                                                    TOOL_RESULT, TOOL_SPAN_NAMES, USER_KEYS)
from trace_audit.ingest.read.otlp.messages import (assistant_text, indexed_messages, last_message_text, parse_json,
                                                 user_text)

MISSING = object()


class Span:
    __slots__ = ("trace_id", "span_id", "parent", "name", "start", "end", "status", "status_message",
                 "attrs", "resource", "events", "source_file", "source_line", "role")

    def __init__(self, trace_id, span_id, parent, name, start, end, status, status_message, attrs,
                 resource, events, source_file=None, source_line=None):
        self.trace_id = trace_id
        self.span_id = span_id
        self.parent = parent
        self.name = name or ""
        self.start = start  # epoch microseconds or None
        self.end = end
        self.status = status
        self.status_message = status_message
        self.attrs = attrs
        self.resource = resource
        self.events = events
        self.source_file = source_file
        self.source_line = source_line
        self.role = role_of(attrs, self.name)


def role_of(a: dict[str, Any], name: str) -> str | None:
    """agent | tool | llm | chain | None, by GenAI, OpenInference, OpenLLMetry attributes."""
    op = a.get("gen_ai.operation.name")
    if op == "invoke_agent":
        return "agent"
    if op == "execute_tool":
        return "tool"
    if op in LLM_OPERATIONS:
        return "llm"
    oi = a.get("openinference.span.kind")
    if isinstance(oi, str):
        oi = oi.upper()
        if oi == "AGENT":
            return "agent"
        if oi == "TOOL":
            return "tool"
        if oi == "LLM":
            return "llm"
        if oi == "CHAIN":
            return "chain"
    tl = a.get("traceloop.span.kind")
    if isinstance(tl, str):
        tl = tl.lower()
        if tl == "agent":
            return "agent"
        if tl == "tool":
            return "tool"
        if tl == "workflow":
            return "chain"
    lf = a.get(LANGFUSE_TYPE)
    if isinstance(lf, str):
        found = {"agent": "agent", "tool": "tool", "generation": "llm", "chain": "chain"}.get(lf.lower())
        if found:
            return found
    if op is None:
        if name.startswith("invoke_agent"):
            return "agent"
        if name.startswith("execute_tool"):
            return "tool"
        if name in AGENT_SPAN_NAMES:
            return "agent"
        if name in TOOL_SPAN_NAMES or a.get(MCP_METHOD) == MCP_TOOL_CALL:
            return "tool"
        if "llm.request.type" in a or "gen_ai.request.model" in a:
            return "llm"
    return None


# ---- grouping a trace into turns -------------------------------------------------------

def group_turns(spans: list[Span]) -> list[tuple[str, Span | None, list[Span]]]:
    """(key, task span or None when unfinished, spans of the turn), in start order."""
    by_id = {s.span_id: s for s in spans}
    agents = [s for s in spans if s.role == "agent"]
    if agents:
        heads = {s.span_id for s in agents if not _has_agent_ancestor(s, by_id)}
    else:
        heads = {s.span_id for s in spans if not s.parent}
    memo: dict[str, str | None] = {}
    groups: dict[str, list[Span]] = {}
    for s in spans:
        key = _head_of(s, by_id, heads, memo)
        if key is not None:
            groups.setdefault(key, []).append(s)
    out = []
    for key, members in groups.items():
        head = by_id.get(key) if key in heads else None
        if head is None and not any(m.role in ("tool", "llm") for m in members):
            continue  # an orphan with nothing an agent did: wait for its parents
        out.append((key, head, members))
    out.sort(key=lambda g: (_start_of(g), g[0]))
    return out


def _has_agent_ancestor(s: Span, by_id: dict[str, Span]) -> bool:
    seen = 0
    p = by_id.get(s.parent) if s.parent else None
    while p is not None and seen < 1000:
        if p.role == "agent":
            return True
        p = by_id.get(p.parent) if p.parent else None
        seen += 1
    return False


def _head_of(s: Span, by_id: dict[str, Span], heads: set[str], memo: dict[str, str | None]) -> str | None:
    """The key of the turn a span belongs to: its nearest head, or the missing parent it hangs from."""
    path = []
    cur: Span | None = s
    key: Any = MISSING
    while cur is not None and len(path) < 1000:
        if cur.span_id in memo:
            key = memo[cur.span_id]
            break
        path.append(cur.span_id)
        if cur.span_id in heads:
            key = cur.span_id
            break
        if not cur.parent:
            key = None  # reached a root outside every turn
            break
        nxt = by_id.get(cur.parent)
        if nxt is None:
            key = cur.parent  # the parent has not arrived (yet): an unfinished turn
            break
        cur = nxt
    if key is MISSING:
        key = None
    for sid in path:
        memo[sid] = key
    return key


def _start_of(group) -> int:
    _key, head, members = group
    if head is not None and head.start is not None:
        return head.start
    starts = [m.start for m in members if m.start is not None]
    return min(starts) if starts else 0


# ---- reading attributes ----------------------------------------------------------------



def _first(keys: Iterable[str], *dicts: dict[str, Any]) -> Any:
    for d in dicts:
        for k in keys:
            v = d.get(k)
            if v not in (None, ""):
                return v
    return None














def as_bool(v: Any) -> bool | None:
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)):
        return bool(v)
    if isinstance(v, str) and v.lower() in ("true", "false", "1", "0", "yes", "no"):
        return v.lower() in ("true", "1", "yes")
    return None


def as_int(v: Any) -> int | None:
    if isinstance(v, bool) or v is None:
        return None
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def payload_failure(result: Any) -> str | None:
    """Why a tool result says it failed, or None. Real frameworks record such calls as OK spans."""
    if isinstance(result, dict):
        if result.get("isError") is True or result.get("is_error") is True:
            return _short(result.get("content") or result.get("error") or "isError: true")
        for key in ("ok", "success"):
            if result.get(key) is False:
                return _short(result.get("error") or result.get("message") or result.get("detail") or f"{key}: false")
        err = result.get("error")
        if err not in (None, False, "", {}, []):
            return _short(err)
        for key in ("exit_code", "exitCode", "exitcode", "returncode", "return_code"):
            code = result.get(key)
            if isinstance(code, int) and not isinstance(code, bool) and code != 0:
                return f"exit code {code}"
        status = result.get("status")
        if isinstance(status, str) and status.lower() in ("error", "failed", "failure"):
            return _short(result.get("message") or f"status: {status}")
    elif isinstance(result, str) and result.lstrip().startswith("Error:"):
        return _short(result.strip())
    return None


def _short(v: Any) -> str:
    # Structured payloads as compact JSON, as the SQL rebuild (and otel_spans) writes them.
    text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= 500 else text[:500] + "…"


def _exception_message(s: Span) -> str | None:
    if not s.events:
        return None
    for e in parse_json(s.events) or ():
        if isinstance(e, dict) and e.get("name") == "exception":
            a = e.get("attributes") or {}
            msg = a.get("exception.message") or a.get("exception.type")
            if msg:
                return str(msg)
    return None


def _json_value(v: Any) -> Any:
    """Attribute values that hold JSON text are stored as that JSON, other text as a JSON string."""
    if isinstance(v, str):
        parsed = parse_json(v)
        return RawJson(v) if parsed is not v else v
    return v


# ---- a trace to rows -------------------------------------------------------------------

_DERIVED_SHAPE = re.compile(r"[0-9a-f]{32}(?::|\Z)")


def claimed_task_id(head: Span | None, by_start: list[Span]) -> str | None:
    """The turn's `trace_audit.task_id`: the task span's, else its other spans' (first by start).

    Only a non-empty string or an integer is an id; anything else is ignored.
    """
    for s in ([head] if head is not None else []) + [m for m in by_start if m is not head]:
        v = s.attrs.get(TASK_ID_KEY)
        if (isinstance(v, str) and v != "") or (isinstance(v, int) and not isinstance(v, bool)):
            return str(v)
    return None


def assign_task_ids(turns: list[dict], traces: set[str], held: dict[str, str]) -> None:
    """Set each turn's `task_id` (and `clash`, when its claim could not be used).

    `turns` (all stored turns) carry `derived` (the trace-derived id), `claim`, `start`,
    `trace_id`, `key`; `traces` holds the ids of all stored traces; `held` maps the task ids
    of other sources' tasks to their source. A claim is used unless it has the shape of a
    trace-derived id of a stored trace and is not the turn's own, another source holds it, or an
    earlier turn (start, then trace id, then task span id) claims it too. So a derived id is
    never taken by a claim, and a claim is unique.
    """
    winners: dict[str, dict] = {}
    for t in sorted(turns, key=lambda t: (t["start"] is None, t["start"] or 0, t["trace_id"], t["key"])):
        t["task_id"], t["clash"], claim = t["derived"], None, t["claim"]
        if claim is None:
            continue
        if _DERIVED_SHAPE.match(claim) and claim != t["derived"] and claim.split(":")[0] in traces:
            t["clash"] = "names another turn of a stored trace"
        elif claim in held:
            t["clash"] = f"held by a {held[claim]} task"
        elif claim in winners:
            w = winners[claim]
            t["clash"] = f"claimed by an earlier turn (trace {w['trace_id']}, task span {w['key']})"
        else:
            winners[claim] = t
            t["task_id"] = claim


def rows(traces: Iterable[list[Span]], held: dict[str, str] | None = None) -> tuple[list[dict], list[dict], list[dict]]:
    """(tasks, steps, messages) of all the traces, with task ids assigned across them."""
    turns: list[dict] = []
    trace_ids: set[str] = set()
    for spans in traces:
        trace_ids.update(s.trace_id for s in spans)
        groups = group_turns(spans)
        for key, head, members in groups:
            trace_id = members[0].trace_id
            by_start = sorted(members, key=_start_order)
            turns.append({
                "trace_id": trace_id, "key": key, "head": head, "by_start": by_start,
                "derived": trace_id if len(groups) == 1 else f"{trace_id}:{key}",
                "claim": claimed_task_id(head, by_start),
                "start": head.start if head is not None else min(
                    (m.start for m in members if m.start is not None), default=None),
            })
    assign_task_ids(turns, trace_ids, held or {})
    tasks: list[dict] = []
    steps: list[dict] = []
    messages: list[dict] = []
    for t in turns:
        extra = {"claimed_task_id": t["claim"], "task_id_clash": t["clash"]}
        _turn_rows(t["task_id"], t["key"], t["head"], t["by_start"], t["start"], tasks, steps, messages, extra)
    return tasks, steps, messages


def trace_rows(spans: list[Span]) -> tuple[list[dict], list[dict], list[dict]]:
    """(tasks, steps, messages) of one trace, as if no other trace were stored."""
    return rows([spans])


def _start_order(m: Span) -> tuple[int, str]:
    """A turn's spans by start time (no start: last), ties by span id."""
    return (m.start if m.start is not None else 1 << 62, m.span_id)


def _turn_rows(task_id, key, head, by_start, started, tasks, steps, messages, extra) -> None:
    """`by_start`: the turn's spans in `_start_order`; `started`: the turn's start (`rows`)."""
    # A tool span that heads its own turn (a lone MCP call, a root tool span) is its step too.
    step_spans = [m for m in by_start if m.role == "tool" or (m.role == "llm" and m is not head)]
    ha = head.attrs if head is not None else {}
    resource = (head or by_start[0]).resource
    others = [m.attrs for m in by_start if m is not head]
    conversation_id = _first(CONVERSATION_KEYS, ha, *others, resource)
    user_id = _first(USER_KEYS, ha, *others, resource)

    step_rows = []
    for seq, s in enumerate(step_spans, 1):
        step_rows.append(_step_row(task_id, seq, s))
    steps.extend(step_rows)

    llm_steps = [r for r in step_rows if r["kind"] == "llm"]
    model = _first(MODEL, ha) \
        or next((r["model"] for r in llm_steps if r["model"]), None)

    goal = user_text(head) if head is not None else None
    if not goal:
        goal = next((t for t in (user_text(s) for s in step_spans if s.role == "llm") if t), None)
    answer = assistant_text(head) if head is not None else None
    if not answer:
        last_llm = sorted((s for s in step_spans if s.role == "llm"),
                          key=lambda s: (s.end or 0, s.span_id))
        answer = next((t for t in (assistant_text(s) for s in reversed(last_llm)) if t), None)

    work = [r for r in step_rows if r["kind"] != "llm"]
    failed = sum(1 for r in work if r["status"] == "failed")
    ok = sum(1 for r in work if r["status"] == "success")
    if head is None:
        status = "running"
    else:
        status = str(ha.get("trace_audit.status") or "").lower() or None
        if status not in ("running", "success", "partial", "failed", "unknown"):
            if head.status == "error" or ha.get("error.type"):
                status = "failed"
            elif failed and ok:
                status = "partial"
            elif failed:
                status = "failed"
            else:
                status = "success"
    finished = head.end if head is not None and status != "running" else None
    origin = head or by_start[0]
    metadata = {
        "trace_id": origin.trace_id,
        "task_span_id": key,
        "agent_name": _first(("gen_ai.agent.name",), ha) or resource.get("service.name"),
        "agent_id": ha.get("gen_ai.agent.id"),
        "service_name": resource.get("service.name"),
        "span_name": head.name if head is not None else None,
        "provider": _first(("gen_ai.provider.name", "gen_ai.system"), ha, *others),
    }
    if head is None:
        metadata["unfinished"] = "the task span has not arrived: the turn is still running or was lost"
    if head is not None and head.status_message:
        metadata["status_message"] = head.status_message
    metadata.update(extra)
    tasks.append({
        "task_id": task_id, "source": "otlp", "user_id": _str(user_id), "conversation_id": _str(conversation_id),
        "goal": goal, "status": status, "total_steps": len(work), "success_steps": ok,
        "replanned": as_bool(ha.get("trace_audit.replanned")),
        "started_at": started, "finished_at": finished, "final_answer": answer,
        "agent_version": _str(_first(("gen_ai.agent.version",), ha) or resource.get("service.version")),
        "model": _str(model), "prompt_version": _str(ha.get("trace_audit.prompt_version")),
        "metadata": {k: v for k, v in metadata.items() if v is not None},
        "source_file": origin.source_file, "source_line": origin.source_line,
    })
    if goal:
        messages.append({
            "message_id": f"{task_id}:user", "conversation_id": _str(conversation_id), "user_id": _str(user_id),
            "role": "user", "content": goal, "created_at": started, "task_id": task_id, "source": "otlp",
            "metadata": {"trace_id": origin.trace_id},
            "source_file": origin.source_file, "source_line": origin.source_line,
        })
    if answer:
        ends = [m.end for m in by_start if m.end is not None]
        messages.append({
            "message_id": f"{task_id}:assistant", "conversation_id": _str(conversation_id),
            "user_id": _str(user_id), "role": "assistant", "content": answer,
            "created_at": finished if finished is not None else (max(ends) if ends else started),
            "task_id": task_id, "source": "otlp", "metadata": {"trace_id": origin.trace_id},
            "source_file": origin.source_file, "source_line": origin.source_line,
        })


def _str(v: Any) -> str | None:
    return None if v is None else str(v)


def _step_row(task_id: str, seq: int, s: Span) -> dict[str, Any]:
    a = s.attrs
    if s.role == "tool":
        tool = _first(("gen_ai.tool.name", "tool.name", "traceloop.entity.name"), a) \
            or (s.name.removeprefix("execute_tool") if s.name.startswith("execute_tool")
                else s.name.removeprefix(MCP_TOOL_CALL)).strip() or None
        kind = "verify" if tool == "verify_result" else "tool"
        args_raw = _first(TOOL_ARGS, a)
        result_raw = _first(TOOL_RESULT, a)
        model = None
    else:
        tool = None
        kind = "llm"
        args_raw = result_raw = None
        model = _first(MODEL, a)
    result = parse_json(result_raw)
    error_type = a.get("error.type")
    said = payload_failure(result) if s.role == "tool" else None
    level = a.get(LANGFUSE_LEVEL)
    failed = s.status == "error" or bool(error_type) or said is not None \
        or (isinstance(level, str) and level.upper() == "ERROR")
    # trace_audit.error is the error as the agent recorded it: kept even on a step that returned
    # success (a read-back that failed verification), and preferred on a failed one.
    recorded = a.get("trace_audit.error")
    error = _str(recorded) if recorded not in (None, "") else None
    if failed and error is None:
        error = s.status_message or _str(a.get(LANGFUSE_STATUS_MESSAGE)) or said or _exception_message(s) \
            or (str(error_type) if error_type else None)
    verified = as_bool(a.get("trace_audit.verified"))
    if verified is None and isinstance(result, dict):
        verified = as_bool(result.get("verified")) if isinstance(result.get("verified"), bool) else None
    attempts = as_int(a.get("trace_audit.attempts"))
    if attempts is None and isinstance(result, dict):
        attempts = as_int(result.get("attempts"))
    detail = a.get("trace_audit.detail")
    if detail is None and isinstance(result, dict) and isinstance(result.get("detail"), str):
        detail = result["detail"]
    metadata = {
        "span_name": s.name,
        "tool_call_id": a.get("gen_ai.tool.call.id"),
        "error_type": error_type,
        "provider": _first(("gen_ai.provider.name", "gen_ai.system", "llm.provider"), a),
    }
    return {
        "task_id": task_id, "seq": seq, "step_id": _str(a.get("gen_ai.tool.call.id")) or s.span_id,
        "tool": _str(tool), "kind": kind,
        "args": _json_value(args_raw), "reason": _str(a.get("trace_audit.reason")),
        "status": "failed" if failed else "success", "verified": verified, "attempts": attempts,
        "error": error, "detail": _str(detail), "result": _json_value(result_raw),
        "started_at": s.start, "ended_at": s.end, "model": _str(model),
        "input_tokens": as_int(_first(("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens",
                                       "llm.token_count.prompt", "llm.usage.prompt_tokens"), a)),
        "output_tokens": as_int(_first(("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens",
                                        "llm.token_count.completion", "llm.usage.completion_tokens"), a)),
        "trace_id": s.trace_id, "span_id": s.span_id, "parent_span_id": s.parent,
        "metadata": {k: v for k, v in metadata.items() if v is not None},
        "source_file": s.source_file, "source_line": s.source_line,
    }
