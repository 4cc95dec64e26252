"""Review marks: an investigator's word on a finding (confirmed, false alarm, handled, a note).

The warehouse is read-only to the dashboard and is rebuilt by re-ingest; rule runs add
findings under new run ids. So marks live in a file of their own beside the warehouse
(`<db>.marks.jsonl`, one JSON object a line, appended, the last line for a key wins) and are
keyed by what stays the same across re-ingest and re-runs: the rule, the task (or, for a
reply with no task, its message id) and the step seq. Every reader (the incident list, the
Rules page's precision, `trace-audit findings`) sees them as the session table
`review_marks` (see `register`).
"""

from __future__ import annotations

import fcntl
import json
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

import duckdb
from pydantic import BaseModel, ConfigDict, Field, ValidationError

MARKS = ("confirmed", "false_alarm", "handled")
WORDS = {"confirmed": "confirmed", "false_alarm": "false alarm", "handled": "handled"}
COLUMNS = "rule_id VARCHAR, task_key VARCHAR, seq INTEGER, mark VARCHAR, note VARCHAR, marked_by VARCHAR, " \
          "marked_at TIMESTAMPTZ"


class Mark(BaseModel):
    model_config = ConfigDict(extra="ignore")

    rule_id: str = Field(min_length=1, max_length=200)
    task_key: str = Field(min_length=1, max_length=1000)
    seq: int | None = None
    mark: Literal["confirmed", "false_alarm", "handled"]
    note: str = Field(default="", max_length=4000)
    marked_by: str | None = Field(default=None, max_length=200)
    marked_at: datetime = Field(default_factory=lambda: datetime.now(timezone.utc))


def task_key(task_id: str | None, message_id: str | None) -> str | None:
    """The turn a mark is about: its task id, or 'reply:<message id>' for a reply with no task."""
    if task_id:
        return str(task_id)
    return f"reply:{message_id}" if message_id else None


def marks_path(db_path: str | os.PathLike) -> Path:
    p = Path(db_path).expanduser().resolve()
    return p.with_name(p.name + ".marks.jsonl")


def add(db_path: str | os.PathLike, mark: Mark) -> Path:
    """Append one mark (a later mark for the same key replaces it for every reader)."""
    path = marks_path(db_path)
    line = mark.model_dump_json() + "\n"
    with open(path, "a", encoding="utf-8") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
    return path


def load(db_path: str | os.PathLike | None) -> list[Mark]:
    """The current mark of every key (lines that do not parse are skipped: a torn last line)."""
    if db_path is None:
        return []
    path = marks_path(db_path)
    if not path.exists():
        return []
    latest: dict[tuple, Mark] = {}
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            try:
                m = Mark.model_validate(json.loads(line))
            except (ValueError, ValidationError):
                continue
            latest[(m.rule_id, m.task_key, m.seq)] = m
    return list(latest.values())


def version(db_path: str | os.PathLike | None) -> int:
    """Changes whenever a mark is added (for caches keyed on the data)."""
    try:
        return marks_path(db_path).stat().st_mtime_ns if db_path else 0
    except OSError:
        return 0


def register(con: duckdb.DuckDBPyConnection, db_path: str | os.PathLike | None) -> None:
    """The current marks as the session temp table `review_marks` (empty without a file)."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE review_marks ({COLUMNS})")
    rows = [(m.rule_id, m.task_key, m.seq, m.mark, m.note, m.marked_by, m.marked_at) for m in load(db_path)]
    if rows:
        con.executemany("INSERT INTO review_marks VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
