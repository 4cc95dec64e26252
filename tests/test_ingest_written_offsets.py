"""The UTC offset a message's time (and a turn's start) was written with is kept beside the UTC
instant (utc_offset_min), for every format whose records carry ISO times: the value checks read it
as where the user is. Naive and epoch times were written with no offset: NULL. A warehouse made
before the column opens, gains it, and its rules still run."""

from __future__ import annotations

import json

import duckdb

from test_ingest_support import message, query, task, write_jsonl
from trace_audit.ingest.load.loader import ingest
from trace_audit.queries.warehouse import db


def offsets(db_path: str, table: str, key: str) -> dict:
    return dict(query(db_path, f"SELECT {key}, utc_offset_min FROM {table}"))


def test_canonical_records_keep_the_offset_each_time_was_written_with(tmp_path, db_path):
    path = write_jsonl(tmp_path / "c.jsonl", [
        {"record": "task", "task_id": "t1", "started_at": "2026-12-01T08:42:00-05:00"},
        {"record": "task", "task_id": "t2", "started_at": 1794124800},
        {"record": "message", "message_id": "east", "created_at": "2026-12-01T08:42:00+08:00"},
        {"record": "message", "message_id": "india", "created_at": "2026-12-01T08:42:00.250+0530"},
        {"record": "message", "message_id": "zulu", "created_at": "2026-12-01T00:42:00Z"},
        {"record": "message", "message_id": "naive", "created_at": "2026-12-01 08:42:00"},
        {"record": "message", "message_id": "none"},
    ])
    ingest([str(path)], db_path, tz="Asia/Shanghai", progress=False)
    assert offsets(db_path, "tasks", "task_id") == {"t1": -300, "t2": None}
    assert offsets(db_path, "messages", "message_id") == {"east": 480, "india": 330, "zulu": 0, "naive": None,
                                                          "none": None}
    # the instant itself is still UTC, and the same whatever offset wrote it
    assert query(db_path, "SELECT count(DISTINCT created_at) FROM messages WHERE message_id IN ('east', 'zulu')") == [(1,)]


def test_an_offset_no_zone_uses_is_no_zone(tmp_path, db_path):
    # the timestamp cast accepts +25:00; kept as a user's zone it would shift every day told
    path = write_jsonl(tmp_path / "o.jsonl", [
        {"record": "message", "message_id": "beyond", "created_at": "2026-12-01T08:42:00+25:00"},
        {"record": "message", "message_id": "kiribati", "created_at": "2026-12-01T08:42:00+14:00"},
        {"record": "message", "message_id": "baker", "created_at": "2026-12-01T08:42:00-12:00"},
    ])
    ingest([str(path)], db_path, progress=False)
    assert offsets(db_path, "messages", "message_id") == {"beyond": None, "kiribati": 840, "baker": -720}


def test_table_dumps_keep_the_offset_of_create_time(tmp_path, db_path):
    path = write_jsonl(tmp_path / "d.jsonl", [task(1, create_time="2026-11-08T08:00:00-08:00"), task(2),
                                              message(1, create_time="2026-11-08T08:00:03-08:00"), message(2)])
    ingest([str(path)], db_path, progress=False)
    assert offsets(db_path, "tasks", "task_id") == {"1": -480, "2": None}
    assert offsets(db_path, "messages", "message_id") == {"1": -480, "2": None}


def test_chat_messages_keep_their_offsets_and_the_turn_its_first(tmp_path, db_path):
    run = {"id": "r1", "messages": [
        {"role": "user", "content": "remind me at 7 tomorrow", "created_at": "2026-12-04T19:40:00-08:00"},
        {"role": "assistant", "content": "Done.", "timestamp": "2026-12-05T03:40:06Z"},
        {"role": "user", "content": "thanks", "created_at": 1796449300}]}
    path = tmp_path / "chat.jsonl"
    path.write_text(json.dumps(run) + "\n")
    ingest([str(path)], db_path, progress=False)
    got = query(db_path, "SELECT role, utc_offset_min FROM messages ORDER BY message_id")
    assert got == [("user", -480), ("assistant", 0), ("user", None)]
    assert offsets(db_path, "tasks", "task_id") == {"chat:r1": -480}  # it started with the user's message


def test_span_traces_keep_the_offset_of_the_run_that_gives_the_turn_its_times(tmp_path, db_path):
    run = {"id": "r1", "trace_id": "r1", "name": "agent", "run_type": "chain", "dotted_order": "20261108T000000Zr1",
           "start_time": "2026-11-08T09:00:00+09:00", "end_time": "2026-11-08T09:00:04+09:00",
           "inputs": {"input": "book it"}, "outputs": {"output": "Booked."}}
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(run) + "\n")
    ingest([str(path)], db_path, progress=False)
    assert {m for (m,) in query(db_path, "SELECT utc_offset_min FROM messages")} == {540}
    assert {m for (m,) in query(db_path, "SELECT utc_offset_min FROM tasks")} == {540}


def test_epoch_times_say_no_offset(tmp_path, db_path):
    record = {"task_id": "e1", "user_query": "hi", "tool_calls": [
        {"tool_name": "search", "arguments": {}, "result": "ok", "start_time": 1700000000.0, "end_time": 1700000001}],
        "final_answer": "done"}
    path = tmp_path / "seed001.jsonl"
    path.write_text(json.dumps(record) + "\n")
    ingest([str(path)], db_path, progress=False)
    assert {m for (m,) in query(db_path, "SELECT utc_offset_min FROM messages")} == {None}


def _old_warehouse(path: str) -> None:
    """A warehouse as schema.sql made it before utc_offset_min."""
    con = duckdb.connect(path)
    con.execute(db.schema_sql())
    for table in ("tasks", "messages"):
        con.execute(f"ALTER TABLE {table} DROP COLUMN utc_offset_min")
    con.execute("INSERT INTO messages (message_id, role, content) VALUES ('m0', 'user', 'hello')")
    con.close()


def test_an_old_warehouse_gains_the_column_and_keeps_its_rows(tmp_path):
    path = str(tmp_path / "old.duckdb")
    _old_warehouse(path)
    con = db.connect(path, create=False)
    try:
        assert con.execute("SELECT message_id, utc_offset_min FROM messages").fetchall() == [("m0", None)]
    finally:
        con.close()
    data = write_jsonl(tmp_path / "c.jsonl", [{"record": "message", "message_id": "m1",
                                                "created_at": "2026-12-01T08:42:00+08:00"}])
    ingest([str(data)], path, progress=False)
    assert offsets(path, "messages", "message_id") == {"m0": None, "m1": 480}
