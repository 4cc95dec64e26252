"""Start the dashboard: `streamlit run` on the packaged entry script, headless.

The database path travels in $TRACE_AUDIT_DB (the same variable every other
command reads), made absolute so the server can start from any folder. The
access decision (see `auth.resolve`) travels in $TRACE_AUDIT_DASHBOARD_AUTH.
Streamlit starts in the package folder, so the secrets files of the folder
the user started in are named to it explicitly.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from importlib import resources
from pathlib import Path

from .net import is_loopback
from . import auth


def app_path() -> str:
    return str(resources.files("trace_audit.dashboard").joinpath("app.py"))


def command(port: int = 8501, host: str = "127.0.0.1", secrets: list[Path] | None = None) -> list[str]:
    cmd = [
        sys.executable, "-m", "streamlit", "run", app_path(),
        "--server.headless", "true",
        "--server.port", str(port),
        "--server.address", host,
        "--browser.gatherUsageStats", "false",
        "--server.fileWatcherType", "none",
        "--global.showWarningOnDirectExecution", "false",
        "--theme.base", "light",
        "--client.toolbarMode", "viewer",  # no "Deploy" button: this is a local tool
    ]
    for f in secrets or []:
        cmd += ["--secrets.files", str(f)]
    return cmd


def environment(db_path: str, tz: str | None = None, access: auth.Access | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["TRACE_AUDIT_DB"] = str(Path(db_path).expanduser().resolve())
    if tz:
        env["TRACE_AUDIT_TZ"] = tz
    env[auth.MODE_ENV] = access.mode if access else "none"
    if env.get(auth.PASSWORD_FILE_ENV):
        env[auth.PASSWORD_FILE_ENV] = str(Path(env[auth.PASSWORD_FILE_ENV]).expanduser().resolve())
    env.setdefault("STREAMLIT_BROWSER_GATHER_USAGE_STATS", "false")
    return env


def serve(db_path: str, port: int = 8501, host: str = "127.0.0.1", tz: str | None = None,
          access: auth.Access | None = None, secrets: list[Path] | None = None) -> int:
    """Run the dashboard until interrupted; returns streamlit's exit code."""
    access = access or auth.Access("none", remote=not is_loopback(host))
    env = environment(db_path, tz, access)
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::") else host
    print(f"trace-audit dashboard: http://{shown}:{port}"
          f"  (database {env['TRACE_AUDIT_DB']}; access: {access.mode}; Ctrl+C to stop)", flush=True)
    if access.remote:
        print(f"trace-audit: warning: serving on {host}, beyond this machine, guarded by {access.mode} login; "
              "traffic is plain HTTP: put a TLS-terminating proxy in front of it", file=sys.stderr, flush=True)
    proc = subprocess.Popen(command(port, host, secrets), env=env, cwd=str(Path(app_path()).parent))
    # A SIGTERM to us (service manager, test harness) must not orphan the server.
    previous = signal.signal(signal.SIGTERM, lambda *_: proc.terminate())
    try:
        return proc.wait()
    except KeyboardInterrupt:
        proc.terminate()
        try:
            return proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            return proc.wait()
    finally:
        signal.signal(signal.SIGTERM, previous)
