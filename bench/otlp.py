#!/usr/bin/env python3
"""OTLP throughput: spans/s from files and through the live receiver.

    python bench/otlp.py                 # 100k spans (default)
    python bench/otlp.py --spans 500000  # more

Builds synthetic agent turns (invoke_agent + chat + 3 execute_tool + chat =
6 spans, GenAI attributes of realistic size) as OTLP protobuf requests of
--batch spans, then measures:

  reader/pb    the reader alone: framing + decoding the length-prefixed protobuf file
               to Arrow rows, in the loader's two threads (framing a frame ahead of
               decoding); nothing redacted or stored
  file/pb      `ingest` of that file, end to end (decode + redact + store + derive + commit)
  spans/pb     `ingest` with the derivation of tasks, steps and messages switched off
  floor/pb     spans/pb plus DuckDB alone deriving rows the cheapest way (each span's
               attributes parsed once, a row written per step, task and message, no
               rules), committed: a lower bound for file/pb on this machine
  reader/json, file/json, spans/json, floor/json   the same for the same spans as OTLP/JSON lines
  receiver     the pre-encoded requests sent by --clients threads to `serve-otlp`, started
               as its own process on 127.0.0.1, once per protocol (--protocols: OTLP/HTTP
               protobuf, OTLP/HTTP JSON, OTLP/gRPC); acknowledged = spooled + fsynced, then
               loaded = until every span is in the warehouse; the receiver's own CPU time
               beside (bench/otlp_receiver.py)

Correctness with the real SDK exporter is covered by tests/test_otlp_receiver.py;
here raw clients keep the client's own cost out of the figure.
Numbers on a shared machine are noisy: spans per CPU-second is the steadier figure there.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import struct
import sys
import tempfile
import time
from pathlib import Path

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import KeyValue

sys.path.insert(0, str(Path(__file__).resolve().parent))
from otlp_receiver import PROTOCOLS, bench_serve_otlp, report  # noqa: E402 - serve-otlp in its own process

SPANS_PER_TURN = 6
T0 = 1_794_000_000_000_000_000


def _kv(key, value) -> KeyValue:
    kv = KeyValue(key=key)
    if isinstance(value, bool):
        kv.value.bool_value = value
    elif isinstance(value, int):
        kv.value.int_value = value
    else:
        kv.value.string_value = value
    return kv


def build_requests(n_spans: int, batch: int, seed: int = 7) -> list[ExportTraceServiceRequest]:
    rng = random.Random(seed)
    requests = []
    current = None
    spans_in = 0
    turn = 0
    while turn * SPANS_PER_TURN < n_spans:
        if current is None or spans_in >= batch:
            current = ExportTraceServiceRequest()
            rs = current.resource_spans.add()
            rs.resource.attributes.extend([_kv("service.name", "bench-agent"), _kv("service.version", "2.4.0")])
            scope = rs.scope_spans.add()
            scope.scope.name = "bench"
            requests.append(current)
            spans_in = 0
        trace_id = rng.randbytes(16)
        agent_id = rng.randbytes(8)
        t = T0 + turn * 10_000_000_000
        spans = current.resource_spans[0].scope_spans[0].spans

        def add(name, span_id, parent, start, end, attrs, error=False):
            s = spans.add()
            s.trace_id, s.span_id, s.name = trace_id, span_id, name
            if parent:
                s.parent_span_id = parent
            s.kind = 1
            s.start_time_unix_nano, s.end_time_unix_nano = start, end
            s.attributes.extend(_kv(k, v) for k, v in attrs.items())
            if error:
                s.status.code = 2
                s.status.message = "write failed"

        user = f"u-{turn % 500}"
        add("invoke_agent reminder", agent_id, None, t, t + 9_000_000, {
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "reminder", "user.id": user,
            "gen_ai.conversation.id": f"c-{turn // 3}",
            "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": "remind me at 8 to call mum"}]}]),
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": "OK, your reminder for 8:00 is set."}], "finish_reason": "stop"}]),
        })
        add("chat gpt-4o", rng.randbytes(8), agent_id, t + 1_000_000, t + 2_000_000, {
            "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o", "gen_ai.usage.input_tokens": 320,
            "gen_ai.usage.output_tokens": 40})
        for i, tool in enumerate(("list_reminders", "create_reminder", "verify_result")):
            failed = tool == "create_reminder" and rng.random() < 0.1
            add(f"execute_tool {tool}", rng.randbytes(8), agent_id, t + (3 + i) * 1_000_000, t + (4 + i) * 1_000_000, {
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool,
                "gen_ai.tool.call.id": f"call_{turn}_{i}",
                "gen_ai.tool.call.arguments": json.dumps({"time": "2026-11-09T08:00", "text": "call mum"}),
                "gen_ai.tool.call.result": json.dumps({"success": not failed, "id": turn, "detail": "ok"}),
                "trace_audit.verified": not failed, "trace_audit.attempts": 1 + failed}, error=failed)
        add("chat gpt-4o", rng.randbytes(8), agent_id, t + 7_000_000, t + 8_000_000, {
            "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o", "gen_ai.usage.input_tokens": 500,
            "gen_ai.usage.output_tokens": 20})
        spans_in += SPANS_PER_TURN
        turn += 1
    return requests


def count_spans(requests) -> int:
    return sum(len(ss.spans) for r in requests for rs in r.resource_spans for ss in rs.scope_spans)


def write_file(kind: str, requests, workdir: Path) -> Path:
    path = workdir / f"spans.{kind}"
    with open(path, "wb") as fh:
        for r in requests:
            if kind == "pb":
                data = r.SerializeToString()
                fh.write(struct.pack(">I", len(data)) + data)
            else:
                fh.write(json.dumps(MessageToDict(r)).encode() + b"\n")
    return path


def bench_reader(path: Path) -> tuple[float, float, int]:
    """The reader alone: framing and decoding to Arrow rows as the loader runs them
    (`frame_loop.decoded_frames`: framing a frame ahead in its own thread); no redaction,
    nothing written."""
    from trace_audit.ingest.read.decoder import Decoder
    from trace_audit.ingest.load.frame_loop import decoded_frames
    from trace_audit.ingest.load.loader import DEFAULT_MAX_RECORD_BYTES

    decoder = Decoder()
    n = 0
    started, cpu = time.perf_counter(), time.process_time()
    try:
        with open(path, "rb") as fh:
            for _, decoded in decoded_frames(fh, decoder, str(path), DEFAULT_MAX_RECORD_BYTES):
                assert not decoded.errors, decoded.errors[:3]
                if "otel_spans" in decoded.tables:
                    n += decoded.tables["otel_spans"].num_rows
    finally:
        decoder.close()
    return time.perf_counter() - started, time.process_time() - cpu, n


def bench_file(kind: str, path: Path, workdir: Path) -> tuple[float, float, int]:
    from trace_audit.ingest.load.loader import ingest

    db_path = workdir / f"file-{kind}.duckdb"
    started, cpu = time.perf_counter(), time.process_time()
    summary = ingest([str(path)], str(db_path), progress=False)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    f = summary.files[0]
    assert f.status == "loaded" and f.errors == 0, f.message
    return elapsed, cpu, f.counts.get("otel_spans", 0)


def bench_spans_only(kind: str, path: Path, workdir: Path) -> tuple[float, float, int, Path]:
    """`ingest` with the OTLP derivation switched off: spans decoded, redacted, stored and
    committed; no tasks, steps or messages. Returns the database too (for bench_floor)."""
    from trace_audit.ingest.load import loader

    db_path = workdir / f"spans-only-{kind}.duckdb"
    hooks = loader.AFTER_FILE
    loader.AFTER_FILE = []
    try:
        started, cpu = time.perf_counter(), time.process_time()
        summary = loader.ingest([str(path)], str(db_path), progress=False)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    finally:
        loader.AFTER_FILE = hooks
    f = summary.files[0]
    assert f.status == "loaded" and f.errors == 0, f.message
    return elapsed, cpu, f.counts.get("otel_spans", 0), db_path


def _minimal_derivation() -> list[str]:
    from trace_audit.ingest.load.otlp_rebuild_sql import _STRUCTURE

    # What no derivation can skip: each span's attributes parsed once (the structure the
    # rebuild reads), and the derived rows written. No turn walk, no seq rule, no
    # failure, verified or reply rules: a root span is a task, any other span a step.
    return [
        f"""CREATE TEMP TABLE floor_sp AS SELECT trace_id, span_id, parent_span_id, started_at, ended_at,
              json_transform(attributes, {_STRUCTURE}) AS a FROM otel_spans""",
        """INSERT INTO steps BY NAME SELECT trace_id AS task_id,
              row_number() OVER (PARTITION BY trace_id ORDER BY started_at, span_id) AS seq, span_id AS step_id,
              CAST(a."gen_ai.tool.name" AS VARCHAR) AS tool, CAST(a."gen_ai.operation.name" AS VARCHAR) AS kind,
              a."gen_ai.tool.call.arguments" AS args, a."gen_ai.tool.call.result" AS result, 'success' AS status,
              started_at, ended_at, trace_id, span_id, parent_span_id
           FROM floor_sp WHERE parent_span_id IS NOT NULL""",
        """INSERT INTO tasks BY NAME SELECT trace_id AS task_id, 'otlp' AS source, 'success' AS status,
              started_at, ended_at AS finished_at, CAST(a."gen_ai.input.messages" AS VARCHAR) AS goal,
              CAST(a."gen_ai.output.messages" AS VARCHAR) AS final_answer
           FROM floor_sp WHERE parent_span_id IS NULL""",
        """INSERT INTO messages BY NAME SELECT trace_id || ':' || r AS message_id, r AS role,
              CAST(a."gen_ai.input.messages" AS VARCHAR) AS content, started_at AS created_at, trace_id AS task_id,
              'otlp' AS source
           FROM floor_sp, (VALUES ('user'), ('assistant')) v(r) WHERE parent_span_id IS NULL""",
    ]


def bench_floor(db_path: Path) -> tuple[float, float]:
    """DuckDB alone deriving rows from the stored spans the cheapest way (see _minimal_derivation),
    in one transaction, committed."""
    from trace_audit.queries.warehouse import db

    con = db.connect(str(db_path))
    try:
        started, cpu = time.perf_counter(), time.process_time()
        con.execute("BEGIN")
        for statement in _minimal_derivation():
            con.execute(statement)
        con.execute("COMMIT")
        return time.perf_counter() - started, time.process_time() - cpu
    finally:
        con.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spans", type=int, default=100_000)
    ap.add_argument("--batch", type=int, default=512, help="spans per request (the SDK's default batch is 512)")
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--only", choices=["file", "receiver"], default=None)
    ap.add_argument("--protocols", default=",".join(PROTOCOLS),
                    help=f"receiver: which of {', '.join(PROTOCOLS)} (default all, one serve-otlp each)")
    args = ap.parse_args()
    protocols = [p.strip() for p in args.protocols.split(",") if p.strip()]
    unknown = sorted(set(protocols) - set(PROTOCOLS))
    if unknown:
        ap.error(f"--protocols: unknown {', '.join(unknown)}; choose from {', '.join(PROTOCOLS)}")
    requests = build_requests(args.spans, args.batch)
    total = count_spans(requests)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-otlp-") as d:
        workdir = Path(d)
        if args.only in (None, "file"):
            for kind in ("pb", "jsonl"):
                path = write_file(kind, requests, workdir)
                secs, cpu, n = bench_reader(path)
                rows.append((f"reader/{kind} (decode only)", n, secs, cpu))
                secs, cpu, n = bench_file(kind, path, workdir)
                rows.append((f"file/{kind} (ingest, end to end)", n, secs, cpu))
                secs, cpu, n, db_path = bench_spans_only(kind, path, workdir)
                rows.append((f"spans/{kind} (ingest, nothing derived)", n, secs, cpu))
                floor_secs, floor_cpu = bench_floor(db_path)
                rows.append((f"floor/{kind} (spans + minimal derivation)", n, secs + floor_secs, cpu + floor_cpu))
        served = [bench_serve_otlp(requests, workdir, args.clients, p, SPANS_PER_TURN)
                  for p in (protocols if args.only in (None, "receiver") else [])]
    print(f"\nOTLP throughput, {total} spans in requests of {args.batch}, {os.cpu_count()} cores")
    print(f"{'path':<44} {'spans':>9} {'seconds':>9} {'spans/s':>10} {'cpu s':>8} {'spans/cpu-s':>12}")
    for name, n, secs, cpu in rows:
        print(f"{name:<44} {n:>9} {secs:>9.2f} {n / secs:>10,.0f} {cpu:>8.2f} {n / cpu:>12,.0f}")
    print("cpu s: CPU time of this process, all threads (DuckDB's included); on a busy machine\n"
          "spans per CPU-second is steadier than spans/s, which waits for the other processes.")
    print("spans/...: ingest with the derivation of tasks, steps and messages switched off.\n"
          "floor/...: that, plus DuckDB alone deriving rows the cheapest way: each span's attributes parsed\n"
          "once and one row written per step, task and message, with no rules (a lower bound of end to end).")
    if served:
        report(served, args.clients, args.batch)
    print("targets: receiver >= 20,000 spans/s; files >= 100,000 spans/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
