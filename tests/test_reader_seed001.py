"""Seed-001 AgentTrace reader: golden files through the real loader into a real DuckDB file."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import duckdb
import pytest

from golden_support import GOLDEN, check_golden, golden_cases
from trace_audit.ingest.load.loader import ingest



@pytest.mark.parametrize("source", golden_cases("seed001"), ids=lambda p: p.name)
def test_golden(source, db_path):
    check_golden(source, db_path)


def test_bad_records_are_quarantined_with_the_field_named_and_neighbours_load(db_path):
    source = GOLDEN / "seed001" / "traces.jsonl"
    summary = ingest([str(source)], db_path)
    assert summary.files[0].errors == 4
    con = duckdb.connect(db_path, read_only=True)
    reasons = dict(con.execute("SELECT line, reason FROM ingest_errors").fetchall())
    loaded = {r[0] for r in con.execute("SELECT source_line FROM tasks").fetchall()}
    raw = con.execute("SELECT raw FROM ingest_errors WHERE line = 2").fetchall()[0][0]
    con.close()
    assert "tool_calls" in reasons[2] and "tool_name" in reasons[4]
    assert loaded == {1, 3, 5, 6}  # the records around each bad one still load
    assert json.loads(raw)["task_id"] == "task-002"  # the bad record is kept whole for the user


def test_naive_iso_times_are_read_in_the_given_zone(db_path):
    ingest([str(GOLDEN / "seed001" / "traces.jsonl")], db_path, tz="Asia/Shanghai")
    con = duckdb.connect(db_path, read_only=True)
    started, ended = con.execute("SELECT started_at, ended_at FROM steps WHERE task_id = 'task-005'").fetchall()[0]
    con.close()
    assert started == datetime(2026, 11, 8, 8, 0, 0, tzinfo=timezone.utc)  # had an explicit Z
    assert ended.astimezone(timezone.utc) == datetime(2026, 11, 8, 0, 0, 3, tzinfo=timezone.utc)  # naive, +08:00


def test_verified_is_never_assumed(tmp_path, db_path):
    # A trace whose results carry no read-back: verified stays NULL, never true.
    source = tmp_path / "t.jsonl"
    source.write_text(json.dumps({
        "task_id": "t1", "user_query": "set a reminder",
        "tool_calls": [{"tool_name": "create_reminder", "arguments": {}, "result": {"id": 5}},
                       {"tool_name": "notify", "arguments": {}, "result": "sent"}],
        "final_answer": "done",
    }) + "\n", encoding="utf-8")
    ingest([str(source)], db_path)
    con = duckdb.connect(db_path, read_only=True)
    rows = con.execute("SELECT seq, status, verified FROM steps ORDER BY seq").fetchall()
    con.close()
    assert rows == [(1, "success", None), (2, "success", None)]
