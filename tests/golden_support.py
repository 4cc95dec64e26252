"""Golden-file checks for readers: ingest a hand-written input with the real loader into a
real DuckDB file and compare the stored rows with `<name>.expected.json` exactly."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import duckdb

from trace_audit.ingest.load.loader import ingest
from trace_audit.ingest.redact.config import RedactionConfig

GOLDEN = Path(__file__).resolve().parent / "fixtures" / "golden"
ORDER = {"tasks": "task_id", "steps": "task_id, seq", "messages": "message_id", "ingest_errors": "line"}
JSON_COLUMNS = {"plan", "metadata", "args", "result"}


def query(db_path: str, sql: str, params=()) -> list[tuple]:
    con = duckdb.connect(db_path, read_only=True)
    try:
        return con.execute(sql, list(params)).fetchall()
    finally:
        con.close()


def _plain(column: str, value):
    """A stored value in the spelling the expected files use."""
    if isinstance(value, datetime):
        return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
    if column in JSON_COLUMNS and value is not None:
        return json.loads(value)
    return value


def golden_cases(fmt: str) -> list[Path]:
    return sorted(p for p in (GOLDEN / fmt).iterdir() if p.suffix in (".jsonl", ".json") and ".expected." not in p.name)


def check_golden(source: Path, db_path: str) -> None:
    expected = json.loads(source.with_name(source.name.split(".")[0] + ".expected.json").read_text(encoding="utf-8"))
    # Golden files pin the reader's mapping; redaction has its own tests.
    summary = ingest([str(source)], db_path, tz=expected.get("tz", "UTC"), redaction=RedactionConfig(enabled=False))
    assert [f.status for f in summary.files] == ["loaded"]
    for table in ("tasks", "steps", "messages", "ingest_errors"):
        want = expected.get(table, [])
        if not want:
            assert query(db_path, f"SELECT count(*) FROM {table}") == [(0,)], f"{source.name}: {table} not empty"
            continue
        columns = list(want[0])
        rows = query(db_path, f"SELECT {', '.join(columns)} FROM {table} ORDER BY {ORDER[table]}")
        got = [{c: _plain(c, v) for c, v in zip(columns, row)} for row in rows]
        assert got == want, f"{source.name}: {table} differ"


def said_but_not_done(path: str, now) -> dict[str, list[dict]]:
    """Run said_but_not_done over the warehouse at `path`: each task id with its findings' evidence."""
    return findings_of(path, now, "said_but_not_done")


def findings_of(path: str, now, rule: str) -> dict[str, list[dict]]:
    """Run `rule` (and the turn model it needs) over the warehouse at `path`: each task id with its
    findings' evidence."""
    import json

    from trace_audit.queries.engine import run_rules
    from trace_audit.queries.warehouse import db

    con = db.connect(path)
    try:
        result = run_rules(con, now=now, rule_ids=[rule])
        assert result.failed == []
        rows = con.execute("SELECT task_id, evidence FROM findings WHERE run_id = ? ORDER BY task_id",
                           [result.run_id]).fetchall()
    finally:
        con.close()
    out: dict[str, list[dict]] = {}
    for task_id, evidence in rows:
        out.setdefault(task_id, []).append(json.loads(evidence))
    return out
