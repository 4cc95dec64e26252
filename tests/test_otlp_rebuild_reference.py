"""The set-based SQL rebuild gives what the Python rules in `mapping` give, on random traces.

`mapping.trace_rows` is the readable statement of the span-to-warehouse rules;
`rebuild_sql` is how they run in bulk. Random traces mix the three dialects,
nested agents, missing parents (unfinished turns), payload failures, odd value
types and ties in start time, and are split over files in random order.
"""

from __future__ import annotations

import json
import random

import pytest

from trace_audit.ingest.load.loader import ingest
from otlp_mapping_reference import Span, rows
from trace_audit.queries.warehouse import db

S = 1_794_000_000_000_000_000
RESULTS = ['{"success": true, "verified": true, "attempts": 2}', '{"ok": false, "message": "conflict"}',
           '{"isError": true, "content": [{"type": "text", "text": "quota"}]}', '{"exit_code": 3}',
           '{"error": "denied"}', '{"error": null, "detail": "已存在相同记录"}', "Error: bad input", "fine",
           '{"status": "failed"}', '  {"verified": false}', "[1, 2]", '"quoted"', None]


def _value(v):
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    return {"stringValue": v}


def _span(rng: random.Random, trace: str, sid: str, parent: str | None, start: int) -> dict:
    dialect = rng.choice(["genai", "genai", "oi", "tl", "plain", "pydantic", "mcp", "langfuse"])
    what = rng.choice(["agent", "tool", "tool", "llm", "other"])
    a: dict = {}
    name = what
    if dialect == "genai":
        op = {"agent": "invoke_agent", "tool": "execute_tool", "llm": "chat", "other": None}[what]
        if op:
            a["gen_ai.operation.name"] = op
            name = f"{op} x"
        if what == "tool":
            a["gen_ai.tool.name"] = rng.choice(["create_reminder", "verify_result", ""])
            a["gen_ai.tool.call.arguments"] = rng.choice(['{"t": 8}', "not json", '[1]'])
        if what == "llm":
            a["gen_ai.request.model"] = rng.choice(["gpt-4o", ""])
            a["gen_ai.usage.input_tokens"] = rng.choice([10, "12", True])
            a["gen_ai.output.messages"] = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": "ok"}]}])
    elif dialect == "oi":
        a["openinference.span.kind"] = {"agent": "AGENT", "tool": "TOOL", "llm": "LLM", "other": "CHAIN"}[what]
        if what == "tool":
            a["tool.name"] = "book"
        if what in ("agent", "llm"):
            a["input.value"] = rng.choice(["book a table", '{"input": "hi"}'])
            a["output.value"] = rng.choice(["Booked.", '{"output": "done"}', ""])
    elif dialect == "pydantic":  # Pydantic AI before the GenAI operation names
        name = {"agent": "agent run", "tool": rng.choice(["running tool", "running output function"]),
                "llm": "chat gpt-4o", "other": "other"}[what]
        if what == "tool":
            a["gen_ai.tool.name"] = "save_note"
            a["tool_arguments"] = '{"text": "hi"}'
        if what == "llm":
            a["gen_ai.request.model"] = "gpt-4o"
        if what == "agent":
            a["final_result"] = rng.choice(["Saved.", ""])
            a["pydantic_ai.all_messages"] = json.dumps([
                {"role": "user", "parts": [{"type": "text", "content": "save it"}]},
                {"role": "assistant", "parts": [{"type": "text", "content": "Saved it."}]}])
    elif dialect == "mcp":
        if what == "tool":
            a["mcp.method.name"] = "tools/call"
            name = rng.choice(["tools/call get_weather", "tools/call"])
            if rng.random() < 0.5:
                a["gen_ai.tool.name"] = "get_weather"
        elif what == "other":
            a["mcp.method.name"] = "tools/list"
    elif dialect == "langfuse":
        a["langfuse.observation.type"] = {"agent": "agent", "tool": "tool", "llm": "generation", "other": "span"}[what]
        if what == "tool":
            a["langfuse.observation.input"] = '{"id": 3}'
            a["langfuse.observation.level"] = rng.choice(["ERROR", "DEFAULT", "error", 1])
            a["langfuse.observation.status_message"] = rng.choice(["write failed", "", 7])
        if what in ("agent", "llm"):
            a["langfuse.observation.output"] = rng.choice(["Done.", '{"output": "done"}'])
            a["langfuse.trace.input"] = "do it"
    elif dialect == "tl":
        a["traceloop.span.kind"] = {"agent": "agent", "tool": "tool", "llm": "task", "other": "workflow"}[what]
        if what == "tool":
            a["traceloop.entity.name"] = "cancel"
    if what == "tool":
        result = rng.choice(RESULTS)
        if result is not None:
            a[rng.choice(["gen_ai.tool.call.result", "output.value", "traceloop.entity.output"])] = result
        if rng.random() < 0.3:
            a["trace_audit.verified"] = rng.choice([True, False, "yes", 0, "maybe"])
        if rng.random() < 0.3:
            a["trace_audit.attempts"] = rng.choice([1, "2", "x", 3])
        if rng.random() < 0.1:
            a["error.type"] = rng.choice(["Timeout", ""])
        if rng.random() < 0.2:
            a["trace_audit.error"] = rng.choice(["read-back: not found", "", 5, False])
    if rng.random() < 0.3:
        a[rng.choice(["user.id", "enduser.id"])] = rng.choice(["u-1", "u-2", ""])
    if rng.random() < 0.3:
        a[rng.choice(["gen_ai.conversation.id", "session.id"])] = rng.choice(["c-1", "c-2"])
    if rng.random() < (0.5 if what == "agent" else 0.15):
        # Business task ids: shared by several turns on purpose (clashes), odd types, and ids
        # shaped like a trace-derived id (this trace's, another stored trace's, or no trace's).
        a["trace_audit.task_id"] = rng.choice(
            ["T-1", "T-1", "T-2", "T-3", 7, "7", "", True, 1.5, trace, f"{trace}:{sid}", f"{trace[:-1]}0", "f" * 32])
    if what == "agent" and rng.random() < 0.5:
        a["gen_ai.input.messages"] = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "do it"}]}])
        a["trace_audit.status"] = rng.choice(["partial", "bogus", ""])
    span = {"traceId": trace, "spanId": sid, "name": name, "kind": 1,
            "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + rng.randint(1, 50) * 1000),
            "attributes": [{"key": k, "value": _value(v)} for k, v in a.items()]}
    if parent:
        span["parentSpanId"] = parent
    if rng.random() < 0.15:
        span["status"] = {"code": 2, "message": rng.choice(["boom", ""])}
    if rng.random() < 0.1:
        span["events"] = [{"name": "exception", "timeUnixNano": str(start),
                           "attributes": [{"key": "exception.message", "value": {"stringValue": "kaput"}}]}]
    return span


def random_spans(seed: int, traces: int = 25) -> list[dict]:
    rng = random.Random(seed)
    spans = []
    for t in range(traces):
        trace = f"{seed:08x}{t:024x}"
        ids: list[str] = []
        for i in range(rng.randint(1, 9)):
            sid = f"{t + 1:08x}{i + 1:08x}"
            # Two missing parents: spans waiting for different task spans are different turns.
            missing = rng.choice(["feedfacefeedface", "deadbeefdeadbeef"])
            parent = rng.choice([None] + ids + ids + [missing]) if ids else rng.choice([None, None, missing])
            start = S + t * 10**9 + rng.randint(0, 5) * 1000  # ties in start time on purpose
            spans.append(_span(rng, trace, sid, parent, start))
            ids.append(sid)
    return spans


def _doc(spans: list[dict]) -> str:
    return json.dumps({"resourceSpans": [{"resource": {"attributes": [
        {"key": "service.name", "value": {"stringValue": "svc"}},
        {"key": "service.version", "value": {"stringValue": "1.0"}}]},
        "scopeSpans": [{"scope": {"name": "t"}, "spans": spans}]}]})


def _reference(con) -> tuple[list, list, list]:
    stored = con.execute("""SELECT trace_id, span_id, parent_span_id, name, epoch_us(started_at), epoch_us(ended_at),
        status_code, status_message, CAST(attributes AS VARCHAR), CAST(resource AS VARCHAR), CAST(events AS VARCHAR),
        source_file, source_line FROM otel_spans ORDER BY trace_id""").fetchall()
    by_trace: dict[str, list[Span]] = {}
    for r in stored:
        by_trace.setdefault(r[0], []).append(Span(*r[:8], json.loads(r[8]), json.loads(r[9]), r[10], r[11], r[12]))
    return rows(by_trace.values())


TASK = ("task_id", "status", "goal", "final_answer", "conversation_id", "user_id", "total_steps", "success_steps",
        "started_at", "finished_at", "agent_version", "model", "prompt_version", "replanned")
STEP = ("task_id", "seq", "step_id", "tool", "kind", "status", "verified", "attempts", "error", "detail", "model",
        "input_tokens", "output_tokens", "span_id", "parent_span_id", "started_at", "ended_at")


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_sql_rebuild_matches_the_python_rules(seed, tmp_path):
    spans = random_spans(seed)
    random.Random(seed).shuffle(spans)
    # Three files: a turn's claim is decided against turns stored by earlier loads too.
    cuts = [0, len(spans) // 3, 2 * len(spans) // 3, len(spans)]
    files = [tmp_path / f"{i}.json" for i in range(3)]
    for i, f in enumerate(files):
        f.write_text(_doc(spans[cuts[i]:cuts[i + 1]]))
    w = str(tmp_path / "w.duckdb")
    summary = ingest([str(f) for f in files], w, progress=False)
    assert not summary.failed
    con = db.connect(w, read_only=True)
    try:
        ref_tasks, ref_steps, ref_messages = _reference(con)
        got_tasks = con.execute(f"SELECT {', '.join(c if not c.endswith('_at') else f'epoch_us({c})' for c in TASK)} "
                                "FROM tasks ORDER BY task_id").fetchall()
        got_steps = con.execute(f"SELECT {', '.join(c if not c.endswith('_at') else f'epoch_us({c})' for c in STEP)} "
                                "FROM steps ORDER BY task_id, seq").fetchall()
        got_messages = con.execute("SELECT message_id, content, epoch_us(created_at) FROM messages "
                                   "ORDER BY message_id").fetchall()
        got_task_meta = con.execute("SELECT task_id, CAST(metadata AS VARCHAR) FROM tasks ORDER BY task_id").fetchall()
        got_step_json = con.execute("SELECT CAST(args AS VARCHAR), CAST(result AS VARCHAR), CAST(metadata AS VARCHAR) "
                                    "FROM steps ORDER BY task_id, seq").fetchall()
    finally:
        con.close()
    assert len(ref_tasks) > 10 and any(t["status"] == "running" for t in ref_tasks)
    assert got_tasks == sorted(tuple(t[c] for c in TASK) for t in ref_tasks)
    assert [(t, json.loads(m)) for t, m in got_task_meta] == sorted((t["task_id"], t["metadata"]) for t in ref_tasks)
    # The random traces do exercise the business ids: some taken, some refused.
    assert sum(1 for t in ref_tasks if t["task_id"] != t["metadata"]["trace_id"]
               and not t["task_id"].startswith(t["metadata"]["trace_id"] + ":")) >= 3
    assert any("task_id_clash" in t["metadata"] for t in ref_tasks)
    ref_steps.sort(key=lambda s: (s["task_id"], s["seq"]))
    assert got_steps == [tuple(s[c] for c in STEP) for s in ref_steps]
    assert got_messages == sorted((m["message_id"], m["content"], m["created_at"]) for m in ref_messages)

    def plain(v):
        return json.loads(v.text) if hasattr(v, "text") else v

    assert [(json.loads(a) if a else None, json.loads(r) if r else None, json.loads(m)) for a, r, m in got_step_json] \
        == [(plain(s["args"]), plain(s["result"]), s["metadata"]) for s in ref_steps]
