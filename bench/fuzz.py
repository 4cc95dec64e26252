"""Coverage-guided fuzzing of the ingest path and the receiver's request decoder (atheris / libFuzzer).

Not part of the test suite: a bounded run by hand or in a nightly job.

    python bench/fuzz.py --target file --seconds 300      # framing + decoder + every reader
    python bench/fuzz.py --target receiver --seconds 300  # the receiver's body decoder (JSON and protobuf)
    python bench/fuzz.py --engine hypothesis ...          # where atheris cannot be installed

A crash is any exception the code does not turn into a quarantine entry or a 400: libFuzzer stops,
prints the traceback and writes the input to crash-<sha1> in --artifacts. For JSON-lines input the
file target also checks that every non-blank line is either decoded into rows or quarantined.
Prints one summary line: target, engine, seconds, inputs tried, crashes.
"""

from __future__ import annotations

import argparse
import atexit
import gzip
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
STATS = {"inputs": 0, "crashes": 0, "started": time.monotonic()}


def seeds() -> list[bytes]:
    out = [
        b'{"record": "step", "task_id": "t-1", "seq": 1, "tool": "create_reminder", "verified": false}\n',
        b'{"id": 1, "task_id": 5, "seq": 1, "tool": "create_reminder", "args_json": "{}", "status": "SUCCESS"}\n',
        b'{"id": 5, "user_id": 7, "goal": "g", "status": "SUCCESS", "total_steps": 1}\n',
        b'[{"record": "task", "task_id": "t"}]',
    ]
    out.append((REPO / "sample_data/seed001/traces.jsonl").open("rb").readline())
    out.append((REPO / "tests/fixtures/golden/chat/openai.jsonl").open("rb").readline())
    out.append(gzip.open(REPO / "sample_data/otlp/month.otlp.jsonl.gz", "rb").readline())
    return out


def protobuf_seed() -> bytes:
    from google.protobuf.json_format import Parse
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    line = gzip.open(REPO / "sample_data/otlp/month.otlp.jsonl.gz", "rt").readline()
    return Parse(line, ExportTraceServiceRequest(), ignore_unknown_fields=True).SerializeToString()


def file_target():
    import io

    from trace_audit.ingest.read import framing
    from trace_audit.ingest.read.decoder import Decoder
    from trace_audit.ingest.read.registry import BINARY_SNIFFERS

    decoder = Decoder("UTC")

    def one(data: bytes) -> None:
        lines: set[int] = set()
        for frame in framing.frames(io.BytesIO(data), 64 * 1024, BINARY_SNIFFERS):
            decoded = decoder.decode(frame, "fuzz")
            for rows in decoded.tables.values():
                lines.update(rows.column("source_line").to_pylist())
            lines.update(e[0] for e in decoded.errors)
        head = data[:framing.HEAD_BYTES]
        if data[:2] != framing.GZIP_MAGIC and framing._looks_like_json_text(head) \
                and not framing._looks_like_one_document(head.removeprefix(framing.UTF8_BOM)) \
                and b"esource" not in data:  # OTLP counts spans; a request without spans stores nothing
            want = {i + 1 for i, piece in enumerate(data.split(b"\n")) if piece.strip(b" \t\r")}
            if data.startswith(framing.UTF8_BOM):
                want.discard(1) if not data[3:].split(b"\n")[0].strip(b" \t\r") else None
            missing = want - lines
            assert not missing, f"lines neither decoded nor quarantined: {sorted(missing)[:10]}"

    return one


def receiver_target():
    from trace_audit.ingest.receive.requests import JSON, PROTOBUF, SIGNALS, check
    from trace_audit.ingest.receive.validate import Refused

    def one(data: bytes) -> None:
        for signal in SIGNALS.values():
            for encoding in (PROTOBUF, JSON):
                try:
                    check(signal, encoding, data)
                except Refused as r:
                    assert r.code == 400, r.code

    return one


def counted(fn):
    def run(data: bytes) -> None:
        STATS["inputs"] += 1
        fn(data)
    return run


def summary(target: str, engine: str) -> None:
    secs = time.monotonic() - STATS["started"]
    print(f"fuzz: target={target} engine={engine} seconds={secs:.0f} inputs={STATS['inputs']} "
          f"crashes={STATS['crashes']}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--target", choices=["file", "receiver"], default="file")
    ap.add_argument("--seconds", type=int, default=120, help="stop after this long (default 120)")
    ap.add_argument("--engine", choices=["atheris", "hypothesis"], default="atheris")
    ap.add_argument("--artifacts", default=".", help="folder for crash-* inputs (default .)")
    ap.add_argument("--max-len", type=int, default=64 * 1024, help="largest input in bytes (default 64 KiB)")
    args = ap.parse_args()
    corpus = Path(tempfile.mkdtemp(prefix="ta-fuzz-"))
    for i, s in enumerate(seeds() + [protobuf_seed()]):
        (corpus / f"seed-{i}").write_bytes(s)

    if args.engine == "atheris":
        try:
            import atheris
        except ImportError:
            print("atheris is not installed (pip install atheris); use --engine hypothesis", file=sys.stderr)
            return 2
        with atheris.instrument_imports(include=["trace_audit"]):
            fn = file_target() if args.target == "file" else receiver_target()
        atexit.register(summary, args.target, "atheris")
        atheris.Setup([sys.argv[0], str(corpus), f"-max_total_time={args.seconds}", f"-max_len={args.max_len}",
                       f"-artifact_prefix={os.path.join(args.artifacts, '')}", "-timeout=30", "-rss_limit_mb=4096",
                       "-print_final_stats=1"], counted(fn))
        atheris.Fuzz()
        return 0

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    fn = file_target() if args.target == "file" else receiver_target()
    pool = seeds() + [protobuf_seed()]
    inputs = st.one_of(st.binary(max_size=args.max_len // 16),
                       st.tuples(st.sampled_from(pool), st.binary(max_size=64), st.integers(0, 4000)).map(
                           lambda t: t[0][:t[2]] + t[1] + t[0][t[2]:]))
    deadline = time.monotonic() + args.seconds
    while time.monotonic() < deadline:
        @settings(max_examples=500, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(inputs)
        def run(data):
            counted(fn)(data)
        try:
            run()
        except Exception:  # noqa: BLE001 - report, count, and stop like libFuzzer does
            STATS["crashes"] += 1
            summary(args.target, "hypothesis")
            raise
    summary(args.target, "hypothesis")
    return 0


if __name__ == "__main__":
    sys.exit(main())
