"""Re-derive the tasks, steps and messages of every trace a load touched.

Runs inside the loader's transaction for the file (see `loader.AfterFile`),
right after the file's spans were upserted into `otel_spans`. For each touched
trace it reads ALL stored spans of that trace, maps them (`mapping`), deletes
the rows previously derived from that trace and inserts the new ones. So the
result depends only on which spans are stored, never on how they were split
or in which order they came.
"""

from __future__ import annotations

import json

import pyarrow as pa

from trace_audit.ingest.otlp.mapping import Span, trace_rows
from trace_audit.ingest.readers.base import rows_to_table

TRACES_PER_CHUNK = 20_000

_SPANS_OF_CHUNK = """
SELECT s.trace_id, s.span_id, s.parent_span_id, s.name, epoch_us(s.started_at), epoch_us(s.ended_at),
       s.status_code, s.status_message, CAST(s.attributes AS VARCHAR), CAST(s.resource AS VARCHAR),
       CAST(s.events AS VARCHAR), s.source_file, s.source_line
FROM otel_spans s JOIN otlp_touched t ON s.trace_id = t.trace_id
WHERE t.chunk = ?
ORDER BY s.trace_id
"""


class OtlpTraceRebuild:
    name = "otlp"
    raw_tables = {"otel_spans": ("trace_id", "span_id")}

    def after_file(self, con, loaded: dict[str, pa.Table]) -> dict[str, int]:
        return rebuild_traces(con, loaded["otel_spans"].select(["trace_id"]))


def rebuild_traces(con, trace_ids: pa.Table) -> dict[str, int]:
    """Rebuild the derived rows of the traces in `trace_ids` (a table with a trace_id column)."""
    counts = {"tasks": 0, "steps": 0, "messages": 0}
    con.register("otlp_touched_in", trace_ids)
    try:
        con.execute(f"""CREATE OR REPLACE TEMP TABLE otlp_touched AS
            SELECT trace_id, (row_number() OVER (ORDER BY trace_id) - 1) // {TRACES_PER_CHUNK} AS chunk
            FROM (SELECT DISTINCT trace_id FROM otlp_touched_in)""")
    finally:
        con.unregister("otlp_touched_in")
    chunks = con.execute("SELECT coalesce(max(chunk) + 1, 0) FROM otlp_touched").fetchall()[0][0]
    for chunk in range(chunks):
        rows = con.execute(_SPANS_OF_CHUNK, [chunk]).fetchall()
        tasks, steps, messages = _derive(rows)
        _replace(con, chunk, tasks, steps, messages)
        counts["tasks"] += len(tasks)
        counts["steps"] += len(steps)
        counts["messages"] += len(messages)
    con.execute("DROP TABLE otlp_touched")
    return counts


def _derive(rows) -> tuple[list[dict], list[dict], list[dict]]:
    tasks: list[dict] = []
    steps: list[dict] = []
    messages: list[dict] = []
    loads = json.loads
    resources: dict[str, dict] = {}  # spans of one process share the resource text
    current: list[Span] = []
    current_trace = None
    for (trace_id, span_id, parent, name, start, end, status, status_message, attrs, resource, events,
         source_file, source_line) in rows:
        if trace_id != current_trace:
            if current:
                _add(trace_rows(current), tasks, steps, messages)
            current, current_trace = [], trace_id
        res = resources.get(resource)
        if res is None:
            res = resources[resource] = loads(resource) if resource else {}
        current.append(Span(trace_id, span_id, parent, name, start, end, status, status_message,
                            loads(attrs) if attrs else {}, res, events, source_file, source_line))
    if current:
        _add(trace_rows(current), tasks, steps, messages)
    return tasks, steps, messages


def _add(got, tasks, steps, messages) -> None:
    tasks.extend(got[0])
    steps.extend(got[1])
    messages.extend(got[2])


def _replace(con, chunk: int, tasks: list[dict], steps: list[dict], messages: list[dict]) -> None:
    con.execute("""CREATE OR REPLACE TEMP TABLE otlp_old AS
        SELECT task_id FROM tasks
        WHERE source = 'otlp'
          AND split_part(task_id, ':', 1) IN (SELECT trace_id FROM otlp_touched WHERE chunk = ?)""", [chunk])
    con.execute("DELETE FROM steps WHERE task_id IN (SELECT task_id FROM otlp_old)")
    con.execute("DELETE FROM messages WHERE source = 'otlp' AND task_id IN (SELECT task_id FROM otlp_old)")
    con.execute("DELETE FROM tasks WHERE source = 'otlp' AND task_id IN (SELECT task_id FROM otlp_old)")
    con.execute("DROP TABLE otlp_old")
    for table, rows in (("tasks", tasks), ("steps", steps), ("messages", messages)):
        if not rows:
            continue
        con.register("otlp_rows_in", rows_to_table(table, rows))
        try:
            con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM otlp_rows_in")
        finally:
            con.unregister("otlp_rows_in")
