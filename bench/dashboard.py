"""How long the queries behind each dashboard page take (target: < 0.5 s per page on 1M steps),
and how long each page takes to render on the sample month (target: < 1 s).

    python bench/dashboard.py --db /tmp/big.duckdb              # an existing warehouse
    python bench/dashboard.py --build /tmp/big.duckdb --scale 193  # generate ~1M steps first
    python bench/dashboard.py --render                          # page renders on the sample month

Each page's queries run exactly as the page runs them (`page_plan`: its stages, then
its queries, with the same bound filters: the busiest ISO week against the one before,
all versions, all tools), on a fresh read-only connection, `--repeat` times; the table
shows the best and the median total per page (wall clock, and the process CPU time,
which a busy shared machine disturbs less), and the slowest step. The page cache
(st.cache_data) is not involved: these are cold, uncached numbers. The investigation
view and the weekly report are timed the same way.

Two costs are shared rather than per page, and printed as their own rows: "every page"
(what the app frame runs before any page: freshness, filter options, rule runs, data
clock) and "per data change" (the step lag, measured once after each ingest or rule
run and cached for every page and session). The page rows take the step lag as cached.

`--render` builds the sample month (or uses `--sample-db`) and times every page through
Streamlit's AppTest, cold (caches cleared) and warm (the same view again).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET_S = 0.5


def build(db_path: str, scale: int) -> None:
    from trace_audit.ingest.load.loader import ingest
    from trace_audit.queries.warehouse import db

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


RENDER_PAGES = ["overview", "incidents", "patterns", "stuck", "trends", "investigate", "weekly", "rules"]
RENDER_TARGET_S = 1.0


def render(sample_db: str | None, repeat: int, tz: str) -> int:
    """Time every page through Streamlit's AppTest on the sample month (W47 selected)."""
    os.environ.setdefault("STREAMLIT_LOGGER_LEVEL", "error")  # no "bare mode" warnings per run
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from trace_audit.dashboard.serve import app_path
    from trace_audit.queries.warehouse import db

    with tempfile.TemporaryDirectory() as tmp:
        path = sample_db
        if not path:
            from trace_audit.cli.cmd_demo import build_demo_db

            path = str(Path(tmp) / "sample.duckdb")
            t0 = time.perf_counter()
            build_demo_db(path)
            print(f"sample month built in {time.perf_counter() - t0:.1f} s", flush=True)
        con = db.connect(path, read_only=True)
        run_id = con.execute("SELECT run_id FROM rule_runs ORDER BY started_at DESC LIMIT 1").fetchall()[0][0]
        task = con.execute("SELECT task_id FROM findings WHERE run_id = ? AND rule_id = 'said_but_not_done' "
                           "AND task_id IS NOT NULL ORDER BY task_id LIMIT 1", [run_id]).fetchall()[0][0]
        con.close()
        os.environ["TRACE_AUDIT_DB"] = path
        os.environ["TRACE_AUDIT_TZ"] = tz
        params = {"from": "2026-11-16", "to": "2026-11-22"}
        extra = {"investigate": {"task": task}, "weekly": {"week": "2026-W47"}}
        _quiet_streamlit()
        print(f"load average before: {os.getloadavg()[0]:.1f}")
        print(f"\n{'page':<12}  cold best s  cold median s  warm median s  ok(<{RENDER_TARGET_S:g}s)")
        ok_all = True
        for page in RENDER_PAGES:
            cold, warm = [], []
            for _ in range(repeat):
                at = AppTest.from_file(app_path(), default_timeout=60)
                for k, v in {**params, **extra.get(page, {})}.items():
                    at.query_params[k] = v
                at.run()                      # the default page; sets up the session
                _quiet_streamlit()
                st.cache_data.clear()
                t0 = time.perf_counter()
                at.switch_page(f"views/{page}.py").run()
                cold.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                at.run()
                warm.append(time.perf_counter() - t0)
                if at.exception:
                    raise SystemExit(f"{page}: {[e.value for e in at.exception]}")
            ok = statistics.median(cold) < RENDER_TARGET_S
            ok_all &= ok
            print(f"{page:<12}  {min(cold):>11.3f}  {statistics.median(cold):>13.3f}  "
                  f"{statistics.median(warm):>13.3f}  {'yes' if ok else 'NO':>8}")
        print(f"load average after: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return 0 if ok_all else 1


def _quiet_streamlit() -> None:
    """AppTest outside `streamlit run` warns about its bare mode on every run; keep the table readable."""
    import logging

    for name in list(logging.root.manager.loggerDict):
        if name.startswith("streamlit"):
            logging.getLogger(name).setLevel(logging.ERROR)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", help="existing warehouse to measure")
    ap.add_argument("--build", metavar="PATH", help="generate and ingest a warehouse here first")
    ap.add_argument("--scale", type=int, default=193, help="generator scale for --build (193 ~ 1.06M steps)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--tz", default="Asia/Shanghai")
    ap.add_argument("--week", default=None, help="ISO week to filter on (default: the busiest)")
    ap.add_argument("--render", action="store_true", help="time page renders (AppTest) on the sample month instead")
    ap.add_argument("--sample-db", help="with --render: an existing sample-month warehouse (default: build one)")
    args = ap.parse_args(argv)
    if args.render:
        return render(args.sample_db, args.repeat, args.tz)
    path = args.build or args.db
    if not path:
        ap.error("give --db PATH or --build PATH")
    if args.build and not Path(args.build).exists():
        build(args.build, args.scale)

    from trace_audit.queries import dashboard_queries as dq
    from trace_audit.queries.warehouse import db
    from trace_audit.dashboard import report

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
        times, cpus, worst = [], [], {}
        for _ in range(args.repeat):
            c = fresh()
            try:
                c0, t0 = cpu_s(), time.perf_counter()
                per = fn(c)
                times.append(time.perf_counter() - t0)
                cpus.append(cpu_s() - c0)
                for k, v in per.items():
                    worst[k] = min(worst.get(k, 1e9), v)
            finally:
                c.close()
        return times, cpus, worst

    c = fresh()
    lag = dq.step_lag(c)
    now = dq.data_clock(c, run_id)
    c.close()

    def plan_runner(page, **extra):
        def run(c):
            plan = dq.page_plan(page, f, now, lag=lag, **extra)
            per = {}
            for stage in plan.stages:
                t0 = time.perf_counter()
                dq.run_stage(c, stage, plan.params)
                per[stage] = time.perf_counter() - t0
            for key, (name, params) in plan.queries.items():
                t0 = time.perf_counter()
                dq.run(c, name, params)
                per[name] = time.perf_counter() - t0
            return per
        return run

    def every_page(c):
        per = {}
        for name, fn in [("freshness", lambda: dq.run(c, "freshness")),
                         ("filter_options", lambda: dq.run(c, "filter_options")),
                         ("rule_runs", lambda: dq.run(c, "rule_runs")),
                         ("data_clock", lambda: dq.data_clock(c, run_id))]:
            t0 = time.perf_counter()
            fn()
            per[name] = time.perf_counter() - t0
        return per

    def per_change(c):
        t0 = time.perf_counter()
        dq.step_lag(c)
        return {"step_lag": time.perf_counter() - t0}

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
        report.build_weekly(c, week, tz=args.tz, run_id=run_id, lag=lag)
        return {"build_weekly": time.perf_counter() - t0}

    pages = [(p, plan_runner(p)) for p in dq.PAGE_QUERIES] + [
        ("trends (hourly)", plan_runner("trends", grain="hour")),
        ("trends (latency)", plan_runner("trends", latency=True)),
        ("investigate", investigate), ("weekly", weekly)]
    shared = [("every page (app frame)", every_page), ("per data change (step lag)", per_change)]
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    rows = []
    for name, fn in pages + shared:
        times, cpus, per = timed(fn)
        slow = max(per, key=per.get)
        rows.append((name, min(times), statistics.median(times), statistics.median(cpus), slow, per[slow], len(per)))
    w = max(len(r[0]) for r in rows)
    print(f"\n{'page':<{w}}  steps  best s  median s  cpu s  ok(<{TARGET_S}s)  slowest step (best s)")
    for i, (name, best, med, cpu, slow, slow_t, n) in enumerate(rows):
        if i == len(pages):
            print("shared:")
        ok = "yes" if med < TARGET_S else "NO"
        print(f"{name:<{w}}  {n:>5}  {best:>6.3f}  {med:>8.3f}  {cpu:>5.2f}  {ok:>11}  {slow} ({slow_t:.3f})")
    print(f"load average after: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return 0 if all(r[2] < TARGET_S for r in rows[:len(pages)]) else 1


def cpu_s() -> float:
    """CPU seconds used by this process (all DuckDB threads)."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


if __name__ == "__main__":
    sys.exit(main())
