"""Receiver limits over real sockets: other methods get 405 with Allow, slow clients time out,
and connections past the cap are answered 503 at once instead of holding a thread each."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time

import pytest

from trace_audit.ingest.receive.receiver import Receiver, ReceiverConfig


@pytest.fixture
def receiver(tmp_path):
    r = Receiver(ReceiverConfig(db_path=str(tmp_path / "w.duckdb"), spool_dir=str(tmp_path / "spool"), port=0,
                                grpc_port=None, drain=False, max_connections=4, idle_timeout=1.5)).start()
    yield r
    r.stop()


def _addr(r):
    return r.httpd.server_address[:2]


@pytest.mark.parametrize("method, path, allow", [
    ("PUT", "/v1/traces", "POST"), ("DELETE", "/v1/traces", "POST"), ("PATCH", "/v1/traces", "POST"),
    ("FOO", "/v1/traces", "POST"), ("DELETE", "/", "GET"),
])
def test_other_methods_get_405_with_allow(receiver, method, path, allow):
    conn = http.client.HTTPConnection(*_addr(receiver), timeout=10)
    conn.request(method, path, body=b"{}", headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    body = resp.read()
    assert resp.status == 405 and resp.getheader("Allow") == allow
    assert resp.getheader("Content-Type") == "application/json" and method in json.loads(body)["message"]


def test_a_client_that_stops_mid_header_is_dropped_after_the_idle_timeout(receiver):
    s = socket.create_connection(_addr(receiver), timeout=10)
    s.sendall(b"POST /v1/traces HTTP/1.1\r\nContent-Type: application/json\r\n")  # and nothing more
    started = time.monotonic()
    assert s.recv(1000) == b""  # closed by the receiver
    assert time.monotonic() - started < 5
    s.close()


def test_connections_past_the_cap_get_503_and_threads_stay_bounded(receiver):
    base = threading.active_count()
    slow = [socket.create_connection(_addr(receiver), timeout=10) for _ in range(20)]
    for s in slow:
        s.sendall(b"POST /v1/traces HTTP/1.1\r\n")
    time.sleep(0.3)
    assert threading.active_count() <= base + 4
    # answered at once, before the client has sent anything (a request's body would meet a closed socket)
    extra = socket.create_connection(_addr(receiver), timeout=10)
    answer = extra.makefile("rb").read()
    extra.close()
    assert answer.startswith(b"HTTP/1.1 503 ") and b"Retry-After: 1" in answer and b"too many" in answer
    time.sleep(2.5)  # the slow ones time out and free their slots
    conn = http.client.HTTPConnection(*_addr(receiver), timeout=10)
    conn.request("POST", "/v1/traces", body=b"{}", headers={"Content-Type": "application/json"})
    assert conn.getresponse().status == 200
    for s in slow:
        s.close()
