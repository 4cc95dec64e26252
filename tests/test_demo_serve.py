"""`trace-audit demo` as a newcomer runs it: builds the sample month and serves a healthy dashboard
(part of .ci/run's lowest-versions smoke set)."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
import urllib.request


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_demo_builds_and_serves_a_healthy_dashboard(tmp_path):
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "trace_audit.cli.main", "demo", "--db", str(tmp_path / "d.duckdb"),
                             "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            cwd=tmp_path)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                    assert r.read() == b"ok"
                    break
            except OSError:
                assert proc.poll() is None, proc.stdout.read()
                assert time.monotonic() < deadline, "the demo dashboard did not start"
                time.sleep(0.5)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
            assert r.status == 200 and b"<html" in r.read().lower()
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
    assert "sample month loaded:" in out and "findings" in out
