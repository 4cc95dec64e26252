"""Reading stored rule runs: the latest run, findings, decisions, and diffs between runs."""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

import duckdb

DECISIONS_SQL = (Path(__file__).resolve().parent / "decisions.sql").read_text("utf-8")


class RunNotFound(Exception):
    pass


class UnknownRule(Exception):
    """A rule id that no loaded rule and no stored run has (a typo reads as 'no findings' otherwise)."""


def _dicts(con: duckdb.DuckDBPyConnection, sql: str, params: Any = None) -> list[dict[str, Any]]:
    # the connection itself, not a cursor: temp tables (the turn model) are per connection
    res = con.execute(sql, params) if params is not None else con.execute(sql)
    names = [d[0] for d in res.description]
    return [dict(zip(names, row)) for row in res.fetchall()]


def latest_run_id(con: duckdb.DuckDBPyConnection) -> str:
    rows = con.execute("SELECT run_id FROM rule_runs ORDER BY started_at DESC, run_id DESC LIMIT 1").fetchall()
    if not rows:
        raise RunNotFound("no rule run stored yet; run: trace-audit rules run")
    return rows[0][0]


def resolve_run(con: duckdb.DuckDBPyConnection, run_id: str | None) -> str:
    if run_id in (None, "", "latest"):
        return latest_run_id(con)
    rows = con.execute("SELECT run_id FROM rule_runs WHERE run_id = ? OR run_id LIKE ? ORDER BY run_id",
                       [run_id, run_id + "%"]).fetchall()
    if not rows:
        raise RunNotFound(f"no rule run {run_id!r}; `trace-audit rules runs` would list them "
                          "(or query rule_runs)")
    if len(rows) > 1 and rows[0][0] != run_id:
        raise RunNotFound(f"run id prefix {run_id!r} is ambiguous: {', '.join(r[0] for r in rows[:5])}")
    return rows[0][0]


def list_runs(con: duckdb.DuckDBPyConnection, limit: int | None = 20) -> list[dict[str, Any]]:
    """The stored runs, newest first: id, times, engine, how many rules ran and failed, findings."""
    return _dicts(con, "SELECT run_id, started_at, finished_at, now_ts, engine, "
                       "coalesce(json_array_length(rules), 0) AS rule_count, "
                       "coalesce(json_array_length(failed_rules), 0) AS failed_count, finding_count "
                       "FROM rule_runs ORDER BY started_at DESC, run_id DESC"
                       + (f" LIMIT {int(limit)}" if limit else ""))


def rule_ids_of(con: duckdb.DuckDBPyConnection, run_id: str) -> list[str]:
    """The ids of the rules a stored run evaluated, sorted."""
    rows = con.execute("SELECT rules FROM rule_runs WHERE run_id = ?", [run_id]).fetchall()
    return sorted({r["id"] for r in json.loads(rows[0][0] or "[]")}) if rows else []


def check_rule_id(con: duckdb.DuckDBPyConnection, run_id: str, rule_id: str | None,
                  known: set[str] = frozenset()) -> None:
    """UnknownRule when `rule_id` is neither in the run nor among `known` (the loaded rules)."""
    if rule_id is None:
        return
    in_run = rule_ids_of(con, run_id)
    if rule_id in in_run or rule_id in known:
        return
    ids = sorted(set(in_run) | set(known))
    near = difflib.get_close_matches(rule_id, ids, n=3, cutoff=0.6)
    hint = f" Did you mean {', '.join(near)}?" if near else ""
    raise UnknownRule(f"no rule {rule_id!r}.{hint} Known rule ids: {', '.join(ids)} "
                      "(trace-audit rules list)")


def findings(con: duckdb.DuckDBPyConnection, run_id: str | None = None, rule_id: str | None = None,
             severity: str | None = None, task_id: str | None = None, limit: int | None = None,
             known_rules: set[str] = frozenset()) -> list[dict[str, Any]]:
    rid = resolve_run(con, run_id)
    check_rule_id(con, rid, rule_id, known_rules)
    sql = ("SELECT run_id, rule_id, severity, task_id, conversation_id, user_id, seq, message, evidence, event_time "
           "FROM findings WHERE run_id = $run AND ($rule IS NULL OR rule_id = $rule) "
           "AND ($sev IS NULL OR severity = $sev) AND ($task IS NULL OR task_id = $task) "
           "ORDER BY rule_id, event_time NULLS LAST, task_id NULLS LAST, seq NULLS LAST")
    if limit:
        sql += f" LIMIT {int(limit)}"
    return _dicts(con, sql, {"run": rid, "rule": rule_id, "sev": severity, "task": task_id})


def decisions(con: duckdb.DuckDBPyConnection, run_id: str | None = None) -> list[dict[str, Any]]:
    """Each turn's decision for a run (see decisions.sql): task_id, conversation_id, user_id,
    message_id (turns without a task), decision (allow|warn|review|block), findings."""
    return _dicts(con, DECISIONS_SQL, {"run_id": resolve_run(con, run_id)})


def diff(con: duckdb.DuckDBPyConnection, run_a: str, run_b: str) -> tuple[str, str, list[dict[str, Any]]]:
    """Per rule: findings in A, in B, new in B, resolved since A. A finding is identified by
    (rule, task or conversation, seq, evidence.message_id), so threshold changes show as new/resolved."""
    a, b = resolve_run(con, run_a), resolve_run(con, run_b)
    from .dashboard_queries import sql as dashboard_sql  # the Rules page runs the same file

    return a, b, _dicts(con, dashboard_sql("rules_diff"), {"run_a": a, "run_b": b})
