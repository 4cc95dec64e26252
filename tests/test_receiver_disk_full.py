"""The warehouse's disk fills while the receiver runs, then is freed: nothing acknowledged is lost.

A real tmpfs holds the database (needs root to mount; skipped otherwise), the spool sits on a
roomy disk. While loads fail, segments stay in the spool and are retried with backoff; once the
spool passes its bound the receiver answers 503 with Retry-After. Space is then freed (the tmpfs
remounted larger) and every span that got a 200 must be stored, once.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from trace_audit.ingest.receive.receiver import Receiver, ReceiverConfig
from trace_audit.ingest.receive.spool import backlog
from trace_audit.queries.warehouse import db

TRACE = "5b8efff798038103d269b633813fc60c"


@pytest.fixture
def small_disk(tmp_path):
    mnt = tmp_path / "small"
    mnt.mkdir()
    out = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mnt)], capture_output=True, text=True)
    if out.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({out.stderr.strip() or out.returncode})")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def _request(first: int, n: int) -> bytes:
    spans = [{"traceId": TRACE, "spanId": f"{i:016x}", "name": "work", "startTimeUnixNano": str(10**18 + i),
              # random text: DuckDB cannot compress it away, so the disk really fills
              "attributes": [{"key": "blob", "value": {"stringValue": base64.b64encode(os.urandom(3000)).decode()}}]}
             for i in range(first, first + n)]
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).encode()


def _post(url: str, body: bytes) -> tuple[int, str | None]:
    req = urllib.request.Request(url + "/v1/traces", data=body, method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            resp.read()
            return resp.status, None
    except urllib.error.HTTPError as err:
        err.read()
        return err.code, err.headers.get("Retry-After")


def test_disk_full_then_freed_loses_no_acknowledged_span(tmp_path, small_disk):
    db_path = small_disk / "w.duckdb"
    spool = tmp_path / "spool"
    r = Receiver(ReceiverConfig(db_path=str(db_path), spool_dir=str(spool), port=0, drain_interval=0.1,
                                max_backoff=0.4, max_spool_bytes=3 * 1024 * 1024)).start()
    acked: set[int] = set()
    answers: list[tuple[int, str | None]] = []
    try:
        first = 1
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            status, retry_after = _post(r.url, _request(first, 100))
            answers.append((status, retry_after))
            if status == 200:
                acked.update(range(first, first + 100))
            first += 100
            if status == 503:
                if sum(1 for s, _ in answers if s == 503) >= 3:
                    break
                time.sleep(0.3)  # the drainer keeps retrying meanwhile
            time.sleep(0.02)
        assert (503, "5") in answers, f"no 503 with Retry-After: {answers[-5:]}"
        assert r.stats.failed_drains > 0 and "disk is full" in (r.stats.last_error or "")
        waiting, size, failed = backlog(spool)
        assert waiting > 0 and failed == 0
        # free the space: the drainer's next retry stores the backlog
        subprocess.run(["mount", "-o", "remount,size=512m", str(small_disk)], check=True)
        deadline = time.monotonic() + 90
        while backlog(spool)[0] and time.monotonic() < deadline:
            time.sleep(0.2)
        assert backlog(spool)[0] == 0, "the spool was not loaded after space was freed"
        assert r.stats.failed_drains == 0
        assert _post(r.url, _request(first, 10))[0] == 200  # 200 again once the warehouse takes writes
        acked.update(range(first, first + 10))
    finally:
        r.stop()
    con = db.connect(str(db_path), read_only=True)
    try:
        stored = con.execute("SELECT span_id, count(*) FROM otel_spans GROUP BY span_id").fetchall()
    finally:
        con.close()
    assert all(n == 1 for _, n in stored), "a span stored twice"
    assert {int(s, 16) for s, _ in stored} == acked
