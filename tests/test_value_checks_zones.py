"""Where the user is, for issue 15's value checks, when nobody named the zone: the order is the
file's --tz, then the one offset the turn's steps write local times in, then the one offset the
turn's request, reply and start were written with (messages.utc_offset_min). A UTC time stored by
the write is read in that zone, and "tomorrow" is counted from the reply's time there. Turns whose
times are all UTC, or written in two offsets, say nothing of the user: their UTC values are not
judged."""

from __future__ import annotations

import json

import duckdb
from datetime import datetime, timezone

from trace_audit.ingest.load.loader import ingest
from trace_audit.queries.engine import run_rules
from trace_audit.queries.warehouse import db

# The user asks at 19:40 on 4 Dec in Seattle (-08:00): 03:40 on 5 Dec in UTC. 7 AM tomorrow there
# is 15:00Z on 5 Dec; 07:00Z is 11 PM the evening before.
SEATTLE = ("2026-12-04T19:40:00-08:00", "2026-12-04T19:40:06-08:00")
RIGHT, EIGHT_HOURS_OFF = "2026-12-05T15:00:00Z", "2026-12-05T07:00:00Z"


def turn(stored: str, asked_at: str, replied_at: str, calendar_start: str | None = None) -> list[dict]:
    steps = [{"record": "step", "task_id": "t1", "seq": 2, "tool": "reminders.create",
              "args": {"title": "water the seedlings", "due": stored}, "result": {"id": "rem_1", "due": stored},
              "status": "success", "verified": True, "attempts": 1}]
    if calendar_start:  # a read of the user's calendar, in the calendar's own offset
        steps.append({"record": "step", "task_id": "t1", "seq": 1, "tool": "calendar.events.get",
                      "args": {"q": "garden"}, "result": {"id": "ev_1", "start": calendar_start},
                      "status": "success", "attempts": 1})
    return [{"record": "task", "task_id": "t1", "conversation_id": "c1", "status": "success",
             "goal": "Remind me to water the seedlings tomorrow at 7 AM."},
            {"record": "message", "message_id": "q", "conversation_id": "c1", "role": "user", "task_id": "t1",
             "content": "Remind me to water the seedlings tomorrow at 7 AM.", "created_at": asked_at},
            *steps,
            {"record": "message", "message_id": "a", "conversation_id": "c1", "role": "assistant", "task_id": "t1",
             "content": "Done! I set a reminder to water the seedlings tomorrow at 7 AM.", "created_at": replied_at}]


def fired(tmp_path, records: list[dict], tz: str | None = None, before_the_column: bool = False) -> set[str]:
    """The value rules that found something in the turn (in a warehouse made before
    utc_offset_min, as another engine's copy or a read-only old file would be, if asked)."""
    data = tmp_path / "turn.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records))
    path = str(tmp_path / "w.duckdb")
    ingest([str(data)], path, progress=False, **({"tz": tz} if tz else {}))
    if before_the_column:
        con = duckdb.connect(path)
        con.execute("SET TimeZone = 'UTC'")
        for table in ("tasks", "messages"):
            con.execute(f"ALTER TABLE {table} DROP COLUMN utc_offset_min")
    else:
        con = db.connect(path)
    try:
        result = run_rules(con, now=datetime(2026, 12, 31, tzinfo=timezone.utc),
                           rule_ids=["claimed_value_mismatch", "asked_value_mismatch"])
        assert not result.failed
        return {r for (r,) in con.execute("SELECT rule_id FROM findings WHERE run_id = ?", [result.run_id]).fetchall()}
    finally:
        con.close()


def test_a_utc_reminder_eight_hours_off_is_found_in_the_messages_zone(tmp_path):
    assert fired(tmp_path, turn(EIGHT_HOURS_OFF, *SEATTLE)) == {"claimed_value_mismatch", "asked_value_mismatch"}


def test_the_right_utc_instant_agrees_in_the_messages_zone(tmp_path):
    assert fired(tmp_path, turn(RIGHT, *SEATTLE)) == set()


def test_a_turn_whose_times_are_all_utc_is_not_judged(tmp_path):
    # the same instants written in UTC: a system's log time, not the user's zone
    assert fired(tmp_path, turn(EIGHT_HOURS_OFF, "2026-12-05T03:40:00Z", "2026-12-05T03:40:06+00:00")) == set()


def test_request_and_reply_in_two_offsets_are_not_judged(tmp_path):
    assert fired(tmp_path, turn(EIGHT_HOURS_OFF, "2026-12-04T19:40:00-08:00", "2026-12-05T11:40:06+08:00")) == set()


def test_the_zone_named_at_ingest_comes_before_the_messages(tmp_path):
    # named Asia/Shanghai: 15:00Z is 11 PM there, not 7 AM, whatever the messages were written in
    assert "claimed_value_mismatch" in fired(tmp_path, turn(RIGHT, *SEATTLE), tz="Asia/Shanghai")


def test_the_steps_offset_comes_before_the_messages(tmp_path):
    # the calendar speaks +09:00: the reply's 12:40 on 5 Dec there makes tomorrow 7 AM 22:00Z on 5 Dec
    tokyo = "2026-12-06T10:00:00+09:00"
    assert "claimed_value_mismatch" not in fired(tmp_path, turn("2026-12-05T22:00:00Z", *SEATTLE, tokyo))
    assert "claimed_value_mismatch" in fired(tmp_path, turn(RIGHT, *SEATTLE, tokyo))


def test_a_warehouse_without_the_column_runs_and_judges_as_before(tmp_path):
    assert fired(tmp_path, turn(EIGHT_HOURS_OFF, *SEATTLE), before_the_column=True) == set()
