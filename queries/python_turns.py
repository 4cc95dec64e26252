"""Turns as plain Python dicts, for Python rules (see python_rules.py)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterator

import duckdb


def _dicts(con: duckdb.DuckDBPyConnection, sql: str) -> list[dict[str, Any]]:
    res = con.execute(sql)  # not a cursor: the turn model temp tables live on this connection
    names = [d[0] for d in res.description]
    return [dict(zip(names, row)) for row in res.fetchall()]


def iter_turns(con: duckdb.DuckDBPyConnection) -> Iterator[dict[str, Any]]:
    """{task, steps, replies} per task, tasks by task_id, steps by seq, replies by time, then by their
    position in the conversation as a number (an undated transcript's ids sort '...:10' before
    '...:2' as text); needs the turn model temp tables."""
    steps: dict[str, list] = defaultdict(list)
    for s in _dicts(con, "SELECT * FROM steps ORDER BY task_id, seq"):
        steps[s["task_id"]].append(s)
    replies: dict[str, list] = defaultdict(list)
    for r in _dicts(con, "SELECT * FROM turn_replies WHERE task_id IS NOT NULL "
                           "ORDER BY task_id, reply_time NULLS LAST, reply_index NULLS LAST, reply_id"):
        replies[r["task_id"]].append(r)
    for t in _dicts(con, "SELECT * FROM tasks ORDER BY task_id"):
        yield {"task": t, "steps": steps.get(t["task_id"], []), "replies": replies.get(t["task_id"], [])}
