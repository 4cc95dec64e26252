"""`trace-audit dashboard [--db] [--port] [--host] [--tz]`"""

from __future__ import annotations

from trace_audit.cli.main import add_db_option


def register(sub) -> None:
    p = sub.add_parser("dashboard", help="serve the dashboard (Streamlit) on a database",
                       description="Serve the trace-audit dashboard for a warehouse. The database is opened "
                                   "read-only, so ingests and rule runs can go on while it is open.")
    add_db_option(p)
    p.add_argument("--port", type=int, default=8501, help="port (default 8501)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0 for all)")
    p.add_argument("--tz", default=None, help="timezone for days and times, e.g. Asia/Shanghai (default $TRACE_AUDIT_TZ or UTC)")
    p.set_defaults(run=run)


def run(args) -> int:
    from trace_audit.cli.errors import UserError
    from trace_audit.dashboard.serve import serve
    from trace_audit.queries import db

    path = args.db or db.default_db_path()
    if args.tz:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            ZoneInfo(args.tz)
        except (ZoneInfoNotFoundError, ValueError):
            raise UserError(f"unknown timezone {args.tz!r}; use an IANA name such as UTC or Asia/Shanghai") from None
    return serve(path, port=args.port, host=args.host, tz=args.tz)
