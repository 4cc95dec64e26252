#!/usr/bin/env python3
"""Benchmark: a full re-run of the rule catalogue over ~1M steps, as a user runs it.

    python bench/rules.py                 # generate (sample generator --scale), ingest once, time the runs
    python bench/rules.py --db big.duckdb # time the runs on (copies of) an existing warehouse

Data: sample_data/generate.py --scale N (seed004 dumps + seed001 traces) into
a temp directory, ingested once into a DuckDB file (not timed). Each timed run
is `trace-audit rules run --db COPY --now ...` in its own process, on a fresh
copy of that warehouse, wall time including process start, interpreter,
imports and closing the warehouse (its checkpoint), as issue 14 asks:
- cold: the copy holds no kept readings (reading_cache, value_cache: the first
  run after a lexicon or trace-audit change, or on a new warehouse);
- warm: a copy of the cold run's result: every reply read and every value
  compared before, as for any later re-run (only new replies are read).
Per-rule seconds are those the last warm run stored in rule_runs. Target
(issue 14): <= 5 s wall for 1M steps.

CPU time (the child process, all threads) is printed beside wall time because
the machine may be shared: when other work competes for the cores, wall time
grows while CPU time stays put. --workers 1,2 times the warm run with each
number of cursors (TRACE_AUDIT_RULE_WORKERS), interleaved.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
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
    p.add_argument("--workers", default="",
                   help="comma-separated worker counts to compare on the warm runs, interleaved (e.g. 1,2; "
                        "default: the run's own choice, one per core up to 4)")
    a = p.parse_args(argv)
    workers = [int(w) for w in a.workers.split(",") if w.strip()] or [None]
    from trace_audit.queries.warehouse import db

    with tempfile.TemporaryDirectory() as tmp:
        path = a.db or os.path.join(tmp, "bench.duckdb")
        if not a.db:
            build(path, a.steps, tmp)
        con = db.connect(path, read_only=True)
        try:
            counts = db.table_counts(con)
        finally:
            con.close()
        cold, per_rule, findings = [], [], 0
        warm: dict = {w: [] for w in workers}
        for _ in range(a.repeat):
            first, again = os.path.join(tmp, "cold.duckdb"), os.path.join(tmp, "warm.duckdb")
            shutil.copy(path, first)
            _forget_kept(first)
            cold.append(_cli_run(first))
            for w in workers:
                shutil.copy(first, again)
                warm[w].append(_cli_run(again, w))
                per_rule, findings = _last_run(again)
    print(f"warehouse: {counts['tasks']:,} tasks, {counts['steps']:,} steps, {counts['messages']:,} messages, "
          f"{counts['audit_logs']:,} audit rows")
    print(f"{'rule':<24} {'findings':>9} {'seconds':>8}   (the last warm run, inside the run)")
    for r in per_rule:
        print(f"{r['id']:<24} {r['findings']:>9,} {r['seconds']:>8.3f}" + (f"  FAILED {r['error']}" if r['error'] else ""))
    labelled = [("cold (nothing kept)", cold)] + [
        ("warm (a re-run)" + ("" if w is None else f", {w} worker{'s' if w > 1 else ''}"), runs)
        for w, runs in warm.items()]
    for label, runs in labelled:
        walls, cpus = sorted(w for w, _ in runs), sorted(c for _, c in runs)
        print(f"`trace-audit rules run`, {label}: wall best {walls[0]:.2f} s, median {walls[len(walls) // 2]:.2f} s; "
              f"CPU best {cpus[0]:.2f} s, median {cpus[len(cpus) // 2]:.2f} s over {len(runs)} runs on "
              f"{os.cpu_count()} cores ({findings:,} findings)")
    return 0


NOW = "2026-11-29T16:00:00Z"


def _cli_run(path: str, workers: int | None = None) -> tuple[float, float]:
    """(wall, CPU) seconds of `trace-audit rules run` on `path`, in a process of its own
    (with TRACE_AUDIT_RULE_WORKERS=workers when given)."""
    script = Path(sys.executable).with_name("trace-audit")
    cmd = [str(script)] if script.exists() else [sys.executable, "-c", "from trace_audit.cli.main import main; main()"]
    subprocess.run(["sync"], check=False)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    env = dict(os.environ)
    if workers is not None:
        env["TRACE_AUDIT_RULE_WORKERS"] = str(workers)
    subprocess.run(cmd + ["rules", "run", "--db", path, "--now", NOW], check=True, stdout=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _forget_kept(path: str) -> None:
    from trace_audit.queries.warehouse import db

    con = db.connect(path)
    try:
        for table in ("reading_cache", "reading_cache_items", "value_cache", "request_cache"):
            con.execute(f"DELETE FROM {table}")
    finally:
        con.close()


def _last_run(path: str) -> tuple[list[dict], int]:
    import json

    from trace_audit.queries.warehouse import db

    con = db.connect(path, read_only=True)
    try:
        rules, total = con.execute("SELECT rules, finding_count FROM rule_runs ORDER BY started_at DESC LIMIT 1"
                                   ).fetchall()[0]
    finally:
        con.close()
    return json.loads(rules), total


if __name__ == "__main__":
    sys.exit(main())
