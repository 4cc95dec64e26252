"""`explain TASK_ID`: one turn, every rule's verdict on it, and the evidence behind them.

In the spirit of the verification-framework report: each enabled rule PASS or
FAIL with severity and message, the decision (worst failed severity, allow
when none), then the reply, the steps (status / verified / attempts / error)
and the linked audit rows. Rules are evaluated live (temp tables only, so a
read-only connection is enough) unless a stored run is named.
"""

from __future__ import annotations

import json
from pathlib import Path
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import duckdb

from .claims_report import ClaimsReport, action_text, claims_report, stored_text
from .engine import execute_plan, plan_run
from .rulefile import SEVERITY_RANK
from .runs import _dicts, resolve_run


# The dashboard's investigate page shows the same conversation around a turn: one query for both.
TURN_MESSAGES_SQL = (Path(__file__).resolve().parent / "dashboard" / "turn_conversation.sql").read_text("utf-8")


class TaskNotFound(Exception):
    pass


def near_task_ids(con: duckdb.DuckDBPyConnection, typed: str, n: int = 5) -> list[str]:
    """Stored task ids that look like `typed` (never `typed` itself, which is not stored):
    ids containing it, or close to it by Jaro-Winkler similarity, best first."""
    rows = con.execute(
        "SELECT task_id FROM (SELECT task_id, jaro_winkler_similarity(lower(task_id), lower($t)) AS sim, "
        "contains(lower(task_id), lower($t)) AS has FROM tasks WHERE task_id <> $t) "
        "WHERE has OR sim >= 0.85 ORDER BY has DESC, sim DESC, task_id LIMIT $n", {"t": typed, "n": n}).fetchall()
    return [r[0] for r in rows]


def _when(ts: Any) -> str:
    """A time for the text view; an undated row says so (it printed 'None')."""
    return ts.strftime("%Y-%m-%d %H:%M:%S%z") if isinstance(ts, datetime) else "(no time)"


@dataclass
class Verdict:
    rule_id: str
    severity: str
    passed: bool
    messages: list[str] = field(default_factory=list)
    error: str | None = None


@dataclass
class Explanation:
    task: dict[str, Any]
    verdicts: list[Verdict]
    decision: str
    replies: list[dict[str, Any]]
    steps: list[dict[str, Any]]
    audits: list[dict[str, Any]]
    source: str  # "live (now=...)" or "run <id>"
    messages: list[dict[str, Any]] = field(default_factory=list)  # the conversation around the turn, in order
    claims: ClaimsReport | None = None  # each claimed action and value against what was written (live)


def explain(con: duckdb.DuckDBPyConnection, task_id: str, now: datetime | None = None, config=None,
            run_id: str | None = None, rules_dir=None) -> Explanation:
    tasks = _dicts(con, "SELECT * FROM tasks WHERE task_id = ?", [task_id])
    if not tasks:
        near = near_task_ids(con, task_id)
        hint = f" Did you mean {', '.join(near)}?" if near else ""
        raise TaskNotFound(f"no task {task_id!r} in the warehouse.{hint} (task ids are as ingested; "
                           "tau-bench runs look like tau:retail:12:0)")
    task = tasks[0]
    plan = plan_run(config, None, rules_dir, now)
    if run_id:
        rid = resolve_run(con, run_id)
        rows = _dicts(con, "SELECT rule_id, severity, message FROM findings WHERE run_id = ? AND task_id = ? "
                           "ORDER BY rule_id, seq NULLS LAST", [rid, task_id])
        stored = json.loads(con.execute("SELECT rules FROM rule_runs WHERE run_id = ?", [rid]).fetchall()[0][0])
        outcomes = [(r["id"], r["severity"], r.get("error")) for r in stored]
        source = f"run {rid}"
        # replies need the turn model even for a stored run
        execute_plan(con, plan_run(config, ["verified_false"], rules_dir, now), store=False)
    else:
        result = execute_plan(con, plan, store=False)
        rows = _dicts(con, "SELECT rule_id, severity, message FROM _ta_stage WHERE task_id = ? "
                           "ORDER BY rule_id, seq NULLS LAST", [task_id])
        outcomes = [(o.id, o.severity, o.error) for o in result.rules]
        source = f"live, now={plan.globals['now'].isoformat()}"
    verdicts = []
    for rid_, sev, err in outcomes:
        msgs = [r["message"] for r in rows if r["rule_id"] == rid_]
        verdicts.append(Verdict(rid_, sev, not msgs and not err, msgs, err))
    failed = [v.severity for v in verdicts if not v.passed and v.error is None]
    decision = max(failed, key=lambda s: SEVERITY_RANK[s]) if failed else "allow"
    if decision == "info":
        decision = "allow"
    replies = _dicts(con, "SELECT r.reply_id, r.reply_time, r.reply_index, r.link, r.reply_text, c.is_claim, c.verdict FROM turn_replies r "
                          "LEFT JOIN reply_claims c ON c.reply_id = r.reply_id WHERE r.task_id = ? "
                          "ORDER BY r.reply_time NULLS LAST, r.reply_index NULLS LAST, r.reply_id", [task_id])
    steps = _dicts(con, "SELECT seq, tool, status, verified, attempts, error, detail, CAST(args AS VARCHAR) AS args, "
                        "CAST(result AS VARCHAR) AS result, started_at FROM steps WHERE task_id = ? ORDER BY seq",
                   [task_id])
    messages = _dicts(con, TURN_MESSAGES_SQL, {"task_id": task_id})
    # rebuilt for this turn's conversation: a rules run keeps only the values that disagree
    claims = claims_report(con, task_id)
    audits = _dicts(con, """
        SELECT audit_id, action, result, created_at, task_id FROM audit_logs
        WHERE task_id = $t
           OR (task_id IS NULL AND user_id = $u AND action IN (SELECT tool FROM steps WHERE task_id = $t)
               AND created_at BETWEEN $start AND $end)
        ORDER BY created_at, audit_id""",
        {"t": task_id, "u": task.get("user_id"), "start": task.get("started_at") or datetime.min,
         "end": task.get("finished_at") or task.get("started_at") or datetime.max})
    return Explanation(task, verdicts, decision, replies, steps, audits, source, messages, claims)


def render_text(e: Explanation) -> str:
    t = e.task
    out = [f"Task: {t['task_id']}  (conversation {t.get('conversation_id')}, user {t.get('user_id')}, "
           f"source {t.get('source')})",
           f"Goal: {t.get('goal') or '-'}",
           f"Status: {t.get('status')}  started {_when(t.get('started_at'))}  finished {_when(t.get('finished_at'))}",
           f"Decision: {e.decision.upper()}   ({e.source})",
           "--- Rules ---"]
    for v in e.verdicts:
        if v.error:
            out.append(f"[ERROR] {v.rule_id} | {v.error}")
        elif v.passed:
            out.append(f"[PASS] {v.rule_id} | severity={v.severity}")
        else:
            for m in v.messages:
                out.append(f"[FAIL] {v.rule_id} | severity={v.severity} | {m}")
    out.append("--- Conversation ---")
    linked = {r["reply_id"] for r in e.replies}
    if not e.messages:
        out.append("(no messages stored for this turn)")
    for m in e.messages:
        mark = " (linked reply)" if m["message_id"] in linked else ""
        out.append(f"{_when(m['created_at'])} {m['role']}{mark}: {m['content']}")
    out.append("--- Reply ---")
    if not e.replies:
        out.append("(no reply linked to this task)")
    for r in e.replies:
        claim = (# states told as found (reported.py): a report where the turn only read, else a claim
                 "tells a settled state" if r.get("verdict") in ("report", "state") else
                 "claims completion" if r.get("is_claim") else
                 # a plain statement with no mark (unmarked.py): a claim only over writes that all went wrong
                 "states it plainly, admits nothing" if r.get("verdict") == "unmarked" else "no completion claim")
        when = _when(r["reply_time"])
        if r.get("reply_time") is None and r.get("reply_index") is not None:
            when = f"(no time, message #{r['reply_index']})"
        out.append(f"{when} [{r['link']}, {claim}] {r['reply_text']}")
    out += _claims_text(e.claims, live_note=not e.source.startswith("live"))
    out.append("--- Steps ---")
    if not e.steps:
        out.append("(no steps: nothing was executed)")
    for s in e.steps:
        out.append(f"#{s['seq']} {_when(s.get('started_at'))} {s['tool']} status={s['status']} verified={s['verified']} "
                   f"attempts={s['attempts']}"
                   + (f" error={s['error']}" if s.get("error") else "") + (f" detail={s['detail']}" if s.get("detail") else "")
                   + (f" args={s['args']}" if s.get("args") is not None else "") + (f" result={s['result']}" if s.get("result") is not None else ""))
    out.append("--- Audit ---")
    if not e.audits:
        out.append("(no audit rows)")
    for a in e.audits:
        how = "by task_id" if a.get("task_id") else "by user+action+time"
        out.append(f"{_when(a['created_at'])} {a['action']} {a['result']} ({how})")
    return "\n".join(out)


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Columns padded to their widest cell, separated by ' | ', each line indented."""
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]
    return ["  " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in [header, *rows]]


def _verdict_word(v: str | None) -> str:
    return (v or "-") if v == "match" else (v or "-").upper()


def _claims_text(c: ClaimsReport | None, live_note: bool = False) -> list[str]:
    """Each action the replies claim with the write behind it ("none" when nothing), then each
    value told or asked against what was written and what was read back or stored."""
    out = ["--- Claims ---" + (" (evaluated live, not from the run)" if live_note else "")]
    if c is None or c.error:
        return out + [f"(claims could not be read: {c.error if c else 'no turn model'})"]
    if not c.actions:
        out.append("(no reply of this turn claims an action)")
    else:
        out += _table(["reply", "claimed action", "clause", "backed by"],
                      [[a["reply_id"], action_text(a), f'"{a["clause"]}"',
                        a["backed_by"] + (" (restated result, judged on the whole turn)" if a["restated"] else "")]
                       for a in c.actions])
    out.append("Values told (each against the write behind its claim):")
    if not c.told:
        out.append("  (no value told in a claim was compared with a write)")
    else:
        out += _table(["field", "told", "written", "read back / stored (from)", "verdict", "write", "reply"],
                      [[v["field"], v["told"], v["written"] if v["written"] is not None else "-", stored_text(v),
                        _verdict_word(v["verdict"]), f"{v['tool']} #{v['seq']}", v["reply_id"]] for v in c.told])
    out.append("Asked vs done (the user's request against the write's arguments):")
    if not c.asked:
        out.append("  (no value asked for was compared with a write)")
    else:
        out += _table(["field", "asked", "written", "verdict", "write"],
                      [[v["field"], v["told"], v["written"] if v["written"] is not None else "-",
                        _verdict_word(v["verdict"]), f"{v['tool']} #{v['seq']}"] for v in c.asked])
    return out
