"""The one write of a rules run: its findings, its rule_runs row and the readings it made, in one
transaction, so a run is stored whole or not at all."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import duckdb

from .reading.cache import keep_readings
from .warehouse import db


def store_run(con: duckdb.DuckDBPyConnection, plan, result, since: datetime | None, until: datetime | None,
              started: datetime, stage: str = "_ta_stage") -> None:
    """Write the staged findings (`stage`) of `result` under its run id."""
    rules_json = json.dumps([{"id": o.id, "sha256": o.sha256, "severity": o.severity, "findings": o.findings,
                              "error": o.error, "seconds": o.seconds} for o in result.rules], ensure_ascii=False)
    failed_json = json.dumps([{"id": i, "error": e} for i, e in result.failed], ensure_ascii=False)
    con.execute("BEGIN TRANSACTION")
    try:
        keep_readings(con, plan)
        con.execute(
            "INSERT INTO findings (run_id, rule_id, severity, task_id, conversation_id, user_id, seq, message, "
            "evidence, event_time) SELECT ?, rule_id, severity, task_id, conversation_id, user_id, seq, message, "
            f"evidence, event_time FROM {stage} "
            "ORDER BY rule_id, event_time NULLS LAST, task_id NULLS LAST, seq NULLS LAST, message", [result.run_id])
        con.execute(
            "INSERT INTO rule_runs (run_id, started_at, finished_at, now_ts, since_ts, until_ts, engine, "
            "config_hash, rules, finding_count, failed_rules) VALUES (?, ?, ?, ?, ?, ?, 'duckdb', ?, ?, ?, ?)",
            [result.run_id, started, datetime.now(timezone.utc), plan.globals["now"], since, until,
             result.config_hash, rules_json, result.finding_count, failed_json])
        db.mark_changed(con)
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise
