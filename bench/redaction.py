#!/usr/bin/env python3
"""What redaction at ingest costs: the same input ingested with and without it.

    python bench/redaction.py                      # 1,000,000 steps, 5% of them carrying personal data
    python bench/redaction.py --steps 200000 --pii-rate 0.2 --with-tables
    python bench/redaction.py --otlp-spans 300000  # redaction alone on decoded OTLP spans

Input: the sample month's seed-004 dumps (sample_data/seed004) replicated
with fresh ids until there are --steps step records; --pii-rate of the steps
get an email and a phone number in `reason`, a bearer token in `error` and a
password and a phone inside `args` (so the slow, per-row path really runs).
--with-tables adds the tasks, messages and audit rows in the sample's
proportions.

Each run is the loader's per-frame path (frames -> decode -> [redact] ->
upsert, one transaction per file) into a fresh DuckDB file. Prints a table:
wall time of each run, the redaction share, and the overhead. The machine may
be shared: run it twice and read the lower figures.

--otlp-spans N: the OTLP shape instead. bench/otlp.py's synthetic agent turns
(GenAI attributes with JSON held in JSON strings, so escaped text everywhere)
as a length-prefixed protobuf stream, decoded once into the loader's frames;
then only `redact_decoded` is timed on them, per frame as the loader calls it,
--repeat times, twice over: with the JSON gate as it is (escape-tolerant
prefilters on the raw text) and with the unescaped view it replaced. By
default the spans hold no personal data (the common case); with --pii-rate,
that share of the spans holding the user's message (one span in six) get an
email and a phone number inside it, two JSON levels down.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def build_input(out_dir: Path, steps: int, pii_rate: float, with_tables: bool, seed: int = 4) -> list[Path]:
    src = REPO / "sample_data" / "seed004"
    step_recs = [json.loads(line) for line in (src / "agent_step.jsonl").read_text("utf-8").splitlines() if line]
    extra = {}
    if with_tables:
        for name in ("agent_task", "messages", "audit_logs"):
            extra[name] = [json.loads(line) for line in (src / f"{name}.jsonl").read_text("utf-8").splitlines() if line]
    rng = random.Random(seed)
    copies = -(-steps // len(step_recs))
    task_span = 10 ** (len(str(max(int(r["task_id"]) for r in step_recs))) + 1)
    id_span = 10 ** 9
    paths = []
    step_path = out_dir / "agent_step.jsonl"
    written = 0
    with step_path.open("w", encoding="utf-8") as fh:
        for c in range(copies):
            for rec in step_recs:
                if written == steps:
                    break
                r = dict(rec)
                r["id"] = int(rec["id"]) + c * id_span
                r["task_id"] = int(rec["task_id"]) + c * task_span
                if rng.random() < pii_rate:
                    n = rng.randrange(10 ** 8)
                    r["reason"] = f"{r.get('reason') or ''} contact user{n}@example.com or 138{n:08d}"
                    r["error"] = f"gateway said 401 for Authorization: Bearer tok{n:08d}abcdef"
                    args = json.loads(r["args_json"]) if r.get("args_json") else {}
                    if isinstance(args, dict):
                        args["password"] = f"pw{n}"
                        args["notify"] = {"sms": f"+86 139 {n % 10000:04d} {n // 10000 % 10000:04d}"}
                        r["args_json"] = json.dumps(args, ensure_ascii=False)
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
                written += 1
    paths.append(step_path)
    for name, recs in extra.items():
        p = out_dir / f"{name}.jsonl"
        with p.open("w", encoding="utf-8") as fh:
            for c in range(copies):
                for rec in recs:
                    r = dict(rec)
                    r["id"] = int(rec["id"]) + c * (task_span if name == "agent_task" else id_span)
                    if r.get("task_id") is not None:
                        r["task_id"] = int(rec["task_id"]) + c * task_span
                    fh.write(json.dumps(r, ensure_ascii=False) + "\n")
        paths.append(p)
    return paths


def run(paths: list[Path], db_path: str, redactor) -> dict:
    from trace_audit.ingest.load import loader
    from trace_audit.ingest.read.decoder import Decoder
    from trace_audit.ingest.read.framing import frames
    from trace_audit.ingest.redact.report import RedactionReport
    from trace_audit.queries.warehouse import db

    report = RedactionReport()
    redact_s = redact_cpu = 0.0
    rows = 0
    start, start_cpu = time.perf_counter(), time.process_time()
    con = db.connect(db_path)
    decoder = Decoder("Asia/Shanghai")
    try:
        for path in paths:
            con.execute("BEGIN TRANSACTION")
            with open(path, "rb") as fh:
                for frame in frames(fh):
                    decoded = decoder.decode(frame, str(path))
                    if redactor is not None:
                        t, c = time.perf_counter(), time.process_time()
                        decoded, got = redactor.redact_decoded(decoded)
                        redact_s += time.perf_counter() - t
                        redact_cpu += time.process_time() - c
                        report.merge(got)
                    for table, batch in decoded.tables.items():
                        rows += loader.store.upsert(con, table, batch)
            con.execute("COMMIT")
    finally:
        decoder.close()
        con.close()
    return {"seconds": time.perf_counter() - start, "cpu": time.process_time() - start_cpu,
            "redact_seconds": redact_s, "redact_cpu": redact_cpu, "rows": rows, "report": report}


def otlp_frames(spans: int, pii_rate: float, seed: int = 4) -> list:
    """The loader's decoded frames for `spans` synthetic OTLP spans (length-prefixed protobuf)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    sys.path.insert(0, str(REPO / "bench"))
    from otlp import build_requests, write_file

    from trace_audit.ingest.read.decoder import Decoder
    from trace_audit.ingest.load.frame_loop import decoded_frames
    from trace_audit.ingest.load.loader import DEFAULT_MAX_RECORD_BYTES

    decoder = Decoder("UTC")
    rng = random.Random(seed)
    out = []
    try:
        with tempfile.TemporaryDirectory(prefix="bench-redaction-") as d:
            path = write_file("pb", build_requests(spans, 512), Path(d))
            with open(path, "rb") as fh:
                out = [decoded for _, decoded in decoded_frames(fh, decoder, "bench.pb", DEFAULT_MAX_RECORD_BYTES)]
    finally:
        decoder.close()
    for decoded in out:
        spans_t = decoded.tables.get("otel_spans")
        if spans_t is not None and pii_rate > 0:
            col = spans_t.column("attributes").combine_chunks()
            leaky = pc.replace_substring(col, "call mum", "call mum on +86 138 0013 8000 or mum@example.com")
            pick = pa.array([rng.random() < pii_rate for _ in range(len(col))])
            col = pc.if_else(pick, leaky, col)
            decoded.tables["otel_spans"] = spans_t.set_column(
                spans_t.column_names.index("attributes"), "attributes", col)
    return out


def run_otlp(args) -> int:
    from dataclasses import replace

    from trace_audit.ingest.redact.config import RedactionConfig
    from trace_audit.ingest.redact.redactor import Redactor, redact_decoded
    from trace_audit.ingest.redact.report import RedactionReport

    t = time.perf_counter()
    frames = otlp_frames(args.otlp_spans, args.pii_rate)
    spans = sum(d.tables["otel_spans"].num_rows for d in frames if "otel_spans" in d.tables)
    print(f"input: {spans:,} OTLP spans in {len(frames)} frames, decoded in {time.perf_counter() - t:.0f} s",
          file=sys.stderr)
    tolerant = Redactor(RedactionConfig(), b"bench-key-0123456789abcdef")
    view = Redactor(RedactionConfig(), b"bench-key-0123456789abcdef")
    view.rules = replace(view.rules, json_raw_prefilter=None)
    print(f"\nRedaction of decoded OTLP spans: {spans:,} spans, pii-rate {args.pii_rate:g}, {os.cpu_count()} cpus")
    print("Only redact_decoded is timed (per frame, as the loader calls it). CPU seconds are steadier "
          "than wall time on a shared machine.")
    print(f"{'JSON gate':<34}{'run':>4}{'wall s':>9}{'cpu s':>9}{'spans/s (cpu)':>15}")
    for label, redactor in (("escape-tolerant prefilters", tolerant), ("unescaped view (before)", view)):
        for i in range(args.repeat):
            report = RedactionReport()
            w, c = time.perf_counter(), time.process_time()
            for decoded in frames:
                redact_decoded(decoded, redactor, report)
            wall, cpu = time.perf_counter() - w, time.process_time() - c
            print(f"{label:<34}{i + 1:>4}{wall:>9.2f}{cpu:>9.2f}{spans / max(cpu, 1e-9):>15,.0f}")
        print(f"{'':<38}{report.summary()}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=1_000_000)
    ap.add_argument("--pii-rate", type=float, default=None,
                    help="share of records with personal data (default 0.05; with --otlp-spans 0, the common case)")
    ap.add_argument("--with-tables", action="store_true", help="also tasks, messages, audit rows")
    ap.add_argument("--workdir", default=None, help="where the input and databases go (default: a temp dir)")
    ap.add_argument("--otlp-spans", type=int, default=0, help="time redaction alone on this many decoded OTLP spans")
    ap.add_argument("--repeat", type=int, default=2, help="with --otlp-spans: runs per JSON gate")
    args = ap.parse_args()
    if args.otlp_spans:
        args.pii_rate = args.pii_rate or 0.0
        return run_otlp(args)
    if args.pii_rate is None:
        args.pii_rate = 0.05

    from trace_audit.ingest.redact.config import RedactionConfig
    from trace_audit.ingest.redact.redactor import Redactor

    work = Path(args.workdir or tempfile.mkdtemp(prefix="bench-redaction-"))
    work.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    paths = build_input(work, args.steps, args.pii_rate, args.with_tables)
    size = sum(p.stat().st_size for p in paths)
    print(f"input: {', '.join(p.name for p in paths)}; {size / 1e6:.0f} MB, built in {time.perf_counter() - t:.0f} s",
          file=sys.stderr)

    results = {}
    for label, redactor in (("off", None), ("on", Redactor(RedactionConfig(), b"bench-key-0123456789abcdef"))):
        db_path = str(work / f"{label}.duckdb")
        for suffix in ("", ".wal"):
            if os.path.exists(db_path + suffix):
                os.unlink(db_path + suffix)
        results[label] = run(paths, db_path, redactor)
        print(f"redaction {label}: {results[label]['seconds']:.1f} s", file=sys.stderr)

    off, on = results["off"], results["on"]
    print(f"\nRedaction at ingest: {args.steps:,} steps, pii-rate {args.pii_rate:g}, "
          f"{'all tables' if args.with_tables else 'steps only'}, {os.cpu_count()} cpus")
    print("CPU seconds (all threads) are steadier than wall time on a shared machine.")
    print(f"{'run':<22}{'rows':>12}{'wall s':>9}{'cpu s':>9}{'rows/s':>11}")
    for label, r in (("ingest, redaction off", off), ("ingest, redaction on", on)):
        print(f"{label:<22}{r['rows']:>12,}{r['seconds']:>9.1f}{r['cpu']:>9.1f}{r['rows'] / r['seconds']:>11,.0f}")
    print(f"{'  of which redaction':<22}{'':>12}{on['redact_seconds']:>9.2f}{on['redact_cpu']:>9.2f}"
          f"{on['rows'] / max(on['redact_seconds'], 1e-9):>11,.0f}")
    wall = (on["seconds"] - off["seconds"]) / off["seconds"] * 100
    share = on["redact_seconds"] / off["seconds"] * 100
    share_cpu = on["redact_cpu"] / off["cpu"] * 100
    print(f"redaction adds {share:.1f}% (wall) / {share_cpu:.1f}% (cpu) to the unredacted ingest; "
          f"end-to-end wall difference {wall:+.1f}% (target < 30%)")
    print(on["report"].summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
