"""How long the queries behind each dashboard page take (target: < 0.5 s per page on 1M steps).

    python bench/dashboard.py --db /tmp/big.duckdb              # an existing warehouse
    python bench/dashboard.py --build /tmp/big.duckdb --scale 200  # generate ~1M steps first

Each page's queries run exactly as the page runs them (`page_plan`, the same bound
filters: the busiest ISO week against the one before, all versions, all tools),
on a fresh read-only connection, `--repeat` times; the table shows the best and the
median total per page and the slowest query. The page cache (st.cache_data) is not
involved: these are cold, uncached numbers. The investigation view and the weekly
report are timed the same way.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET_S = 0.5


def build(db_path: str, scale: int) -> None:
    from trace_audit.ingest.loader import ingest
    from trace_audit.queries import db

    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, str(REPO / "sample_data" / "generate.py"), "--out", tmp, "--scale", str(scale)],
                       check=True, capture_output=True)
        print(f"generated scale {scale} in {time.perf_counter() - t0:.1f} s", flush=True)
        t0 = time.perf_counter()
        ingest([f"{tmp}/seed004", f"{tmp}/seed001"], db_path, tz="Asia/Shanghai", progress=False)
        print(f"ingested in {time.perf_counter() - t0:.1f} s", flush=True)
    try:
        from trace_audit.queries.engine import run_rules
    except ModuleNotFoundError:
        return
    con = db.connect(db_path)
    try:
        t0 = time.perf_counter()
        run = run_rules(con, now=None)
        print(f"rules: {run.finding_count} findings in {time.perf_counter() - t0:.1f} s", flush=True)
    finally:
        con.close()


def busiest_week(con) -> str:
    row = con.execute("SELECT strftime(started_at, '%G-W%V') AS w, count(*) FROM tasks GROUP BY w "
                      "ORDER BY 2 DESC, w LIMIT 1").fetchall()
    return row[0][0]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", help="existing warehouse to measure")
    ap.add_argument("--build", metavar="PATH", help="generate and ingest a warehouse here first")
    ap.add_argument("--scale", type=int, default=200, help="generator scale for --build (200 ~ 1M steps)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--tz", default="Asia/Shanghai")
    ap.add_argument("--week", default=None, help="ISO week to filter on (default: the busiest)")
    args = ap.parse_args(argv)
    path = args.build or args.db
    if not path:
        ap.error("give --db PATH or --build PATH")
    if args.build and not Path(args.build).exists():
        build(args.build, args.scale)

    from trace_audit.queries import dashboard_queries as dq
    from trace_audit.queries import db, report

    con = db.connect(path, read_only=True)
    steps, tasks = con.execute("SELECT (SELECT count(*) FROM steps), (SELECT count(*) FROM tasks)").fetchall()[0]
    runs = con.execute("SELECT run_id FROM rule_runs ORDER BY started_at DESC LIMIT 1").fetchall()
    run_id = runs[0][0] if runs else None
    week = args.week or busiest_week(con)
    task = con.execute("SELECT task_id FROM findings WHERE run_id = ? AND task_id IS NOT NULL LIMIT 1",
                       [run_id or ""]).fetchall() or con.execute("SELECT task_id FROM tasks LIMIT 1").fetchall()
    user = con.execute("SELECT user_id FROM tasks WHERE task_id = ?", [task[0][0]]).fetchall()[0][0]
    con.close()
    monday, sunday = dq.iso_week_bounds(week)
    f = dq.Filters(since=monday, until=sunday, tz=args.tz, run_id=run_id)
    print(f"warehouse {path}: {steps:,} steps, {tasks:,} turns; filters: {week} ({args.tz}), rule run {run_id}")

    def fresh():
        c = db.connect(path, read_only=True)
        dq.prepare(c)
        return c

    def timed(fn):
        times, worst = [], {}
        for _ in range(args.repeat):
            c = fresh()
            try:
                t0 = time.perf_counter()
                per = fn(c)
                times.append(time.perf_counter() - t0)
                for k, v in per.items():
                    worst[k] = min(worst.get(k, 1e9), v)
            finally:
                c.close()
        return times, worst

    def plan_runner(page, **extra):
        def run(c):
            now = dq.data_clock(c, run_id)
            per = {}
            for key, (name, params) in dq.page_plan(page, f, now, **extra).items():
                t0 = time.perf_counter()
                dq.run(c, name, params)
                per[name] = time.perf_counter() - t0
            return per
        return run

    def investigate(c):
        per = {}
        base = f.params()
        for name, extra in [("search_turns", {"user_id": user, "conversation_id": None, "task_id": None, "text": None}),
                            ("search_turns#text", {"user_id": None, "conversation_id": None, "task_id": None,
                                                   "text": "reminder"}),
                            ("turn_task", {"task_id": task[0][0]}), ("turn_steps", {"task_id": task[0][0]}),
                            ("turn_messages", {"task_id": task[0][0]}), ("turn_audit", {"task_id": task[0][0]}),
                            ("turn_findings", {"task_id": task[0][0]})]:
            t0 = time.perf_counter()
            dq.run(c, name.split("#")[0], {**base, **extra, "limit": 200})
            per[name] = time.perf_counter() - t0
        return per

    def weekly(c):
        t0 = time.perf_counter()
        report.build_weekly(c, week, tz=args.tz, run_id=run_id)
        return {"build_weekly": time.perf_counter() - t0}

    pages = [(p, plan_runner(p)) for p in dq.PAGE_QUERIES] + [("trends (hourly)", plan_runner("trends", grain="hour")),
                                                                ("investigate", investigate), ("weekly", weekly)]
    rows = []
    for name, fn in pages:
        times, per = timed(fn)
        slow = max(per, key=per.get)
        rows.append((name, min(times), statistics.median(times), slow, per[slow], len(per)))
    w = max(len(r[0]) for r in rows)
    print(f"\n{'page':<{w}}  queries  best s  median s  ok(<{TARGET_S}s)  slowest query (best s)")
    for name, best, med, slow, slow_t, n in rows:
        ok = "yes" if med < TARGET_S else "NO"
        print(f"{name:<{w}}  {n:>7}  {best:>6.3f}  {med:>8.3f}  {ok:>11}  {slow} ({slow_t:.3f})")
    return 0 if all(r[2] < TARGET_S for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
