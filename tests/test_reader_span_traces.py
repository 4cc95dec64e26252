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
