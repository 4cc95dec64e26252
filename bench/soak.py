#!/usr/bin/env python3
"""A bounded soak of the OTLP receiver on loopback, with readers and rule runs beside it.

    python bench/soak.py                      # 3 minutes at 20,000 spans/s
    python bench/soak.py --minutes 1 --rate 8000
    python bench/soak.py --protocol grpc      # the clients export over OTLP/gRPC instead of HTTP

For --minutes, client threads send protobuf requests of --batch spans to `trace-audit serve-otlp`
(POST /v1/traces, or the TraceService/Export gRPC call with --protocol grpc, one channel per client)
(a subprocess on 127.0.0.1 only) on a fixed schedule for --rate spans/s, while
  - a dashboard-like reader process opens the warehouse read-only in a loop and runs the overview
    kind of queries (it retries while a drain holds the write lock, as the dashboard does);
  - `trace-audit rules run` executes every --rules-every seconds.
Then the receiver is stopped (SIGTERM: it loads what is still spooled) and the warehouse is counted.

Reports: spans acknowledged (200 without rejected spans) vs stored (distinct spans in otel_spans:
must be equal), the rate actually offered, acknowledged and loaded, request latency p50/p99/max,
the spool backlog and the receiver's RSS over time, reader loops and rule runs that succeeded.
Every id is unique: each request is one template with a per-request 12-byte trace-id prefix.
It stops by itself: the send schedule ends at --minutes, the final drain is bounded by --drain-timeout.
"""

from __future__ import annotations

import argparse
import http.client
import os
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from otlp import build_requests  # noqa: E402 - the same realistic agent turns as bench/otlp.py
from otlp_receiver import start_serve_otlp  # noqa: E402 - serve-otlp started as bench/otlp.py starts it

CLI = [sys.executable, "-m", "trace_audit.cli.main"]
READER = r"""
import sys, time
from trace_audit.queries.warehouse import db
path, stop_at = sys.argv[1], float(sys.argv[2])
ok = busy = 0
while time.time() < stop_at:
    try:
        con = db.connect(path, read_only=True, wait_seconds=2)
    except (db.DatabaseBusy, db.DatabaseMissing):
        busy += 1
        time.sleep(0.2)
        continue
    try:
        con.execute("SELECT count(*), count(DISTINCT trace_id) FROM otel_spans").fetchall()
        con.execute("SELECT status, count(*) FROM tasks GROUP BY status").fetchall()
        con.execute("SELECT tool, avg(CASE WHEN verified THEN 1 ELSE 0 END) FROM steps GROUP BY tool").fetchall()
        con.execute("SELECT rule_id, count(*) FROM findings GROUP BY rule_id").fetchall()
        ok += 1
    finally:
        con.close()
    time.sleep(0.5)
print(ok, busy)
"""


def template(batch: int) -> tuple[bytes, bytes, int]:
    """One request of `batch` spans whose trace ids all start with a 12-byte marker; returns (body, marker, spans)."""
    req = build_requests(batch, batch)[0]
    marker = os.urandom(12)
    traces: dict[bytes, int] = {}
    n = 0
    for rs in req.resource_spans:
        for ss in rs.scope_spans:
            for span in ss.spans:
                idx = traces.setdefault(bytes(span.trace_id), len(traces))
                span.trace_id = marker + struct.pack(">I", idx)
                n += 1
    body = req.SerializeToString()
    assert body.count(marker) == n, "the marker must occur once per span"
    return body, marker, n


def rss_kb(pid: int) -> int:
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=3.0, help="how long to send (default 3)")
    ap.add_argument("--rate", type=int, default=20_000, help="spans per second offered (default 20000)")
    ap.add_argument("--batch", type=int, default=600, help="spans per request (default 600)")
    ap.add_argument("--clients", type=int, default=2, help="client threads (default 2)")
    ap.add_argument("--rules-every", type=float, default=30.0, help="seconds between `rules run` (default 30)")
    ap.add_argument("--drain-timeout", type=float, default=900.0, help="longest wait for the final load (s)")
    ap.add_argument("--protocol", choices=("http", "grpc"), default="http", help="how clients export (default http)")
    ap.add_argument("--workdir", default=None, help="where the warehouse goes (default: a temp folder)")
    args = ap.parse_args()

    work = Path(args.workdir or tempfile.mkdtemp(prefix="ta-soak-"))
    work.mkdir(parents=True, exist_ok=True)
    db_path = work / "soak.duckdb"
    spool = Path(str(db_path) + ".otlp-spool")
    body, marker, per_request = template(args.batch)
    try:
        recv, port, grpc_port = start_serve_otlp(db_path)
    except RuntimeError as exc:
        print(exc, file=sys.stderr)
        return 2

    duration = args.minutes * 60
    start = time.monotonic()
    stop_wall = time.time() + duration
    interval = per_request / args.rate * args.clients  # seconds between requests of one client
    lock = threading.Lock()
    latencies: list[float] = []
    acked = [0]
    failures: dict[int, int] = {}
    seq = [0]

    def http_send(conn, payload: bytes):
        try:
            conn.request("POST", "/v1/traces", payload, {"Content-Type": "application/x-protobuf"})
            resp = conn.getresponse()
            return conn, resp.status, resp.read()
        except OSError:
            conn.close()
            return http.client.HTTPConnection("127.0.0.1", port, timeout=60), -1, b""

    def grpc_send(export, payload: bytes):
        import grpc

        try:
            return export, 200, export(payload, timeout=60)  # 200: OK, to count alike
        except grpc.RpcError as err:
            return export, f"grpc {err.code().name}", b""

    def client(k: int) -> None:
        if args.protocol == "grpc":
            import grpc

            channel = grpc.insecure_channel(f"127.0.0.1:{grpc_port}")
            conn, send = channel.unary_unary("/opentelemetry.proto.collector.trace.v1.TraceService/Export"), grpc_send
        else:
            channel, conn, send = None, http.client.HTTPConnection("127.0.0.1", port, timeout=60), http_send
        i = 0
        while True:
            due = start + k * interval / args.clients + i * interval
            if due - start >= duration:
                break
            pause = due - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            with lock:
                seq[0] += 1
                n = seq[0]
            payload = body.replace(marker, struct.pack(">QI", n, 0x5A5A5A5A))
            t0 = time.monotonic()
            conn, status, answer = send(conn, payload)
            took = time.monotonic() - t0
            with lock:
                latencies.append(took)
                if status == 200 and b"\x0a" not in answer[:1]:  # no partial_success: every span accepted
                    acked[0] += per_request
                else:
                    failures[status] = failures.get(status, 0) + 1
            i += 1
        (channel or conn).close()

    reader = subprocess.Popen([sys.executable, "-c", READER, str(db_path), str(stop_wall)],
                              stdout=subprocess.PIPE, text=True)
    threads = [threading.Thread(target=client, args=(k,), daemon=True) for k in range(args.clients)]
    for t in threads:
        t.start()

    samples = []  # (seconds, receiver RSS MiB, spool backlog MiB, acknowledged so far)
    rules = {"ok": 0, "failed": 0}
    next_rules = start + args.rules_every
    while any(t.is_alive() for t in threads):
        time.sleep(1)
        now = time.monotonic()
        backlog = sum(p.stat().st_size for p in spool.glob("*.otlp.*") if p.exists()) if spool.exists() else 0
        samples.append((now - start, rss_kb(recv.pid) / 1024, backlog / 2**20, acked[0]))
        if now >= next_rules:
            r = subprocess.run([*CLI, "rules", "run", "--db", str(db_path)], capture_output=True, text=True)
            rules["ok" if r.returncode in (0, 1) else "failed"] += 1
            if r.returncode not in (0, 1):
                print(f"rules run exit {r.returncode}: {r.stderr.strip()[:300]}", file=sys.stderr)
            next_rules = time.monotonic() + args.rules_every
    sent_for = time.monotonic() - start

    recv.send_signal(signal.SIGTERM)  # loads what is spooled, then exits
    try:
        recv.wait(timeout=args.drain_timeout)
    except subprocess.TimeoutExpired:
        recv.kill()
        print("the final drain did not finish in time", file=sys.stderr)
    drained_at = time.monotonic() - start
    reader_out = reader.communicate(timeout=120)[0].split()
    import duckdb

    con = duckdb.connect(str(db_path), read_only=True)
    stored, distinct = con.execute("SELECT count(*), count(DISTINCT (trace_id, span_id)) FROM otel_spans").fetchall()[0]
    con.close()

    lat = sorted(latencies)
    p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] * 1000 if lat else float("nan")  # noqa: E731
    rss = [s[1] for s in samples]
    print()
    print(f"soak: {args.minutes:g} min at {args.rate:,} spans/s offered, {args.batch} spans/request, "
          f"{args.clients} {args.protocol} clients, loopback 127.0.0.1:{grpc_port if args.protocol == 'grpc' else port}")
    print("| measure | value |\n|---|---|")
    print(f"| requests sent | {len(lat):,} (failed: {failures or 'none'}) |")
    print(f"| spans acknowledged | {acked[0]:,} |")
    print(f"| spans stored (distinct) | {stored:,} ({distinct:,}) |")
    print(f"| acknowledged == stored | {'yes' if acked[0] == stored == distinct else 'NO'} |")
    print(f"| acknowledged rate | {acked[0] / sent_for:,.0f} spans/s |")
    print(f"| end-to-end rate (until all stored) | {stored / drained_at:,.0f} spans/s |")
    print(f"| final drain after the last request | {drained_at - sent_for:.0f} s |")
    print(f"| request latency p50 / p99 / max | {p(0.5):.1f} / {p(0.99):.1f} / {lat[-1] * 1000 if lat else 0:.1f} ms |")
    print(f"| receiver RSS min / max / last | {min(rss, default=0):.0f} / {max(rss, default=0):.0f} / "
          f"{rss[-1] if rss else 0:.0f} MiB |")
    print(f"| reader loops ok / busy retries | {reader_out[0] if reader_out else '?'} / "
          f"{reader_out[1] if len(reader_out) > 1 else '?'} |")
    print(f"| rules run ok / failed | {rules['ok']} / {rules['failed']} |")
    print()
    print("| t (s) | receiver RSS (MiB) | spool backlog (MiB) | acknowledged spans |\n|---|---|---|---|")
    step = max(1, len(samples) // 12)
    for t, r, b, a in samples[::step]:
        print(f"| {t:.0f} | {r:.0f} | {b:.1f} | {a:,} |")
    return 0 if acked[0] == stored == distinct else 1


if __name__ == "__main__":
    sys.exit(main())
