"""The analysts' API: a read-only warehouse as polars DataFrames, through Arrow without copies."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import duckdb
import polars as pl
import pytest

from trace_audit import open_warehouse
from trace_audit.cli.main import main
from trace_audit.queries.warehouse.db import DatabaseMissing

RECORDS = [
    {"record": "task", "task_id": "t1", "user_id": "u1", "conversation_id": "c1", "status": "failed",
     "started_at": "2026-11-20T08:00:00Z", "finished_at": "2026-11-20T08:00:05Z"},
    {"record": "step", "task_id": "t1", "seq": 1, "tool": "create_reminder", "status": "failed", "verified": False,
     "attempts": 2, "error": "DB timeout", "started_at": "2026-11-20T08:00:01Z"},
    {"record": "task", "task_id": "t2", "user_id": "u2", "conversation_id": "c2", "status": "success",
     "started_at": "2026-11-21T08:00:00Z", "finished_at": "2026-11-21T08:00:05Z"},
    {"record": "step", "task_id": "t2", "seq": 1, "tool": "create_reminder", "status": "success", "verified": True,
     "attempts": 1, "started_at": "2026-11-21T08:00:01Z", "args": {"content": "gym"}},
    {"record": "message", "message_id": "m1", "conversation_id": "c1", "user_id": "u1", "role": "assistant",
     "content": "Done, your reminder is set", "created_at": "2026-11-20T08:00:07Z", "task_id": "t1"},
]


@pytest.fixture
def warehouse(tmp_path, capsys) -> str:
    src = tmp_path / "t.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    path = str(tmp_path / "w.duckdb")
    assert main(["ingest", str(src), "--db", path, "--no-progress"]) == 0
    assert main(["rules", "run", "--db", path, "--now", "2026-12-01T00:00:00Z"]) == 0
    capsys.readouterr()
    return path


def test_turns_steps_findings_and_runs(warehouse):
    with open_warehouse(warehouse) as wh:
        turns = wh.turns(since="2026-11-21")
        assert turns["task_id"].to_list() == ["t2"]
        assert turns.schema["started_at"] == pl.Datetime("us", "UTC") or turns["started_at"].dtype.time_zone
        assert turns["started_at"][0] == datetime(2026, 11, 21, 8, tzinfo=timezone.utc)
        steps = wh.steps(tool="create_reminder")
        assert steps.select("task_id", "verified", "attempts", "error").rows() == [
            ("t1", False, 2, "DB timeout"), ("t2", True, 1, None)]
        assert json.loads(steps.filter(pl.col("task_id") == "t2")["args"][0]) == {"content": "gym"}
        found = wh.findings(rule="said_but_not_done")
        assert found["task_id"].to_list() == ["t1"] and found["severity"].to_list() == ["block"]
        runs = wh.rule_runs()
        assert runs.height == 1 and runs["engine"][0] == "duckdb" and runs["finding_count"][0] == wh.findings().height
        assert wh.sql("SELECT count(*) AS n FROM steps WHERE tool = $t", {"t": "create_reminder"})["n"][0] == 2


def test_frames_share_duckdbs_arrow_buffers(warehouse):
    with open_warehouse(warehouse) as wh:
        table = wh.steps_arrow()
        frame = wh.frame(table)
        for col in ("attempts", "started_at"):
            assert table.column(col).chunks[0].buffers()[1].address == frame[col].to_arrow().buffers()[1].address
        assert str(table.schema.field("tool").type) in ("string_view", "string")


def test_read_only_and_never_creates(warehouse, tmp_path):
    with pytest.raises(DatabaseMissing):
        open_warehouse(str(tmp_path / "typo.duckdb"))
    assert not (tmp_path / "typo.duckdb").exists()
    with open_warehouse(warehouse) as wh:
        with pytest.raises(duckdb.Error):
            wh.sql("DELETE FROM steps")
