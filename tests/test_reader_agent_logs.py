"""Readers for the logs agent stacks write: Inspect AI, SWE-agent, AG2 / Who&When, LangChain /
LangGraph. Golden files on fixtures built from each format's documentation (PROVENANCE.md beside
each), a said-but-not-done finding on each fixture's false "done", and the real public samples,
through the real loader into a real DuckDB file."""

from __future__ import annotations

import io
import json
import re
import zipfile
from datetime import datetime, timezone
from pathlib import Path

import pytest

from golden_support import GOLDEN, check_golden, query
from trace_audit.ingest.load.loader import ingest
from golden_support import said_but_not_done as findings_by_task

REAL = Path(__file__).resolve().parent / "fixtures" / "real"
NOW = datetime(2026, 11, 30, tzinfo=timezone.utc)
# fixture -> (task id, failed tool, said_but_not_done kind)
FIXTURES = {
    GOLDEN / "swe_agent" / "false_done.traj": ("swe-agent:demo__notes-1", "edit", "failed"),
    GOLDEN / "inspect" / "false_done.json": ("inspect:E1demo:1:1", "bash", "not_executed"),
    GOLDEN / "ag2" / "false_done.json": ("ag2:demo-0001", "Computer_terminal", "failed"),
    GOLDEN / "langchain" / "langgraph_state.json": (None, "add_item", "failed"),
    GOLDEN / "langchain" / "messages_to_dict.json": (None, "book_table", "failed"),
    GOLDEN / "langsmith" / "runs.jsonl": ("langsmith:1f0c8a2e-0001-4c1e-9a77-0c5e6f000001", "create_reminder", "failed"),
    GOLDEN / "openai_agents" / "batches.jsonl": ("openai-agents:trace_6a1f0e2c9b8d4f7aa1b2c3d4e5f60001",
                                                 "create_reminder", "failed"),
    GOLDEN / "langfuse" / "trace_download.json": ("langfuse:7c1e2d3f4a5b6c7d8e9f0a1b2c3d4e01", "create_reminder", "failed"),
    GOLDEN / "langfuse" / "client_download.json": ("langfuse:7c1e2d3f4a5b6c7d8e9f0a1b2c3d4e02", "send_message", "partial"),
    GOLDEN / "phoenix" / "spans.parquet": ("0af7651916cd43dd8448eb211c80319c", "cancel_event", "partial"),
    # OTLP spans of stacks whose attributes the OTLP mapping reads (docs/opentelemetry.md)
    GOLDEN / "otlp_agents" / "pydantic_ai.json": ("4bf92f3577b34da6a3ce929d0e0e4736", "save_note", "failed"),
    GOLDEN / "otlp_agents" / "mcp.json": ("5bf92f3577b34da6a3ce929d0e0e4738", "create_event", "failed"),
    GOLDEN / "otlp_agents" / "langfuse_otel.json": ("6bf92f3577b34da6a3ce929d0e0e4740", "create_reminder", "failed"),
}


def said_but_not_done(path: str) -> dict[str, list[dict]]:
    return findings_by_task(path, NOW)


@pytest.mark.parametrize("source", list(FIXTURES), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_golden(source, db_path):
    check_golden(source, db_path)


@pytest.mark.parametrize("source", list(FIXTURES), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_failed_tool_is_recognised_and_the_false_done_is_found(source, db_path):
    task_id, tool, kind = FIXTURES[source]
    ingest([str(source)], db_path, progress=False)
    failed = query(db_path, "SELECT task_id, tool FROM steps WHERE status = 'failed'")
    assert tool in [t for _, t in failed]
    task_id = task_id or failed[0][0]
    found = said_but_not_done(db_path)
    assert list(found) == [task_id]
    assert [e.get("kind") for e in found[task_id]] == [kind]


def test_an_inspect_eval_zip_reads_like_its_json_log(tmp_path, db_path):
    log = json.loads((GOLDEN / "inspect" / "false_done.json").read_text())
    packed = tmp_path / "run.eval"
    with zipfile.ZipFile(packed, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("header.json", json.dumps({k: v for k, v in log.items() if k != "samples"}))
        for s in log["samples"]:
            z.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s))
    summary = ingest([str(tmp_path)], db_path, progress=False)
    assert [f.status for f in summary.files] == ["loaded"]
    assert query(db_path, "SELECT task_id, status, total_steps FROM tasks") == [("inspect:E1demo:1:1", "failed", 1)]
    assert query(db_path, "SELECT tool, status, error FROM steps") == [
        ("bash", "failed", "bash: /tmp/out.txt: Permission denied")]


def test_a_zip_that_is_not_an_inspect_log_is_quarantined_saying_so(tmp_path, db_path):
    other = tmp_path / "bundle.json"  # named like JSON on purpose: content decides
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("readme.txt", "hello")
    ingest([str(other)], db_path, progress=False)
    [(reason,)] = query(db_path, "SELECT reason FROM ingest_errors")
    assert "not an Inspect AI .eval log" in reason and "readme.txt" in reason


# -- the real public samples ----------------------------------------------------------------------

def test_real_inspect_logs_load_every_sample_and_tool_call(db_path):
    paths = sorted((REAL / "inspect_ai").glob("*.json"))
    summary = ingest([str(p) for p in paths], db_path, progress=False)
    assert [(f.status, f.errors) for f in summary.files] == [("loaded", 0)] * len(paths)
    samples = calls = 0
    for p in paths:
        for s in json.loads(p.read_text())["samples"]:
            samples += 1
            calls += sum(len(m.get("tool_calls") or []) for m in s["messages"])
    assert query(db_path, "SELECT count(*) FROM tasks") == [(samples,)]
    assert query(db_path, "SELECT count(*), count(started_at) FROM steps") == [(calls, calls)]
    # the popularity log was cancelled: its status is kept on every task
    assert query(db_path, "SELECT count(*) FROM tasks WHERE metadata ->> '$.eval_status' = 'cancelled'") == [(3,)]


def test_real_swe_agent_trajectories_load_with_refused_edits_failed(db_path):
    paths = sorted((REAL / "swe_agent").glob("*.traj"))
    ingest([str(p) for p in paths], db_path, progress=False)
    refused = total = 0
    for p in paths:
        for step in json.loads(p.read_text())["trajectory"]:
            total += 1
            refused += step["observation"].startswith("Your proposed edit has introduced new syntax error")
    assert query(db_path, "SELECT count(*) FROM steps") == [(total,)]
    assert query(db_path, "SELECT count(*) FROM steps WHERE tool = 'edit' AND status = 'failed'") == [(refused,)]
    assert refused == 4


def test_real_who_and_when_logs_load_with_failed_code_runs(db_path):
    paths = sorted((REAL / "who_and_when").rglob("*.json"))
    summary = ingest([str(p) for p in paths], db_path, progress=False)
    assert [(f.status, f.errors) for f in summary.files] == [("loaded", 0)] * len(paths) == [("loaded", 0)] * 23
    runs = failed = 0
    for p in paths:
        for h in json.loads(p.read_text())["history"]:
            if h.get("name") == "Computer_terminal" or h.get("role") == "ComputerTerminal":
                runs += 1
                code = re.search(r"exit\s?code(?: was)?\s*[:=]?\s*(-?\d+)", h["content"][:400], re.I)
                failed += bool(code and int(code.group(1)) != 0)
    got = query(db_path, "SELECT count(*), count(*) FILTER (WHERE status = 'failed') FROM steps "
                         "WHERE tool IN ('Computer_terminal', 'ComputerTerminal')")
    assert got == [(runs, failed)] and failed >= 14
    # the labels travel with the task, and message_index is the position in `history`, the
    # index Who&When's mistake_step counts in
    doc = json.loads((REAL / "who_and_when" / "Algorithm-Generated" / "1.json").read_text())
    task_id = f"ag2:{doc['question_ID']}"
    assert query(db_path, "SELECT metadata ->> '$.mistake_agent', metadata ->> '$.mistake_step' FROM tasks "
                          "WHERE task_id = ?", [task_id]) == [(doc["mistake_agent"], doc["mistake_step"])]
    stored = query(db_path, "SELECT content FROM messages WHERE task_id = ? "
                            "ORDER BY CAST(metadata ->> '$.message_index' AS INTEGER)", [task_id])
    assert [c for (c,) in stored] == [h["content"] for h in doc["history"]]


def test_real_magentic_one_logs_judge_only_what_reaches_the_user(db_path):
    """Magentic-One (Who&When Hand-Crafted): the orchestrator's thoughts (its plan and ledger) and its
    instructions to agents are orchestration the user never reads, and a WebSurfer's "I clicked ..."
    is the output of the step it records. None of them is a reply: before, their ledgers ("The
    request has not yet been satisfied ...") and browser reports made 54 said-but-not-done findings
    on 13 question-answering runs that wrote nothing."""
    paths = sorted((REAL / "who_and_when" / "Hand-Crafted").glob("*.json"))
    ingest([str(p) for p in paths], db_path, progress=False)
    roles = dict(query(db_path, "SELECT metadata ->> '$.source_role' AS said_as, "
                                "string_agg(DISTINCT role, ',' ORDER BY role) FROM messages GROUP BY said_as"))
    assert roles["Orchestrator (thought)"] == "system"
    assert roles["Orchestrator (-> WebSurfer)"] == "system"
    assert roles["WebSurfer"] == "tool" and roles["FileSurfer"] == "tool"
    assert roles["Orchestrator (termination condition)"] == "assistant" and roles["human"] == "user"
    # every tool agent's reply is its step's output: as many tool messages as WebSurfer/FileSurfer steps
    assert query(db_path, "SELECT count(*) FROM messages WHERE role = 'tool'") == \
        query(db_path, "SELECT count(*) FROM steps WHERE tool IN ('WebSurfer', 'FileSurfer', 'Coder', "
                       "'ComputerTerminal')")
    judged = [e["reply"] for found in said_but_not_done(db_path).values() for e in found]
    assert not [r for r in judged if r.startswith(("Initial plan", "Updated Ledger", "I clicked", "I typed"))]
    assert len(judged) <= 2  # what is left: two "SCENARIO.PY COMPLETE" banners after a final answer
