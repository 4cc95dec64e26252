"""Helpers for the ingest tests: seed-004 records, files, and reading the warehouse back.

(A module of helpers, not tests; named test_* only so it sits with the tests it serves.)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

import duckdb

WAREHOUSE_TABLES = ("tasks", "steps", "messages", "audit_logs")
JSON_BLANKS = " \t\r"  # whitespace a line may hold and still be blank


def task(i: int, **over: Any) -> dict[str, Any]:
    rec = {"id": i, "user_id": 7, "conversation_id": f"c{i}", "goal": f"提醒我 {i}", "status": "SUCCESS",
           "total_steps": 1, "success_steps": 1, "replanned": 0, "create_time": "2026-11-08 08:00:00",
           "finish_time": "2026-11-08 08:00:05"}
    rec.update(over)
    return rec


def step(task_id: Any, seq: Any, **over: Any) -> dict[str, Any]:
    rec = {"id": 1000 + int(seq) if str(seq).isdigit() else 1, "task_id": task_id, "seq": seq,
           "tool": "create_reminder", "args_json": json.dumps({"content": "开会", "remind_at": "2026-11-09 08:00:00"},
                                                               ensure_ascii=False),
           "reason": "user asked", "status": "SUCCESS", "verified": 1, "attempts": 1, "error": None,
           "create_time": "2026-11-08 08:00:01"}
    rec.update(over)
    return rec


def audit(i: int, **over: Any) -> dict[str, Any]:
    rec = {"id": i, "user_id": 7, "action": "create_reminder", "result": "SUCCESS",
           "create_time": "2026-11-08 08:00:02", "task_id": 1}
    rec.update(over)
    return rec


def message(i: int, **over: Any) -> dict[str, Any]:
    rec = {"id": i, "conversation_id": "c1", "user_id": 7, "role": "assistant", "content": "好的,已设置",
           "create_time": "2026-11-08 08:00:03"}
    rec.update(over)
    return rec


def line(record: Any) -> str:
    return record if isinstance(record, str) else json.dumps(record, ensure_ascii=False)


def write_jsonl(path: Path, items: Iterable[Any], newline: str = "\n", final_newline: bool = True) -> Path:
    """Records (dicts) or raw text lines, one per line."""
    text = newline.join(line(i) for i in items) + (newline if final_newline else "")
    path.write_bytes(text.encode("utf-8"))
    return path


def query(db_path: str, sql: str, params: list | None = None) -> list[tuple]:
    con = duckdb.connect(db_path, read_only=True)
    try:
        con.execute("SET TimeZone = 'UTC'")
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def counts(db_path: str) -> dict[str, int]:
    return {t: query(db_path, f"SELECT count(*) FROM {t}")[0][0] for t in WAREHOUSE_TABLES + ("ingest_errors",)}


def errors(db_path: str, source_file: str | None = None) -> list[tuple[str, int, str]]:
    """(source_file, line, reason), in file and line order."""
    where, params = ("WHERE source_file = ?", [source_file]) if source_file else ("", [])
    return query(db_path, f"SELECT source_file, line, reason FROM ingest_errors {where} ORDER BY source_file, line",
                 params)


def error_lines(db_path: str, source_file: str) -> dict[int, str]:
    return {ln: reason for _, ln, reason in errors(db_path, source_file)}


def stored_lines(db_path: str, source_file: str) -> list[int]:
    """source_line of every warehouse row that came from `source_file` (one row per seed-004 record)."""
    union = " UNION ALL ".join(f"SELECT source_line FROM {t} WHERE source_file = ?" for t in WAREHOUSE_TABLES)
    return sorted(r[0] for r in query(db_path, union, [source_file] * len(WAREHOUSE_TABLES)))


def nonblank_lines(data: bytes) -> list[int]:
    """1-based numbers of the lines of `data` that hold anything but JSON whitespace.

    A UTF-8 byte order mark opening the data marks its encoding and is not content
    (framing drops it), so a file holding only one has no lines to account for."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    out = []
    for i, piece in enumerate(data.split(b"\n")):
        if piece.strip(JSON_BLANKS.encode()):
            out.append(i + 1)
    return out


def assert_every_line_accounted(db_path: str, path: Path, shown: str | None = None) -> None:
    """The count invariant, line by line: each non-blank line is stored or quarantined, exactly once."""
    shown = shown or str(path)
    stored = stored_lines(db_path, shown)
    quarantined = sorted(error_lines(db_path, shown))
    expected = nonblank_lines(path.read_bytes())
    assert len(stored) == len(set(stored)), "a line stored twice"
    assert not set(stored) & set(quarantined), "a line both stored and quarantined"
    assert sorted(stored + quarantined) == expected


def fail_third_write(monkeypatch, exc: BaseException) -> None:
    """Make the loader's third plain append of a run raise `exc` (after two frames were written).
    With framing.BLOCK_BYTES made small, that lands in the middle of a file."""
    from trace_audit.ingest.load import loader

    real_append, calls = loader.store.append, []

    def append(con, table, rows):
        calls.append(rows.num_rows)
        if len(calls) == 3:
            raise exc
        return real_append(con, table, rows)

    monkeypatch.setattr(loader.store, "append", append)
