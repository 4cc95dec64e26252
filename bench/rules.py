#!/usr/bin/env python3
"""Benchmark: a full re-run of the rule catalogue over ~1M steps.

    python bench/rules.py                 # generate (sample generator --scale), ingest once, time the runs
    python bench/rules.py --db big.duckdb # time the runs on an existing warehouse

Data: sample_data/generate.py --scale N (seed004 dumps + seed001 traces) into
a temp directory, ingested once into a DuckDB file (not timed). Then the
whole enabled catalogue is run --repeat times (each run stores its findings
in one transaction, as `trace-audit rules run` does) and per-rule times of
the last run are printed. Target (issue 4): <= 5 s for 1M steps.

Wall time is what the target is about; CPU time (all threads of this
process) is printed beside it because the machine is shared: when other work
competes for the cores, wall time grows while CPU time stays put.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
STEPS_PER_SCALE = 5490  # the scale-1 month holds ~5.5k steps (scale 182: 1.0M, scale 312: 1.71M)


def build(db_path: str, steps: int, tmp: str) -> None:
    from trace_audit.ingest.load.loader import ingest

    scale = max(1, round(steps / STEPS_PER_SCALE))
    out = os.path.join(tmp, "data")
    t = time.perf_counter()
    subprocess.run([sys.executable, str(REPO / "sample_data" / "generate.py"), "--out", out, "--scale", str(scale)],
                   check=True, stderr=subprocess.DEVNULL)
    print(f"generated scale {scale} in {time.perf_counter() - t:.1f}s", file=sys.stderr)
    t = time.perf_counter()
    ingest([os.path.join(out, "seed004"), os.path.join(out, "seed001")], db_path, tz="Asia/Shanghai", progress=False)
    print(f"ingested in {time.perf_counter() - t:.1f}s", file=sys.stderr)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--db", help="existing warehouse to run on (default: generate one)")
    p.add_argument("--steps", type=int, default=1_000_000, help="approximate steps to generate (default 1M)")
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args(argv)
    from trace_audit.queries.warehouse import db
    from trace_audit.queries.engine import run_rules

    with tempfile.TemporaryDirectory() as tmp:
        path = a.db or os.path.join(tmp, "bench.duckdb")
        if not a.db:
            build(path, a.steps, tmp)
        con = db.connect(path)
        try:
            counts = db.table_counts(con)
            now = datetime(2026, 11, 29, 16, tzinfo=timezone.utc)
            times, cpu, result = [], [], None
            for _ in range(a.repeat):
                t, c = time.perf_counter(), time.process_time()
                result = run_rules(con, now=now)
                times.append(time.perf_counter() - t)
                cpu.append(time.process_time() - c)
        finally:
            con.close()
    print(f"warehouse: {counts['tasks']:,} tasks, {counts['steps']:,} steps, {counts['messages']:,} messages, "
          f"{counts['audit_logs']:,} audit rows")
    print(f"{'rule':<24} {'findings':>9} {'seconds':>8}")
    for o in result.rules:
        print(f"{o.id:<24} {o.findings:>9,} {o.seconds:>8.3f}" + (f"  FAILED {o.error}" if o.error else ""))
    print(f"full catalogue run (turn model + {len(result.rules)} rules + store): "
          f"best {min(times):.2f}s, median {sorted(times)[len(times) // 2]:.2f}s over {len(times)} runs "
          f"({result.finding_count:,} findings); CPU best {min(cpu):.2f}s, median {sorted(cpu)[len(cpu) // 2]:.2f}s "
          f"on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
