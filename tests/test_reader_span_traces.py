"""Readers for traces that arrive as spans (LangSmith runs, OpenAI Agents SDK spans, Langfuse
observations): shapes beside the golden fixtures, through the real loader into a real DuckDB."""

from __future__ import annotations

import json

from golden_support import GOLDEN, query
from trace_audit.ingest.load.loader import ingest


def test_langsmith_child_runs_read_like_the_flat_runs(tmp_path, db_path):
    runs = [json.loads(line) for line in (GOLDEN / "langsmith" / "runs.jsonl").read_text().splitlines()]
    first = [r for r in runs if r["trace_id"] == runs[0]["trace_id"]]
    root, children = first[0], first[1:]
    nested = dict(root, child_runs=[{k: v for k, v in c.items() if k not in ("trace_id", "parent_run_id")}
                                    for c in children])
    path = tmp_path / "run.json"
    path.write_text(json.dumps(nested))
    ingest([str(path)], db_path, progress=False)
    assert query(db_path, "SELECT task_id, tool, status, args ->> '$.content' FROM steps") == [
        (f"langsmith:{root['id']}", "create_reminder", "failed", "buy milk")]
    assert query(db_path, "SELECT role FROM messages ORDER BY message_id") == [("user",), ("tool",), ("assistant",)]


def test_langsmith_parquet_style_json_text_fields_are_parsed(tmp_path, db_path):
    run = {"id": "r1", "trace_id": "r1", "name": "save_note", "run_type": "tool", "dotted_order": "20261108T000000Zr1",
           "start_time": "2026-11-08T00:00:00Z", "inputs": json.dumps({"text": "hi"}),
           "outputs": json.dumps({"output": {"ok": False, "message": "disk full"}}), "error": None, "status": "success"}
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(run) + "\n")
    ingest([str(path)], db_path, progress=False)
    assert query(db_path, "SELECT tool, status, error, args ->> '$.text' FROM steps") == [
        ("save_note", "failed", "disk full", "hi")]


def test_langsmith_bulk_export_parquet_reads_like_the_json_runs(tmp_path, db_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    from datetime import datetime, timezone

    runs = [json.loads(line) for line in (GOLDEN / "langsmith" / "runs.jsonl").read_text().splitlines()]
    rows = []
    for r in runs:  # the bulk export: JSON text for the objects, timestamps for the times
        row = {k: (json.dumps(v) if k in ("inputs", "outputs", "extra") and v is not None else v) for k, v in r.items()}
        for k in ("start_time", "end_time"):
            row[k] = datetime.fromisoformat(r[k].replace("Z", "+00:00")).replace(tzinfo=timezone.utc)
        row["tags"] = r["tags"] or None
        rows.append(row)
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "runs.parquet")
    ingest([str(tmp_path / "runs.parquet")], db_path, progress=False)
    parquet_steps = query(db_path, "SELECT task_id, seq, tool, status, error, args, started_at FROM steps ORDER BY 1, 2")
    parquet_msgs = query(db_path, "SELECT message_id, role, content FROM messages ORDER BY 1")
    other = str(tmp_path / "json.duckdb")
    ingest([str(GOLDEN / "langsmith" / "runs.jsonl")], other, progress=False)
    assert parquet_steps == query(other, "SELECT task_id, seq, tool, status, error, args, started_at FROM steps ORDER BY 1, 2")
    assert parquet_msgs == query(other, "SELECT message_id, role, content FROM messages ORDER BY 1")
    assert len(parquet_steps) == 2 and len(parquet_msgs) == 6


def test_phoenix_columns_one_level_deep_read_like_the_flat_ones():
    from trace_audit.ingest.read.formats.parquet_spans import phoenix_span

    flat = {"name": "t", "span_kind": "TOOL", "context.span_id": "a1", "context.trace_id": "b2", "status_code": "ERROR",
            "attributes.tool.name": "save", "attributes.llm.input_messages": [{"message.role": "user", "message.content": "hi"}]}
    nested = {"name": "t", "span_kind": "TOOL", "context.span_id": "a1", "context.trace_id": "b2", "status_code": "ERROR",
              "attributes.tool": {"name": "save"}, "attributes.llm": {"input_messages": [{"message": {"role": "user", "content": "hi"}}]}}
    assert phoenix_span(flat) == phoenix_span(nested)
    keys = [a["key"] for a in phoenix_span(flat)["attributes"]]
    assert keys == ["tool.name", "llm.input_messages.0.message.role", "llm.input_messages.0.message.content",
                    "openinference.span.kind"]
    assert phoenix_span(flat)["status"] == {"code": 2}


def test_a_span_record_that_cannot_be_read_is_quarantined_and_the_others_load(tmp_path, db_path):
    lines = (GOLDEN / "openai_agents" / "batches.jsonl").read_text().splitlines()
    bad_item = {"object": "trace.span", "id": "span_x", "trace_id": "trace_x", "span_data": "not an object"}
    bad_time = {"object": "trace.span", "id": "span_y", "trace_id": "trace_y", "started_at": "yesterday",
                "span_data": {"type": "function", "name": "save"}}
    path = tmp_path / "spans.jsonl"
    path.write_text("\n".join([lines[0], json.dumps(bad_item), json.dumps(bad_time), lines[1]]) + "\n")
    ingest([str(path)], db_path, progress=False)
    assert query(db_path, "SELECT count(*) FROM tasks") == [(2,)]
    assert query(db_path, "SELECT line, reason FROM ingest_errors ORDER BY line") == [
        (2, "field item.span_data: expected an object, got str"),
        (3, "field item.started_at: expected epoch seconds or an ISO 8601 time, got 'yesterday'")]


def test_langgraph_message_tuples_give_the_goal():
    from trace_audit.ingest.read.formats.span_tree import said

    assert said({"messages": [["user", "Book a table"], ["ai", "Booked."]]}, "user") == "Book a table"
    assert said({"messages": [("human", "Book a table"), ("ai", "Booked.")]}, "assistant") == "Booked."
    # an llm run's inputs: a batch of message lists
    assert said({"messages": [[{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}]]}, "user") == "hi"


def test_langsmith_runs_without_trace_id_take_their_roots(tmp_path, db_path):
    runs = [json.loads(line) for line in (GOLDEN / "langsmith" / "runs.jsonl").read_text().splitlines()]
    older = [{k: v for k, v in r.items() if k not in ("trace_id", "dotted_order")} for r in runs]
    older.append({"id": "orphan", "name": "save", "run_type": "tool", "parent_run_id": "nowhere",
                  "start_time": "2026-11-08T00:00:00Z", "inputs": {}})
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(older))
    ingest([str(path)], db_path, progress=False)
    assert query(db_path, "SELECT task_id, tool, status FROM steps ORDER BY 1") == [
        (f"langsmith:{runs[0]['trace_id']}", "create_reminder", "failed"),
        (f"langsmith:{runs[4]['trace_id']}", "book_table", "failed")]
    [(reason,)] = query(db_path, "SELECT reason FROM ingest_errors")
    assert "trace_id: missing" in reason and "nowhere" in reason


def test_a_phoenix_span_as_json_is_quarantined_saying_what_to_do(tmp_path, db_path):
    span = {"name": "agent", "context": {"trace_id": "t1", "span_id": "s1"}, "span_kind": "AGENT", "parent_id": None,
            "start_time": "2026-11-08T09:00:00+00:00", "end_time": None, "status_code": "OK", "status_message": "",
            "attributes": {"input": {"value": "hi"}}, "events": [], "conversation": None}
    path = tmp_path / "spans.jsonl"
    path.write_text(json.dumps(span) + "\n" + json.dumps({"context.span_id": "s2", "name": "x"}) + "\n")
    ingest([str(path)], db_path, progress=False)
    reasons = [r for (r,) in query(db_path, "SELECT reason FROM ingest_errors ORDER BY line")]
    assert len(reasons) == 2 and all("looks like a Phoenix span as JSON" in r and "Parquet" in r for r in reasons)
