"""`trace-audit report [--week 2026-W47] [--format md|html] [--out F]`"""

from __future__ import annotations

import sys

from .options import add_db_option, zone


def register(sub) -> None:
    p = sub.add_parser("report", help="the weekly reliability review (Markdown or self-contained HTML)",
                       description="One ISO week against the week before: incidents, verified rate, stuck turns, "
                                   "worst tools, new error patterns, tools whose rates rose significantly (and the "
                                   "agent version the rise started with), rule-run health.")
    add_db_option(p)
    p.add_argument("--week", default=None, help="ISO week, e.g. 2026-W47 (default: the week of the newest turn)")
    p.add_argument("--format", choices=("md", "html"), default=None, help="default: from --out's suffix, else md")
    p.add_argument("--out", default=None, metavar="FILE", help="write here instead of standard output")
    p.add_argument("--tz", default=None, type=zone, help="timezone of the week's days (default $TRACE_AUDIT_TZ, else the zone "
                   "the data was ingested in, as the dashboard does)")
    p.add_argument("--rule-run", dest="rule_run", default=None, help="rule run id (default: the newest)")
    p.add_argument("--dashboard-url", default=None,
                   help="base URL for links to the investigation view ('' for no links; default "
                        "$TRACE_AUDIT_DASHBOARD_URL, else http://localhost:8501)")
    p.set_defaults(run=run)


def run(args) -> int:
    import os

    from .errors import UserError
    from ..queries import dashboard_queries as dq
    from ..queries.warehouse import db
    from ..queries.warehouse.zones import check_zone
    from ..dashboard import report

    fmt = args.format or ("html" if (args.out or "").lower().endswith((".html", ".htm")) else "md")
    try:
        env_tz = os.environ.get("TRACE_AUDIT_TZ")
        explicit = args.tz or (check_zone(env_tz, option="TRACE_AUDIT_TZ") if env_tz else None)
        tz = explicit or "UTC"
        if args.week is not None:
            since, until = dq.iso_week_bounds(args.week)
            dq.Filters(since=since, until=until, tz=tz)
    except ValueError as exc:
        raise UserError(str(exc).splitlines()[-1] if "validation error" in str(exc) else str(exc)) from None
    con = db.connect(args.db, read_only=True, wait_seconds=10)
    try:
        if args.rule_run and not con.execute("SELECT 1 FROM rule_runs WHERE run_id = ?", [args.rule_run]).fetchall():
            raise UserError(f"no rule run {args.rule_run!r} in {args.db or db.default_db_path()}; "
                            "list them on the dashboard's Rules page")
        tz = dq.default_zone(con, explicit)  # the dashboard's default too: both count the same days
        week = args.week
        if week is None:  # said, as `rules run` says the --now it chose
            week = dq.newest_week(con, tz)
            print(f"--week not given: reporting {week}, the week of the newest turn ({tz})", file=sys.stderr)
        rep = report.build_weekly(con, week, tz=tz, run_id=args.rule_run)
    finally:
        con.close()
    base = (report.dashboard_url() if args.dashboard_url is None else args.dashboard_url) or None
    text = report.to_html(rep, base) if fmt == "html" else report.to_markdown(rep, base)
    if args.out:
        try:
            with open(args.out, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            raise UserError(f"cannot write {args.out}: {exc.strerror}") from None
        print(f"wrote {args.out} ({fmt}, {len(text):,} bytes): {rep.title}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
