"""Faults: a full disk during ingest, and a receiver SIGKILLed while it is draining its spool into DuckDB."""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import duckdb
import pytest

CLI = [sys.executable, "-m", "trace_audit.cli.main"]


def _rows(db_path: Path, sql: str) -> list[tuple]:
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


# ---- a full disk --------------------------------------------------------------------------

@pytest.fixture
def small_disk(tmp_path):
    """A 5 MiB tmpfs (needs root and permission to mount; skipped otherwise, see docs/trust.md)."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    out = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=5m", "tmpfs", str(mnt)], capture_output=True, text=True)
    if out.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({out.stderr.strip() or out.returncode})")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def _steps(path: Path, n: int, prefix: str) -> Path:
    with open(path, "w") as f:
        for i in range(n):
            # Random text: DuckDB cannot compress it away, so the disk really fills.
            f.write(json.dumps({"record": "step", "task_id": f"{prefix}{i}", "seq": 1, "tool": "create_reminder",
                                "error": base64.b64encode(os.urandom(150)).decode()}) + "\n")
    return path


def test_a_full_disk_is_a_clear_error_and_the_database_keeps_what_it_had(tmp_path, small_disk):
    db_path = small_disk / "w.duckdb"
    first = _steps(tmp_path / "first.jsonl", 50, "a")
    big = _steps(tmp_path / "big.jsonl", 100_000, "b")  # ~25 MB: cannot fit in 5 MiB
    after = _steps(tmp_path / "after.jsonl", 5, "c")
    assert subprocess.run([*CLI, "ingest", "--db", str(db_path), str(first)], capture_output=True).returncode == 0
    out = subprocess.run([*CLI, "ingest", "--db", str(db_path), str(big), str(after)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 2, out.stdout + out.stderr
    assert "the disk is full; free space and ingest again" in out.stdout
    assert "internal error" not in out.stderr and "Traceback" not in out.stderr
    # Consistent, with exactly its previous contents.
    assert _rows(db_path, "SELECT count(*), count(DISTINCT task_id) FROM steps") == [(50, 50)]
    assert _rows(db_path, "SELECT count(*) FROM ingest_files") == [(1,)]
    # Free space (here: move the database to a roomy disk) and ingest again: everything loads once.
    roomy = tmp_path / "w.duckdb"
    for f in small_disk.iterdir():
        shutil.copy2(f, tmp_path / f.name)  # keeps the redaction key file owner-only
    out = subprocess.run([*CLI, "ingest", "--db", str(roomy), str(big), str(after)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert _rows(roomy, "SELECT count(*), count(DISTINCT task_id) FROM steps") == [(100_055, 100_055)]


# ---- a receiver killed mid-drain ----------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(db_path: Path, port: int) -> subprocess.Popen:
    proc = subprocess.Popen([*CLI, "serve-otlp", "--db", str(db_path), "--port", str(port), "--drain-interval", "0.5",
                             "--no-grpc", "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1).read()
            return proc
        except OSError:
            assert proc.poll() is None, proc.stderr.read()
            assert time.monotonic() < deadline, "serve-otlp did not start"
            time.sleep(0.1)


def _request(batch: int, n: int) -> bytes:
    # Ids never all zeros (those are rejected as invalid, rightly).
    spans = [{"traceId": f"{batch + 1:016x}{i // 10 + 1:016x}", "spanId": f"{batch + 1:08x}{i:08x}", "name": f"s{i}",
              "startTimeUnixNano": str(1_793_552_352_000_000_000 + i), "endTimeUnixNano": str(1_793_552_353_000_000_000 + i),
              "attributes": [{"key": "k", "value": {"stringValue": "v" * 40}}]} for i in range(n)]
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).encode()


def _post(port: int, body: bytes) -> int:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/traces", data=body, method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.status


def test_a_receiver_killed_while_draining_loses_and_duplicates_nothing(tmp_path):
    db_path = tmp_path / "w.duckdb"
    spool = Path(str(db_path) + ".otlp-spool")
    port = _free_port()
    acknowledged: set[str] = set()
    kills_mid_drain = 0
    for round_ in range(3):
        proc = _serve(db_path, port)
        try:
            for b in range(round_ * 40, round_ * 40 + 40):  # 40 requests of 500 spans, all acknowledged
                assert _post(port, _request(b, 500)) == 200
                acknowledged.update(f"{b + 1:08x}{i:08x}" for i in range(500))
            # Wait for the drainer to take sealed segments into DuckDB, then kill it there.
            deadline = time.monotonic() + 30
            while not list(spool.glob("ready-*")):
                assert time.monotonic() < deadline, "the drainer never started"
                time.sleep(0.005)
            kills_mid_drain += 1
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
    assert kills_mid_drain == 3
    proc = _serve(db_path, port)  # drains what is left before it listens
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
    stored = _rows(db_path, "SELECT count(*), count(DISTINCT span_id) FROM otel_spans")[0]
    assert stored == (len(acknowledged), len(acknowledged)), "lost or duplicated spans"
    got = {r[0] for r in _rows(db_path, "SELECT span_id FROM otel_spans")}
    assert got == acknowledged
    assert list(spool.glob("*.otlp.*")) == [] and not (spool / "failed").exists()
