"""`trace-audit dashboard [--db] [--port] [--host --allow-remote] [--auth] [--password-file] [--tz]`"""

from __future__ import annotations

import argparse

from .options import add_db_option, zone, port

ACCESS_HELP = """access: the dashboard shows every user's conversations, so it listens on
127.0.0.1 only. To serve other machines, pass --host ADDRESS --allow-remote
and an authentication method:
  password  $TRACE_AUDIT_DASHBOARD_PASSWORD, --password-file FILE, or
            dashboard_password under [trace_audit] in .streamlit/secrets.toml
  oidc      Streamlit's OpenID Connect login: [auth] in .streamlit/secrets.toml
            (pip install "streamlit[auth]")
Without one, a non-local address is refused."""


def register(sub) -> None:
    p = sub.add_parser("dashboard", help="serve the dashboard (Streamlit) on a database",
                       description="Serve the trace-audit dashboard for a warehouse. The database is opened "
                                   "read-only, so ingests and rule runs can go on while it is open.",
                       epilog=ACCESS_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_db_option(p)
    p.add_argument("--port", type=port, default=8501, help="port (default 8501)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; any other needs --allow-remote and --auth)")
    p.add_argument("--allow-remote", action="store_true",
                   help="allow an address beyond this machine (requires an authentication method)")
    p.add_argument("--auth", choices=["password", "oidc", "none"], default=None,
                   help="how visitors sign in (default: password when one is configured, else oidc when "
                        "[auth] is configured and the address is remote, else none; none only on loopback)")
    p.add_argument("--password-file", default=None, metavar="FILE",
                   help="file holding the dashboard password (else $TRACE_AUDIT_DASHBOARD_PASSWORD or secrets)")
    p.add_argument("--tz", default=None, type=zone, help="timezone for days and times, e.g. Asia/Shanghai (default $TRACE_AUDIT_TZ or UTC)")
    p.set_defaults(run=run)


def run(args) -> int:
    import os

    from .errors import UserError
    from ..dashboard import auth
    from ..dashboard.serve import serve
    from ..queries.warehouse import db

    env = dict(os.environ)
    if args.password_file:
        env[auth.PASSWORD_FILE_ENV] = args.password_file
        os.environ[auth.PASSWORD_FILE_ENV] = args.password_file  # handed on to the server process
    secrets = auth.secrets_files()
    try:
        access = auth.resolve(args.host, args.allow_remote, args.auth, env, auth.read_secrets(secrets))
    except auth.AuthProblem as exc:
        raise UserError(str(exc)) from None
    path = db.require(args.db)  # after the access checks: a remote bind without auth is refused first
    return serve(path, port=args.port, host=args.host, tz=args.tz, access=access,
                 secrets=[f for f in secrets if f.is_file()])
