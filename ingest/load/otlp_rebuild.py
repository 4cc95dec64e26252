"""Re-derive the tasks, steps and messages of every trace a load touched.

Runs inside the loader's transaction for the file (see `loader.AfterFile`),
right after the file's spans were upserted into `otel_spans`. The touched
traces are rebuilt from ALL their stored spans, so the result depends only on
which spans are stored, never on how they were split or in which order they
came. Turns that claim a business task id (`trace_audit.task_id`) are decided
against each other across traces: when a touched turn claims, or used to hold,
an id that stored turns of other traces claim, those traces are rebuilt too
(`rebuild_sql.CLAIM_CLOSURE`), so the earliest claimant holds it whatever the
load order.

The rebuild is set-based SQL over `otel_spans` (`rebuild_sql`): roles, turns
(a recursive walk up the parent links), seq by start time, failure, verified
and attempts, task status, all for every touched trace at once. Only the
turn's request and reply text is read in Python (`messages.user_text` /
`assistant_text`: message lists in several dialects), once per turn: from the
task span (on a second thread, while DuckDB derives the steps and tasks), and
from its LLM calls only when the task span has no text.
"""

from __future__ import annotations

import json
from concurrent.futures import Future, ThreadPoolExecutor

import pyarrow as pa

from . import otlp_rebuild_sql as q
from ..read.otlp.messages import assistant_text, event_reply_text, event_user_text, user_text
from ...queries.warehouse.tables import KEYS

_TEXT_SCHEMA = pa.schema([("task_id", pa.string()), ("goal", pa.string()), ("final_answer", pa.string())])


class OtlpTraceRebuild:
    name = "otlp"
    raw_tables = {"otel_spans": KEYS["otel_spans"], "otel_logs": KEYS["otel_logs"]}

    def after_file(self, con, loaded: dict[str, pa.Table]) -> dict[str, int]:
        traces = [loaded["otel_spans"].select(["trace_id"])] if "otel_spans" in loaded else []
        if "otel_logs" in loaded:
            # GenAI events carry the turn's texts: the traces they name are rebuilt too.
            con.register("otlp_logs_in", loaded["otel_logs"])
            try:
                traces.append(con.sql("SELECT DISTINCT l.trace_id FROM otel_logs l JOIN otlp_logs_in USING (log_id) "
                                      "WHERE l.trace_id IS NOT NULL").to_arrow_table())
            finally:
                con.unregister("otlp_logs_in")
        traces = [t for t in traces if t.num_rows]
        if not traces:
            return {}
        return rebuild_traces(con, pa.concat_tables(traces, promote_options="permissive"))


def rebuild_traces(con, trace_ids: pa.Table) -> dict[str, int]:
    """Rebuild the derived rows of the traces in `trace_ids` (a table with a trace_id column)."""
    con.register("otlp_touched_in", trace_ids)
    try:
        con.execute("CREATE OR REPLACE TEMP TABLE otlp_touched AS SELECT DISTINCT trace_id FROM otlp_touched_in")
    finally:
        con.unregister("otlp_touched_in")
    # The turns' request and reply texts are read in Python on a second thread while
    # DuckDB (which lets go of the GIL) derives the steps and tasks on this one.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="trace-audit turn texts") as pool:
        try:
            heads = _derive(con, pool)
            if con.execute(q.CLAIMS_IN_PLAY).fetchall()[0][0]:
                more = con.execute(q.CLAIM_CLOSURE).fetchall()
                if more:
                    # The first round's texts (already being read) are dropped; claims are rare.
                    con.executemany("INSERT INTO otlp_touched VALUES (?)", more)
                    heads = _derive(con, pool)
            con.execute(q.NAMED_TRACES if con.execute(q.SHAPED_CLAIMS).fetchall()[0][0] else q.NO_NAMED_TRACES)
            con.execute(q.IDS)
            texts = _texts(con, *heads.result())
            con.register("otlp_text", texts)
            try:
                for statement in q.DELETE_OLD:
                    con.execute(statement)
                counts = {}
                for table, statement in (("steps", q.INSERT_STEPS), ("tasks", q.INSERT_TASKS),
                                         ("messages", q.INSERT_MESSAGES)):
                    counts[table] = con.execute(statement).fetchall()[0][0]
            finally:
                con.unregister("otlp_text")
        finally:
            for statement in q.DROP:
                con.execute(statement)
            con.execute("DROP TABLE IF EXISTS otlp_touched")
    return counts


def _derive(con, pool: ThreadPoolExecutor) -> Future:
    """Turns, steps and tasks of the touched traces (temp tables), and their stored rows.

    Returns the pending (goal, answer) dicts of the turns that have a head span."""
    for statement in (q.SPANS, q.EDGES, q.CHAIN, q.FLAGS, q.MEMBERS):
        con.execute(statement)
    # Fetched as Arrow and turned into Python rows a batch at a time: 500,000 turns
    # fetched as Python tuples raised the peak by about 180 MB.
    heads = pool.submit(_head_texts, con.sql(q.HEAD_TEXTS).to_arrow_table())
    for statement in (q.STEPS, q.TASKS, q.OLD):
        con.execute(statement)
    return heads


class _Attrs:
    """What messages.user_text / assistant_text read of a span: its attributes and role."""

    __slots__ = ("attrs", "role")

    @classmethod
    def at(cls, row: tuple, i: int) -> "_Attrs":
        """From a row of HEAD_TEXTS or LLM_TEXTS whose role is at `i`, its text values after it."""
        n = 2 * len(q.TEXT_KEYS)
        return cls(row[i], row[i + 1:i + 1 + n], row[i + 1 + n])

    def __init__(self, role, values, indexed):
        """`values`: per text key a string's value, then any other value's JSON text (rebuild_sql._text_values)."""
        self.role = role
        if indexed is not None:
            self.attrs = json.loads(indexed)
        else:
            self.attrs = {}
            for k, text, other in zip(q.TEXT_KEYS, values[0::2], values[1::2]):
                if text is not None:
                    self.attrs[k] = text
                elif other is not None:
                    self.attrs[k] = json.loads(other)


def _head_texts(heads: pa.Table) -> tuple[dict[str, str | None], dict[str, str | None]]:
    """goal and final_answer per task, from its head span (rows of HEAD_TEXTS); pure Python."""
    goal: dict[str, str | None] = {}
    answer: dict[str, str | None] = {}
    for batch in heads.to_batches(max_chunksize=10_000):
        for row in zip(*(column.to_pylist() for column in batch.columns)):
            span = _Attrs.at(row, 1)
            goal[row[0]] = user_text(span) or None
            answer[row[0]] = assistant_text(span) or None
    return goal, answer


def _event_texts(con, need: list[str], goal: dict[str, str | None], answer: dict[str, str | None]) -> None:
    """Texts the spans lack, from the GenAI log events joined to the turn's spans (in place).

    The request: the first span (by start) whose events hold a user message, its last one; the
    reply: the last span to end whose events hold a reply, its last one (as for LLM spans)."""
    if not need or not con.execute(q.ANY_TOUCHED_LOGS).fetchall()[0][0]:
        return
    con.execute("DELETE FROM otlp_need_text WHERE task_id NOT IN (SELECT unnest(?::VARCHAR[]))", [need])
    events: dict[str, dict[tuple, list]] = {}  # task -> (start, end, span id) -> events in time order
    for task_id, span_id, start, end, name, body, attrs in con.execute(q.LOG_TEXTS).fetchall():
        events.setdefault(task_id, {}).setdefault((start or 0, end or 0, span_id), []).append(
            (name, json.loads(body) if body is not None else None, json.loads(attrs) if attrs else {}))
    for task_id, by_span in events.items():
        if not goal.get(task_id):
            first = sorted(by_span, key=lambda k: (k[0], k[2]))
            goal[task_id] = next((t for t in (event_user_text(by_span[k]) for k in first) if t), None)
        if not answer.get(task_id):
            last = sorted(by_span, key=lambda k: (k[1], k[2]), reverse=True)
            answer[task_id] = next((t for t in (event_reply_text(by_span[k]) for k in last) if t), None)


def _texts(con, goal: dict[str, str | None], answer: dict[str, str | None]) -> pa.Table:
    """goal and final_answer per task (mapping rules), as an Arrow table; `goal` and `answer`
    hold what the head spans said (`_head_texts`)."""
    # Turns without a head, or whose head had no text, fall back to their LLM calls.
    task_ids = [r[0] for r in con.execute("SELECT task_id FROM otlp_task").fetchall()]
    need = [t for t in task_ids if not goal.get(t) or not answer.get(t)]
    if need:
        con.register("otlp_need_in", pa.table({"task_id": pa.array(need, pa.string())}))
        try:
            con.execute("CREATE OR REPLACE TEMP TABLE otlp_need_text AS SELECT task_id FROM otlp_need_in")
        finally:
            con.unregister("otlp_need_in")
        llm: dict[str, list] = {}
        for row in con.execute(q.LLM_TEXTS).fetchall():
            llm.setdefault(row[0], []).append(row)
        for task_id, rows in llm.items():
            spans = [(r[1], r[2] or 0, r[3], _Attrs.at(r, 4)) for r in rows]  # seq, end, span id
            if not goal.get(task_id):
                goal[task_id] = next((t for t in (user_text(s[3]) for s in sorted(spans)) if t), None)
            if not answer.get(task_id):
                by_end = sorted(spans, key=lambda s: (s[1], s[2]), reverse=True)
                answer[task_id] = next((t for t in (assistant_text(s[3]) for s in by_end) if t), None)
        _event_texts(con, [t for t in need if not goal.get(t) or not answer.get(t)], goal, answer)
    return pa.table({
        "task_id": pa.array(task_ids, pa.string()),
        "goal": pa.array([goal.get(t) for t in task_ids], pa.string()),
        "final_answer": pa.array([answer.get(t) for t in task_ids], pa.string()),
    }, schema=_TEXT_SCHEMA)
