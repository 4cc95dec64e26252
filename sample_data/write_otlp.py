#!/usr/bin/env python3
"""The sample month as OpenTelemetry: sample_data/otlp/month.otlp.jsonl.gz

    python sample_data/write_otlp.py [--out sample_data] [--seed 4]

Writes the same turns `generate.py` writes as seed-004 dumps and seed-001
traces, as an agent instrumented with the GenAI semantic conventions would
export them (OTLP/JSON lines, the Collector file exporter's layout, one
request per turn): an `invoke_agent` span per turn, from the task's start to
the reply, with the user's request in `gen_ai.input.messages` and the reply in
`gen_ai.output.messages`, and an `execute_tool` span per step with arguments
(the same JSON text the dumps hold), result, ERROR status for
failed steps, and `trace_audit.verified` / `trace_audit.attempts` /
`trace_audit.detail` / `trace_audit.error` (the read-back error of a step that
returned success but failed verification; a failed step's error is its span
status message).

Every span of a turn that has a task row carries `trace_audit.task_id` (the
dump's task id: what the business system's audit log and chat log call the
turn; trace-audit makes it the task's id), and tool spans also carry
`gen_ai.conversation.id` and `user.id`, as instrumentations that propagate the
session to every span do: a turn whose agent span never ended still says whose
it is and which task it is. A turn that left no task row (not logged in, a
clarifying question) is still an agent invocation: it is an `invoke_agent`
span with no tool spans and no `trace_audit.task_id` (its task id is the trace
id).

What OpenTelemetry cannot carry, and so this copy does not either: a turn
still running exports only its finished steps (the agent span never ended;
trace-audit shows it as a running task, started at its first finished step,
without its request), and a step still running is not exported. Audit-log
rows are the business system's record, not telemetry: load
`seed004/audit_logs.jsonl` next to this file.

The folder carries `.trace-audit-ignore`, so `trace-audit ingest sample_data/`
does not load the month twice; ingest this file on its own.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate import iter_turns  # noqa: E402  (the generator is a script next to this one)

AGENTS = {"seed004": "reminder-assistant", "seed001": "todo-aggregator"}


def _id(text: str, nbytes: int) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[: 2 * nbytes]


def _ns(t: float) -> str:
    return str(int(round(t * 1000)) * 1_000_000)


def _attr(key: str, value) -> dict:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _messages(role: str, text: str) -> str:
    msg = {"role": role, "parts": [{"type": "text", "content": text}]}
    if role == "assistant":
        msg["finish_reason"] = "stop"
    return json.dumps([msg], ensure_ascii=False)


def _arguments(turn, args) -> str:
    # The text the dumps hold: seed-004's args_json is compact (generate._compact); a seed-001
    # arguments object is stored as json.dumps writes it by default.
    if turn.source == "seed004":
        return json.dumps(args, ensure_ascii=False, separators=(",", ":"))
    return json.dumps(args, ensure_ascii=False)


def turn_request(turn) -> dict | None:
    has_task = turn.has_task and turn.task_id is not None
    if has_task:
        key = f"{turn.source}:{turn.task_id}:{turn.step_shift}"
    elif turn.reply:
        key = f"{turn.source}:no-task:{turn.conversation_id}:{_ns(turn.start)}"
    else:
        return None
    trace_id = _id(key, 16)
    agent_id = _id(key + ":agent", 8)
    user = str(turn.user_id) if turn.source == "seed004" else "u-%d" % turn.user_id
    # Which turn this is, on every span (an unfinished turn has no agent span to say it).
    turn_attrs = [_attr("trace_audit.task_id", str(turn.task_id))] if has_task else []
    spans = []
    for s in turn.steps:
        if s.end is None:
            continue  # a span is exported when it ends
        result = s.result if s.result is not None else {"success": s.status == "success", "detail": s.detail}
        attrs = [
            _attr("gen_ai.operation.name", "execute_tool"), _attr("gen_ai.tool.name", s.tool),
            _attr("gen_ai.tool.call.id", f"call_{turn.task_id}_{s.seq}"),
            _attr("gen_ai.tool.call.arguments", _arguments(turn, s.args)),
            _attr("gen_ai.tool.call.result", json.dumps(result, ensure_ascii=False)),
            _attr("trace_audit.source_seq", s.seq), *turn_attrs,
            _attr("gen_ai.conversation.id", turn.conversation_id), _attr("user.id", user),
        ]
        # seed-001 AgentTrace records carry no verified/attempts/detail: neither does its copy.
        if turn.source == "seed004":
            attrs.append(_attr("trace_audit.attempts", s.attempts))
        if s.verified is not None and turn.source == "seed004":
            attrs.append(_attr("trace_audit.verified", s.verified))
        if s.detail and turn.source == "seed004":
            attrs.append(_attr("trace_audit.detail", s.detail))
        if s.reason:
            attrs.append(_attr("trace_audit.reason", s.reason[:500]))
        if s.error and s.status != "failed" and turn.source == "seed004":
            attrs.append(_attr("trace_audit.error", s.error))
        span = {"traceId": trace_id, "spanId": _id(f"{key}:{s.seq}", 8), "parentSpanId": agent_id,
                "name": f"execute_tool {s.tool}", "kind": 1, "startTimeUnixNano": _ns(s.start),
                "endTimeUnixNano": _ns(s.end), "attributes": attrs}
        if s.status == "failed":
            span["status"] = {"code": 2, "message": s.error or "failed"}
            if s.error:
                attrs.append(_attr("error.type", s.error.split(":")[0][:60]))
        spans.append(span)
    if not has_task or (turn.status != "running" and turn.finish is not None):
        attrs = [
            _attr("gen_ai.operation.name", "invoke_agent"), _attr("gen_ai.agent.name", AGENTS[turn.source]),
            _attr("gen_ai.agent.version", turn.agent_version), _attr("gen_ai.request.model", turn.model),
            _attr("gen_ai.conversation.id", turn.conversation_id), _attr("user.id", user),
            _attr("trace_audit.prompt_version", turn.prompt_version),
        ]
        if has_task:
            attrs += [_attr("trace_audit.status", turn.status), _attr("trace_audit.replanned", bool(turn.replanned)),
                      *turn_attrs]
        if turn.goal:
            attrs.append(_attr("gen_ai.input.messages", _messages("user", turn.goal)))
        if turn.reply:
            attrs.append(_attr("gen_ai.output.messages", _messages("assistant", turn.reply)))
        # The agent span lasts until the reply went out (the dump's finish_time is the last step's end).
        start = turn.task_start if has_task and turn.task_start else turn.start
        end = turn.reply_t if turn.reply and turn.reply_t is not None else turn.finish
        spans.append({"traceId": trace_id, "spanId": agent_id, "name": f"invoke_agent {AGENTS[turn.source]}",
                      "kind": 1, "startTimeUnixNano": _ns(start), "endTimeUnixNano": _ns(end), "attributes": attrs})
    if not spans:
        return None
    resource = {"attributes": [_attr("service.name", AGENTS[turn.source]),
                               _attr("service.version", turn.agent_version)]}
    return {"resourceSpans": [{"resource": resource, "scopeSpans": [
        {"scope": {"name": "trace_audit.sample_data", "version": "1"}, "spans": spans}]}]}


def write(out: str, seed: int = 4) -> dict:
    d = os.path.join(out, "otlp")
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, ".trace-audit-ignore"), "w").close()
    path = os.path.join(d, "month.otlp.jsonl.gz")
    turns = spans = 0
    # mtime=0: the same turns give the same bytes (the file is committed).
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as fh:
        for turn in iter_turns(seed, 1):
            req = turn_request(turn)
            if req is None:
                continue
            turns += 1
            spans += len(req["resourceSpans"][0]["scopeSpans"][0]["spans"])
            fh.write(json.dumps(req, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
    return {"path": path, "turns": turns, "spans": spans}


def main(argv=None) -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=here)
    p.add_argument("--seed", type=int, default=4)
    a = p.parse_args(argv)
    print(json.dumps(write(a.out, a.seed)), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
