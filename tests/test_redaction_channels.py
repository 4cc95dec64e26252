"""Channels a value can reach storage or a terminal through, beside the warehouse's columns."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from test_ingest_support import step, task

CLI = [sys.executable, "-c", "import sys; from trace_audit.cli.main import main; sys.exit(main())"]


def test_a_killed_ingest_of_stdin_leaves_no_copy_of_it(tmp_path):
    # Standard input is copied so it can be hashed and re-read; that copy holds the input before
    # redaction. It has no name at any moment, so SIGKILL mid-read leaves nothing behind.
    spool = tmp_path / "tmp"
    spool.mkdir()
    proc = subprocess.Popen(CLI + ["ingest", "-", "--db", str(tmp_path / "w.duckdb")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "TMPDIR": str(spool)})
    try:
        secret = "alice.stdin@example.com"
        proc.stdin.write((json.dumps(task(1, goal=f"mail {secret}")) + "\n").encode())
        proc.stdin.flush()
        deadline = time.monotonic() + 30
        held = []
        while time.monotonic() < deadline and not held:  # wait until the copy is open and holds the line
            fds = f"/proc/{proc.pid}/fd"
            held = [os.readlink(f"{fds}/{fd}") for fd in os.listdir(fds)
                    if str(spool) in os.readlink(f"{fds}/{fd}")] if os.path.isdir(fds) else []
            time.sleep(0.05)
        assert held, "the ingest never opened its copy of stdin"
        assert all("(deleted)" in h or "#" in h for h in held), held  # open, but with no name
        assert list(spool.iterdir()) == []
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for f in (proc.stdin, proc.stdout, proc.stderr):
            f.close()
    assert list(spool.iterdir()) == []


def test_ingest_of_stdin_still_loads_and_dedupes(tmp_path):
    db_path = str(tmp_path / "w.duckdb")
    spool = tmp_path / "tmp"
    spool.mkdir()
    data = "\n".join(json.dumps(r) for r in [task(1), step(1, 1)]) + "\n"
    env = {**os.environ, "TMPDIR": str(spool)}
    for expected in ("loaded   <stdin>", "same content as <stdin>"):
        proc = subprocess.run(CLI + ["ingest", "-", "--db", db_path], input=data.encode(), capture_output=True,
                              env=env)
        assert proc.returncode == 0, proc.stderr
        assert expected in proc.stdout.decode()
    dry = subprocess.run(CLI + ["ingest", "-", "--redaction-report"], input=data.encode(), capture_output=True,
                         env=env)
    assert dry.returncode == 0, dry.stderr
    assert list(spool.iterdir()) == []  # the dry run used to leave its copy of stdin behind
