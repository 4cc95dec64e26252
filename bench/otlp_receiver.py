"""`trace-audit serve-otlp` as its own process on loopback, at full speed, per protocol.

    python bench/otlp.py --only receiver --spans 300000                  # all three protocols
    python bench/otlp.py --only receiver --protocols grpc,http/json

The receiver runs as the command users start (a subprocess bound to 127.0.0.1), so its CPU
is its own: read from /proc while it runs and from the kernel's accounting once it has exited.
--clients threads send the pre-encoded requests as fast as the answers come back, over one
keep-alive HTTP connection each (POST /v1/traces, protobuf or OTLP/JSON with hex ids) or one
gRPC channel each (TraceService/Export). "acknowledged": every request answered (spooled and
fsynced) without rejected spans; "loaded": the spool empty again, every span committed. The
warehouse is counted afterwards: every span stored once, one task per turn.

On a shared machine spans/s waits for other people's processes; spans per receiver CPU-second
does not, so both are printed, with the load average before and after.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from google.protobuf.json_format import MessageToDict

PROTOCOLS = ("http/protobuf", "http/json", "grpc")
CLI = [sys.executable, "-m", "trace_audit.cli.main"]
TICKS = os.sysconf("SC_CLK_TCK")


def json_body(request) -> bytes:
    """OTLP/JSON as the spec writes it: ids in hex (protobuf's JSON mapping gives base64)."""
    doc = MessageToDict(request)
    for rs in doc.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for span in ss.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if span.get(key):
                        span[key] = base64.b64decode(span[key]).hex()
    return json.dumps(doc).encode()


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a running process (its threads included)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_serve_otlp(db_path: Path, cwd: Path | None = None) -> tuple[subprocess.Popen, int, int]:
    """`trace-audit serve-otlp` on 127.0.0.1 with free HTTP and gRPC ports, returned once both listen:
    (process, HTTP port, gRPC port). RuntimeError, with its last words, when it does not start."""
    port, grpc_port = free_port(), free_port()
    recv = subprocess.Popen([*CLI, "serve-otlp", "--db", str(db_path), "--host", "127.0.0.1", "--port", str(port),
                             "--grpc-port", str(grpc_port), "--quiet"], cwd=cwd, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while True:
        try:
            for p in (port, grpc_port):
                socket.create_connection(("127.0.0.1", p), timeout=1).close()
            return recv, port, grpc_port
        except OSError:
            if recv.poll() is not None or time.monotonic() > deadline:
                recv.kill()
                raise RuntimeError(f"serve-otlp did not start: {recv.stderr.read() if recv.poll() is not None else ''}")
            time.sleep(0.1)


def _senders(protocol: str, port: int, grpc_port: int):
    """(open one client's connection, send one body on it -> ok, close it)."""
    if protocol == "grpc":
        import grpc

        def connect():
            channel = grpc.insecure_channel(f"127.0.0.1:{grpc_port}")
            return channel, channel.unary_unary("/opentelemetry.proto.collector.trace.v1.TraceService/Export")

        def send(conn, body: bytes) -> bool:
            return not conn[1](body, timeout=120)  # an empty answer: no partial success, every span taken

        return connect, send, lambda conn: conn[0].close()
    ctype = "application/json" if protocol == "http/json" else "application/x-protobuf"

    def send_http(conn, body: bytes) -> bool:
        conn.request("POST", "/v1/traces", body, {"Content-Type": ctype})
        resp = conn.getresponse()
        return resp.status == 200 and resp.read().strip() in (b"", b"{}")  # no partial success: every span taken

    return (lambda: http.client.HTTPConnection("127.0.0.1", port, timeout=120)), send_http, lambda conn: conn.close()


def bench_serve_otlp(requests, workdir: Path, clients: int, protocol: str, spans_per_turn: int) -> dict:
    import duckdb

    work = workdir / protocol.replace("/", "-")
    work.mkdir()
    db_path, spool = work / "receiver.duckdb", work / "receiver.duckdb.otlp-spool"
    bodies = [json_body(q) if protocol == "http/json" else q.SerializeToString() for q in requests]
    total = sum(len(ss.spans) for r in requests for rs in r.resource_spans for ss in rs.scope_spans)
    children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    recv, port, grpc_port = start_serve_otlp(db_path, cwd=work)
    connect, send, close = _senders(protocol, port, grpc_port)
    failed: list[int] = []

    def client(mine):
        conn = connect()
        for body in mine:
            if not send(conn, body):
                failed.append(1)
        close(conn)

    threads = [threading.Thread(target=client, args=(bodies[i::clients],)) for i in range(clients)]
    load_before = os.getloadavg()[0]
    cpu_ready = cpu_seconds(recv.pid)
    started, clients_cpu = time.perf_counter(), time.process_time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    acked, clients_cpu = time.perf_counter() - started, time.process_time() - clients_cpu
    cpu_acked = cpu_seconds(recv.pid) - cpu_ready
    while any(spool.glob("*.otlp.*")) and time.perf_counter() - started < 900:
        time.sleep(0.05)
    loaded = time.perf_counter() - started
    cpu_loaded = cpu_seconds(recv.pid) - cpu_ready
    load_after = os.getloadavg()[0]
    recv.send_signal(signal.SIGTERM)
    recv.wait(timeout=300)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    lifetime_cpu = (children.ru_utime - children_before.ru_utime) + (children.ru_stime - children_before.ru_stime)
    con = duckdb.connect(str(db_path), read_only=True)
    stored, distinct = con.execute("SELECT count(*), count(DISTINCT (trace_id, span_id)) FROM otel_spans").fetchall()[0]
    tasks = con.execute("SELECT count(*) FROM tasks").fetchall()[0][0]
    con.close()
    assert not failed, f"{len(failed)} requests not acknowledged whole"
    assert stored == distinct == total and tasks == total // spans_per_turn, (stored, distinct, total, tasks)
    return {"protocol": protocol, "spans": total, "requests": len(bodies), "acked_s": acked, "loaded_s": loaded,
            "cpu_acked": cpu_acked, "cpu_loaded": cpu_loaded, "cpu_lifetime": lifetime_cpu,
            "clients_cpu": clients_cpu, "load": (load_before, load_after)}


def report(results: list[dict], clients: int, batch: int) -> None:
    print(f"\nserve-otlp on 127.0.0.1, its own process; {clients} clients, {batch} spans a request, "
          f"{os.cpu_count()} cores")
    print("| protocol | spans | acknowledged | loaded end to end | receiver CPU s (acked / loaded / whole run) "
          "| spans per receiver CPU-s (loaded) | clients CPU s | load avg before / after |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for r in results:
        n = r["spans"]
        print(f"| {r['protocol']} | {n:,} | {n / r['acked_s']:,.0f} spans/s ({r['acked_s']:.2f} s) "
              f"| {n / r['loaded_s']:,.0f} spans/s ({r['loaded_s']:.2f} s) "
              f"| {r['cpu_acked']:.1f} / {r['cpu_loaded']:.1f} / {r['cpu_lifetime']:.1f} "
              f"| {n / r['cpu_loaded']:,.0f} | {r['clients_cpu']:.1f} | {r['load'][0]:.1f} / {r['load'][1]:.1f} |")
    print("receiver CPU: user + system of the serve-otlp process from when it listened (whole run: from its "
          "start to its exit, imports and the final shutdown included); clients CPU: this process's senders.")
