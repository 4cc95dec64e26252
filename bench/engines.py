"""Rule re-run time on DuckDB and on chDB (embedded ClickHouse), same warehouse, same rules.

    python bench/engines.py --scale 200                 # ~1M steps: generate, ingest, measure
    python bench/engines.py --db /tmp/ta-1m.duckdb      # measure an existing warehouse
    python bench/engines.py --scale 200 --engines duckdb,chdb,spark

For each engine: the one-off cost of making the warehouse visible to it (chDB:
copying the four rule tables in through Parquet; DuckDB: none), then `--repeat`
full re-runs of every enabled rule (findings staged, not stored, so runs do not
pile up). Reported: best and median re-run, and per rule the best time. The
machine this runs on is shared, so numbers are noisy; the table is what
docs/scale-out.md quotes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
NOW = datetime(2026, 11, 30, tzinfo=timezone.utc)


def build(scale: int, workdir: Path) -> str:
    data = workdir / f"data-{scale}"
    db_path = workdir / f"warehouse-{scale}.duckdb"
    if db_path.exists():
        return str(db_path)
    if not data.exists():
        t = time.perf_counter()
        subprocess.run([sys.executable, str(REPO / "sample_data" / "generate.py"), "--scale", str(scale),
                        "--out", str(data)], check=True)
        print(f"generated scale {scale} in {time.perf_counter() - t:.1f}s", file=sys.stderr)
    from trace_audit.ingest.load.loader import ingest

    t = time.perf_counter()
    ingest([str(data / "seed004")], str(db_path), tz="Asia/Shanghai", progress=False)
    ingest([str(data / "seed001")], str(db_path), tz="Asia/Shanghai", progress=False)
    print(f"ingested in {time.perf_counter() - t:.1f}s", file=sys.stderr)
    return str(db_path)


def measure(db_path: str, engines: list[str], repeat: int) -> None:
    from trace_audit.queries.warehouse import db
    from trace_audit.queries.engines import open_engine, run_rules_on

    con = db.connect(db_path)
    counts = db.table_counts(con)
    print(f"warehouse {db_path}: {counts['steps']:,} steps, {counts['tasks']:,} tasks, "
          f"{counts['messages']:,} messages, {counts['audit_logs']:,} audit rows")
    summary, per_rule, findings = [], {}, {}
    try:
        for name in engines:
            eng = None
            t = time.perf_counter()
            if name != "duckdb":
                eng = open_engine(name)
                eng.attach(con)
            attach = time.perf_counter() - t
            runs = []
            best: dict[str, float] = {}
            try:
                for _ in range(repeat):
                    t = time.perf_counter()
                    result = run_rules_on(name, con, now=NOW, store=False, engine=eng)
                    runs.append(time.perf_counter() - t)
                    if result.failed:
                        print(f"{name}: failed rules {result.failed}", file=sys.stderr)
                    for o in result.rules:
                        best[o.id] = min(best.get(o.id, float("inf")), o.seconds)
                    findings[name] = result.finding_count
            finally:
                if eng is not None:
                    eng.close()
            summary.append((name, attach, min(runs), statistics.median(runs)))
            per_rule[name] = best
    finally:
        con.close()
    print()
    print(f"| engine | load into engine (s) | rule re-run best (s) | median of {repeat} (s) | findings |")
    print("|---|---:|---:|---:|---:|")
    for name, attach, best_run, med in summary:
        print(f"| {name} | {attach:.1f} | {best_run:.1f} | {med:.1f} | {findings.get(name, 0):,} |")
    print()
    print("| rule | " + " | ".join(f"{n} (s)" for n in engines) + " |")
    print("|---|" + "---:|" * len(engines))
    for rid in sorted(per_rule[engines[0]]):
        print(f"| {rid} | " + " | ".join(f"{per_rule[n].get(rid, float('nan')):.2f}" for n in engines) + " |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--scale", type=int, help="generate the sample month N times (200 = ~1M steps)")
    src.add_argument("--db", help="an existing warehouse")
    ap.add_argument("--workdir", default=os.environ.get("TMPDIR", "/tmp") + "/ta-bench-engines")
    ap.add_argument("--engines", default="duckdb,chdb")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    db_path = args.db or build(args.scale, workdir)
    measure(db_path, [e.strip() for e in args.engines.split(",") if e.strip()], args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
