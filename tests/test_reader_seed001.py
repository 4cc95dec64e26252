"""Seed-001 AgentTrace reader: golden files through the real loader into a real DuckDB file."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import duckdb
import pytest

from trace_audit.ingest.loader import ingest

GOLDEN = Path(__file__).resolve().parent / "fixtures" / "golden"
ORDER = {
    "tasks": "task_id",
    "steps": "task_id, seq",
    "messages": "message_id",
    "ingest_errors": "line",
}
JSON_COLUMNS = {"plan", "metadata", "args", "result"}


def _plain(column: str, value):
    """A stored value in the spelling the expected files use."""
    if isinstance(value, datetime):
        return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
    if column in JSON_COLUMNS and value is not None:
        return json.loads(value)
    return value


def stored_rows(db_path: str, table: str, columns: list[str]) -> list[dict]:
    con = duckdb.connect(db_path, read_only=True)
    try:
        cur = con.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY {ORDER[table]}")
        return [{c: _plain(c, v) for c, v in zip(columns, row)} for row in cur.fetchall()]
    finally:
        con.close()


def _count(db_path: str, table: str) -> int:
    con = duckdb.connect(db_path, read_only=True)
    try:
        return con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]
    finally:
        con.close()


def golden_cases(fmt: str) -> list[Path]:
    return sorted(p for p in (GOLDEN / fmt).iterdir() if p.suffix in (".jsonl", ".json") and ".expected." not in p.name)


def check_golden(source: Path, db_path: str) -> None:
    expected = json.loads(source.with_name(source.name.split(".")[0] + ".expected.json").read_text(encoding="utf-8"))
    summary = ingest([str(source)], db_path, tz=expected.get("tz", "UTC"))
    assert [f.status for f in summary.files] == ["loaded"]
    for table in ("tasks", "steps", "messages", "ingest_errors"):
        want = expected.get(table, [])
        got = stored_rows(db_path, table, list(want[0])) if want else [{"n": _count(db_path, table)}]
        assert got == (want or [{"n": 0}]), f"{source.name}: {table} differ"


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
