"""`trace-audit explain TASK_ID [--now TS] [--run ID]`"""

from __future__ import annotations

from .errors import UserError
from .options import add_db_option


def register(sub) -> None:
    p = sub.add_parser("explain", help="one turn: every rule's verdict, the decision, reply, steps and audit rows")
    add_db_option(p)
    p.add_argument("task_id")
    p.add_argument("--now", help="evaluate as of this time (default: the wall clock)")
    p.add_argument("--run", dest="run_id", default=None, help="show a stored run's findings instead of evaluating live")
    p.add_argument("--config", metavar="FILE")
    p.add_argument("--rules-dir", metavar="DIR")
    p.set_defaults(run=run)


def run(args) -> int:
    from .cmd_rules import _plan_errors, parse_ts
    from ..queries.warehouse import db
    from ..queries.explain import TaskNotFound, explain, render_text
    from ..queries.runs import RunNotFound

    con = db.connect(args.db, read_only=True, wait_seconds=5)
    try:
        try:
            e = explain(con, args.task_id, now=parse_ts(args.now, "--now"), config=args.config,
                        run_id=args.run_id, rules_dir=args.rules_dir)
        except (TaskNotFound, RunNotFound, *_plan_errors()) as exc:
            raise UserError(str(exc)) from None
    finally:
        con.close()
    print(render_text(e))
    return 0
