"""Start the dashboard: `streamlit run` on the packaged entry script, headless.

The database path travels in $TRACE_AUDIT_DB (the same variable every other
command reads), made absolute so the server can start from any folder.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from importlib import resources
from pathlib import Path


def app_path() -> str:
    return str(resources.files("trace_audit.dashboard").joinpath("app.py"))


def command(port: int = 8501, host: str = "127.0.0.1") -> list[str]:
    return [
        sys.executable, "-m", "streamlit", "run", app_path(),
        "--server.headless", "true",
        "--server.port", str(port),
        "--server.address", host,
        "--browser.gatherUsageStats", "false",
        "--server.fileWatcherType", "none",
        "--global.showWarningOnDirectExecution", "false",
        "--theme.base", "light",
    ]


def environment(db_path: str, tz: str | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["TRACE_AUDIT_DB"] = str(Path(db_path).expanduser().resolve())
    if tz:
        env["TRACE_AUDIT_TZ"] = tz
    env.setdefault("STREAMLIT_BROWSER_GATHER_USAGE_STATS", "false")
    return env


def serve(db_path: str, port: int = 8501, host: str = "127.0.0.1", tz: str | None = None) -> int:
    """Run the dashboard until interrupted; returns streamlit's exit code."""
    env = environment(db_path, tz)
    print(f"trace-audit dashboard: http://{'localhost' if host in ('127.0.0.1', '0.0.0.0') else host}:{port}"
          f"  (database {env['TRACE_AUDIT_DB']}; Ctrl+C to stop)", flush=True)
    proc = subprocess.Popen(command(port, host), env=env, cwd=str(Path(app_path()).parent))
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
