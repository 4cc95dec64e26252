"""One rule's findings into the run's staging table (_ta_stage): its rows, their message from the
rule's template, and their evidence (the rule's extra columns and, where the header asks, the
turn's steps) formatted the same way for every rule and every engine."""

from __future__ import annotations

import json
import re
from typing import Any

import duckdb

from .rulefile import Rule
from .run_schedule import Scratch

STANDARD_COLUMNS = ("task_id", "conversation_id", "user_id", "seq", "event_time")
_TEMPLATE_FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _sql_str(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def message_sql(template: str, columns: set[str]) -> str:
    parts, pos = [], 0
    for m in _TEMPLATE_FIELD.finditer(template):
        if m.start() > pos:
            parts.append(_sql_str(template[pos:m.start()]))
        name = m.group(1)
        if name not in columns:
            raise ValueError(f"message template names {{{name}}}, which the query does not return "
                             f"(it returns {', '.join(sorted(columns))})")
        parts.append(f"coalesce(CAST(o.{_ident(name)} AS VARCHAR), '')")
        pos = m.end()
    if pos < len(template):
        parts.append(_sql_str(template[pos:]))
    return "concat(" + ", ".join(parts) + ")" if parts else "''"


def stage_rule(con: duckdb.DuckDBPyConnection, rule: Rule, severity: str, params: dict[str, Any], scratch: Scratch,
               out_name: str) -> int:
    """Evaluate one SQL rule (its parameters bound to `params`) into _ta_stage; returns its finding
    count. Raises on any error. `out_name`: a table of the run's own for the rule's rows."""
    con.execute(scratch.create(out_name, f"AS {rule.sql}"), params)
    try:
        return _stage_output(con, rule, severity, scratch, scratch.qualified(out_name))
    finally:
        con.execute(f"DROP TABLE IF EXISTS {scratch.qualified(out_name)}")


def _stage_output(con: duckdb.DuckDBPyConnection, rule: Rule, severity: str, scratch: Scratch, out: str) -> int:
    cols = [d[0] for d in con.execute(f"SELECT * FROM {out} LIMIT 0").description]
    colset = set(cols)
    if "task_id" not in colset and "conversation_id" not in colset:
        raise ValueError("the query must return task_id or conversation_id")
    extras = [c for c in cols if c not in STANDARD_COLUMNS
              and not (c == "tools" and rule.header.evidence_steps != "none")]
    fields = [f"{_ident(c)} := o.{_ident(c)}" for c in extras]
    if rule.header.evidence_steps != "none":
        # One struct per finding (its columns, then the task's steps): no JSON re-parsing to merge.
        # Steps in seq order by sorting each list (structs sort by their first field): an ordered
        # aggregate costs several times more.
        fields.append("tools := coalesce(st.tools, [])")
        write_filter = ("AND s.tool IN (SELECT tool FROM tool_classes WHERE is_write)"
                        if rule.header.evidence_steps == "write" else "")
        steps_join = f"""LEFT JOIN (
            SELECT s.task_id, list_sort(list(struct_pack(seq := s.seq, tool := s.tool, status := s.status,
                   verified := s.verified, attempts := s.attempts, error := s.error, detail := s.detail))) AS tools
            FROM steps s
            WHERE s.task_id IN (SELECT task_id FROM {out}) {write_filter}
            GROUP BY s.task_id) st ON st.task_id = o.task_id"""
    else:
        steps_join = ""
    evidence = f"to_json(struct_pack({', '.join(fields)}))" if fields else "CAST('{}' AS JSON)"

    def col(name: str, cast: str) -> str:
        return f"TRY_CAST(o.{_ident(name)} AS {cast})" if name in colset else f"CAST(NULL AS {cast})"

    task_join = "LEFT JOIN tasks t ON t.task_id = o.task_id" if "task_id" in colset else \
        "LEFT JOIN tasks t ON FALSE"
    sql = f"""
        INSERT INTO {scratch.qualified("_ta_stage")}
        SELECT $rule_id, $severity, {col('task_id', 'VARCHAR')},
               coalesce({col('conversation_id', 'VARCHAR')}, t.conversation_id),
               coalesce({col('user_id', 'VARCHAR')}, t.user_id),
               {col('seq', 'INTEGER')},
               {message_sql(rule.header.message, colset)},
               {evidence},
               coalesce({col('event_time', 'TIMESTAMPTZ')}, t.started_at)
        FROM {out} o {task_join} {steps_join}"""
    params = {"rule_id": rule.id, "severity": severity}
    return con.execute(sql, params).fetchall()[0][0]  # INSERT returns the number of rows it wrote


def stage_python(con: duckdb.DuckDBPyConnection, rule: Rule, severity: str, scratch: Scratch) -> int:
    """Evaluate a Python rule turn by turn into _ta_stage; returns its finding count."""
    from .python_turns import iter_turns

    rows = []
    for turn in iter_turns(con):
        for f in rule.python(turn) or []:
            f = dict(f)
            seq = f.pop("seq", None)
            message = str(f.pop("message", rule.header.message))
            task = turn["task"]
            rows.append([rule.id, severity, task["task_id"], task.get("conversation_id"),
                         task.get("user_id"), seq, message, json.dumps(f, ensure_ascii=False, default=str),
                         task.get("started_at")])
    if rows:
        con.executemany(f"INSERT INTO {scratch.qualified('_ta_stage')} VALUES (?, ?, ?, ?, ?, ?, ?, CAST(? AS JSON), ?)",
                        rows)
    return len(rows)
