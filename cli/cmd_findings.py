"""`trace-audit findings [--run ID] [--rule ID] [--severity S] [--format table|jsonl|csv]`"""

from __future__ import annotations

import csv
import json
import sys

from .errors import UserError
from .options import add_db_option, count
from .terminal import csv_cell
from ..queries import marks

COLUMNS = ["run_id", "rule_id", "severity", "task_id", "conversation_id", "user_id", "seq", "event_time",
           "message", "evidence", "mark", "mark_note"]


def register(sub) -> None:
    p = sub.add_parser("findings", help="list the findings of a rule run (latest by default)",
                       description="List the findings a stored rule run found (the latest run unless --run), "
                                   "filtered by rule, severity or task; `trace-audit rules runs` lists the runs.")
    add_db_option(p)
    p.add_argument("--run", dest="run_id", default=None, help="run id or unique prefix (default: the latest run)")
    p.add_argument("--rule", default=None, help="only this rule")
    p.add_argument("--severity", choices=["info", "warn", "review", "block"], default=None)
    p.add_argument("--task", default=None, help="only this task")
    p.add_argument("--format", choices=["table", "jsonl", "csv"], default="table")
    p.add_argument("--limit", type=count, default=None, help="at most this many rows")
    p.set_defaults(run=run)


def _builtin_rule_ids() -> set[str]:
    from ..queries.rulefile import RuleLoadError, load_rules

    try:
        return {r.id for r in load_rules() if not r.is_model}
    except RuleLoadError:
        return set()


def _with_marks(rows: list[dict], db_path: str | None) -> list[dict]:
    """Each finding with its review mark (queries/marks.py: the file beside the warehouse)."""
    from ..queries.warehouse import db

    current = {(m.rule_id, m.task_key, m.seq): m for m in marks.load(db_path or db.default_db_path())}
    out = []
    for r in rows:
        message_id = None
        if not r.get("task_id") and r.get("evidence"):
            try:
                message_id = json.loads(r["evidence"]).get("message_id")
            except (ValueError, AttributeError):
                message_id = None
        m = current.get((r["rule_id"], marks.task_key(r.get("task_id"), message_id), r.get("seq")))
        out.append(dict(r, mark=m.mark if m else None, mark_note=(m.note or None) if m else None))
    return out


def run(args) -> int:
    from ..queries import runs
    from ..queries.warehouse import db

    con = db.connect(args.db, read_only=True, wait_seconds=5)
    try:
        try:
            rows = runs.findings(con, args.run_id, args.rule, args.severity, args.task, args.limit,
                                 known_rules=_builtin_rule_ids())
        except (runs.RunNotFound, runs.UnknownRule) as exc:
            raise UserError(str(exc)) from None
    finally:
        con.close()
    rows = _with_marks(rows, args.db)
    if args.format == "jsonl":
        for r in rows:
            r = dict(r, evidence=json.loads(r["evidence"]) if r["evidence"] else None,
                     event_time=r["event_time"].isoformat() if r["event_time"] else None)
            print(json.dumps(r, ensure_ascii=False))
    elif args.format == "csv":
        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow([r[c].isoformat() if c == "event_time" and r[c] else csv_cell(r[c]) for c in COLUMNS])
    else:
        for r in rows:
            when = r["event_time"].strftime("%Y-%m-%d %H:%M:%S") if r["event_time"] else "-"
            where = f"task {r['task_id']}" if r["task_id"] else "no task"
            # one finding per line: a reply's line breaks and tabs are shown, not obeyed
            msg = (r["message"] or "").replace("\r\n", "\n").replace("\n", " \u21b5 ").replace("\t", " ")
            msg = msg if len(msg) <= 140 else msg[:137] + "..."
            review = f"  [{marks.WORDS[r['mark']]}{': ' + r['mark_note'] if r['mark_note'] else ''}]" if r["mark"] else ""
            print(f"{when}  {r['severity']:<6} {r['rule_id']:<22} {where} conv {r['conversation_id']}"
                  + (f" #{r['seq']}" if r["seq"] is not None else "") + f"  {msg}{review}")
        print(f"{len(rows)} finding(s)", file=sys.stderr)
    return 0
