"""The warehouse's tables by name and what identifies a row: stated once, for every room.

The columns and their types are schema.sql's (read by `types.py`); this module names the
tables the rest of the code treats alike and the keys a re-sent record replaces by.
"""

from __future__ import annotations

# What readers produce, what the rules read, what is exported (Parquet, ClickHouse, Spark).
TRACE_TABLES = ("tasks", "steps", "messages", "audit_logs")
# Counted in `stats` and ingest summaries: the trace tables and the quarantine.
COUNTED_TABLES = (*TRACE_TABLES, "ingest_errors")

# A record re-sent with the same key replaces the stored row (the loader's upsert).
KEYS: dict[str, tuple[str, ...]] = {
    "tasks": ("task_id",),
    "steps": ("task_id", "seq"),
    "messages": ("message_id",),
    "audit_logs": ("audit_id",),
    "otel_spans": ("trace_id", "span_id"),  # raw OTLP spans; tasks, steps and messages are derived from them
    "otel_logs": ("log_id",),  # raw OTLP log records; a digest of the record (the same record re-sent is one row)
}

# The time of a row whose written UTC offset the row keeps (utc_offset_min): a message's time and
# a turn's start, as the source wrote them (+08:00 is a user's or a system's local time; UTC is
# where nobody is). Readers fill it; value_checks reads it as where the user is.
WRITTEN_TIMES = {"tasks": "started_at", "messages": "created_at"}
OFFSET_COLUMN = "utc_offset_min"

# The Parquet key/value metadata entry that says which table an exported file holds.
PARQUET_TABLE_KEY = "trace_audit_table"
