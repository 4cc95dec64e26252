#!/usr/bin/env python3
"""Ingest throughput and memory, next to DuckDB's own JSON reader as the floor.

    python bench/ingest.py                          # 1M steps, then a ~1 GB single file for peak RSS
    python bench/ingest.py --steps 200000 --rss-mb 0   # quick look
    python bench/ingest.py --markdown docs/benchmarks.md

What runs, each in its own subprocess (timed wall-clock; peak RSS from that
child's own rusage via os.wait4, so runs do not mask each other):

  trace-audit   `trace-audit ingest DIR --db fresh.duckdb --tz Asia/Shanghai`:
                framing, classification, field decoding with checks and
                quarantine, upsert by key, one transaction per file, commit.
  floor         DuckDB alone: `CREATE TABLE t AS SELECT * FROM read_json(file,
                format='newline_delimited', columns={...declared...})` for the
                same files into a fresh database file. No checks, no keys, no
                time zones: the cost of parsing and storing the bytes.
  minimum       DuckDB alone doing what no lossless ingest can skip: each
                record's key list and its fields parsed, then the same with
                each line's number (see MINIMUM_SCRIPT). Shown as seconds and
                as a multiple of the floor's wall time: what is left between
                it and 2x is all the room for checks, conversions, hashing,
                quarantine, upsert and redaction.

Data: seed-004 dumps (agent_task, agent_step, audit_logs) from
`sample_data/generate.py --scale N --formats seed004`, N chosen for --steps.
The peak-RSS run takes one agent_step file of about --rss-mb (copies of the
generated steps with task ids made unique per copy) so the whole gigabyte is
one file, i.e. one transaction: the hard case for memory.

The machine this runs on may be shared: compare the ratio columns, measured in
the same run, more than the absolute figures. CPU seconds (user + system of
the child) are less disturbed by other load than wall seconds.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GENERATOR = REPO / "sample_data" / "generate.py"
STEPS_PER_SCALE = 3389  # agent_step rows per --scale unit of the generator (measured)

# Declared column types for the floor; anything else is read as VARCHAR.
FLOOR_TYPES = {
    "id": "BIGINT", "task_id": "BIGINT", "seq": "INTEGER", "verified": "INTEGER", "attempts": "INTEGER",
    "total_steps": "INTEGER", "success_steps": "INTEGER", "replanned": "INTEGER",
    "create_time": "TIMESTAMP", "finish_time": "TIMESTAMP",
}

FLOOR_SCRIPT = r"""
import duckdb, json, sys
db, spec = sys.argv[1], json.loads(sys.argv[2])
con = duckdb.connect(db)
con.execute("SET enable_progress_bar = false")
total = 0
for i, (path, columns) in enumerate(spec):
    cols = "{" + ", ".join(f"'{k}': '{v}'" for k, v in columns.items()) + "}"
    con.execute(f"CREATE TABLE t{i} AS SELECT * FROM read_json('{path}', format='newline_delimited', columns={cols})")
    total += con.execute(f"SELECT count(*) FROM t{i}").fetchall()[0][0]
con.close()
print(total)
"""

# What no lossless ingest can skip, done by DuckDB alone: each record's key
# list (records are recognised by their fields, and keys no mapping knows are
# kept) and its fields parsed; with argv[3] == "lines", also every line's
# number (to quarantine a line or find a row's source). No checks,
# conversions or keys; one statement per file into a fresh database file,
# like the floor.
MINIMUM_SCRIPT = r"""
import duckdb, json, sys
db, spec, numbered = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3] == "lines"
con = duckdb.connect(db)
con.execute("SET enable_progress_bar = false")
total = 0
for i, (path, columns) in enumerate(spec):
    struct = json.dumps({k: "VARCHAR" for k in columns}).replace("'", "''")
    lines = f"read_csv('{path}', columns={{'raw': 'VARCHAR'}}, header=false, delim=E'\\x01', quote='', escape='', " \
            f"auto_detect=false, new_line='\\n')"
    con.execute(
        f"CREATE TABLE t{i} AS SELECT {'ordinality AS line, ' if numbered else ''}len(json_keys(raw)) AS n_keys, "
        f"json_transform(raw, '{struct}') AS v FROM {lines}{' WITH ORDINALITY' if numbered else ''}")
    total += con.execute(f"SELECT count(*) FROM t{i}").fetchall()[0][0]
con.close()
print(total)
"""

INGEST_SCRIPT = r"""
import sys
from trace_audit.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def run_child(argv: list[str], cwd: Path | None = None) -> tuple[float, float, int, str]:
    """(wall seconds, CPU seconds, peak RSS in bytes, stdout) of one child process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd)
    streams: dict[str, bytes] = {}
    readers = [threading.Thread(target=lambda n, f: streams.__setitem__(n, f.read()), args=(n, f))
               for n, f in (("out", proc.stdout), ("err", proc.stderr))]
    for t in readers:
        t.start()
    _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage
    for t in readers:
        t.join()
    out, err = streams["out"].decode(), streams["err"].decode()
    seconds = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"child failed ({proc.returncode}): {' '.join(argv[:4])}...\n{out}\n{err}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, out


def generate(out: Path, steps: int) -> list[Path]:
    existing = sorted((out / "seed004").glob("*.jsonl"))
    if existing:  # a --workdir from an earlier run: same data, measured again
        return existing
    if GENERATOR.exists():
        scale = max(1, math.ceil(steps / STEPS_PER_SCALE))
        subprocess.run([sys.executable, str(GENERATOR), "--out", str(out), "--scale", str(scale),
                        "--formats", "seed004"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        folder = out / "seed004"
    else:
        folder = out / "seed004"
        _fallback_generate(folder, steps)
    return sorted(p for p in folder.iterdir() if p.suffix == ".jsonl")


def _fallback_generate(folder: Path, steps: int) -> None:
    """Plain seed-004 rows, for when the sample generator is not there."""
    import random

    folder.mkdir(parents=True, exist_ok=True)
    rnd = random.Random(4)
    tools = ["create_reminder", "list_reminders", "verify_result", "create_todo", "send_message"]
    with open(folder / "agent_task.jsonl", "w") as ft, open(folder / "agent_step.jsonl", "w") as fs:
        sid = 0
        for t in range((steps + 1) // 2):
            ft.write(json.dumps({"id": t, "user_id": rnd.randint(1, 5000), "conversation_id": f"c{t // 3}",
                                 "goal": "明天早上8点提醒我开会", "status": "SUCCESS", "total_steps": 2,
                                 "success_steps": 2, "replanned": 0, "create_time": "2026-11-08 08:00:00",
                                 "finish_time": "2026-11-08 08:00:05"}, ensure_ascii=False) + "\n")
            for s in (1, 2):
                sid += 1
                fs.write(json.dumps({"id": sid, "task_id": t, "seq": s, "tool": rnd.choice(tools),
                                     "args_json": json.dumps({"content": "开会", "remind_at": "2026-11-09 08:00:00"},
                                                             ensure_ascii=False),
                                     "reason": "user asked for a reminder", "status": "SUCCESS",
                                     "verified": rnd.choice([0, 1]), "attempts": 1, "error": None,
                                     "create_time": "2026-11-08 08:00:01"}, ensure_ascii=False) + "\n")


def floor_spec(files: list[Path]) -> list[tuple[str, dict[str, str]]]:
    spec = []
    for path in files:
        with open(path, encoding="utf-8") as fh:
            keys: dict[str, None] = {}
            for _, line in zip(range(1000), fh):  # columns of the first records
                keys.update(dict.fromkeys(json.loads(line)))
        spec.append((str(path), {k: FLOOR_TYPES.get(k, "VARCHAR") for k in keys}))
    return spec


def bench_pair(label: str, files: list[Path], data_dir: Path | None, work: Path, extra: tuple[str, ...] = ()) -> dict:
    size = sum(p.stat().st_size for p in files)
    db = work / f"{label}-ta.duckdb"
    floor_db = work / f"{label}-floor.duckdb"
    for p in (db, floor_db):  # fresh databases, even after an interrupted run
        p.unlink(missing_ok=True)
        Path(str(p) + ".wal").unlink(missing_ok=True)
    target = [str(data_dir)] if data_dir else [str(p) for p in files]
    ta_s, ta_cpu, ta_rss, out = run_child([sys.executable, "-c", INGEST_SCRIPT, "ingest", *target, "--db", str(db),
                                   "--tz", "Asia/Shanghai", "--no-progress", "--json", *extra])
    start = out.find("{")
    if start > 0:
        print(f"note: ingest printed before its JSON: {out[:start]!r}", file=sys.stderr)
    totals = json.JSONDecoder().raw_decode(out[start:])[0]["totals"]
    rows = sum(v for k, v in totals.items() if k != "ingest_errors")
    fl_s, fl_cpu, fl_rss, out = run_child([sys.executable, "-c", FLOOR_SCRIPT, str(floor_db), json.dumps(floor_spec(files))])
    floor_rows = int(out.strip())
    minimum = {}
    min_db = work / f"{label}-minimum.duckdb"
    for mode in ("keys", "lines"):
        min_db.unlink(missing_ok=True)
        m_s, m_cpu, _, out = run_child([sys.executable, "-c", MINIMUM_SCRIPT, str(min_db),
                                        json.dumps(floor_spec(files)), mode])
        minimum[mode] = (m_s, m_cpu)
        if int(out.strip()) != floor_rows:
            print(f"note: {label}: the lossless minimum read {int(out.strip()):,} records, the floor {floor_rows:,}",
                  file=sys.stderr)
    for p in (db, floor_db, min_db):
        p.unlink(missing_ok=True)
        Path(str(p) + ".wal").unlink(missing_ok=True)
    return {"label": label, "bytes": size, "rows": rows, "floor_rows": floor_rows, "errors": totals["ingest_errors"],
            "ta_s": ta_s, "ta_cpu": ta_cpu, "ta_rss": ta_rss, "fl_s": fl_s, "fl_cpu": fl_cpu, "fl_rss": fl_rss,
            "minimum": minimum}


def big_step_file(source: Path, target: Path, min_bytes: int) -> int:
    """Copies of `source` with task ids made unique per copy, until min_bytes."""
    data = source.read_bytes()
    pattern = re.compile(rb'"task_id": (\d+)')
    written = copy = 0
    with open(target, "wb") as out:
        while written < min_bytes:
            copy += 1
            # copy k: task id N becomes kN with a 0 between (ids have no leading zeros, so all stay distinct)
            block = data if copy == 1 else pattern.sub(rb'"task_id": %d0\1' % copy, data)
            out.write(block)
            written += len(block)
    return written


def table(results: list[dict]) -> str:
    mib = 1024 * 1024
    lines = [
        "| input | rows | MB | trace-audit s (CPU s) | rows/s | MB/s | peak RSS | floor s (CPU s) | floor rows/s "
        "| floor MB/s | floor RSS | wall vs floor | CPU vs floor | minimum: keys + parse s (CPU s) "
        "| minimum + line numbers s (CPU s) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['label']} | {r['rows']:,} | {r['bytes'] / mib:,.0f} | {r['ta_s']:.1f} ({r['ta_cpu']:.1f}) "
            f"| {r['rows'] / r['ta_s']:,.0f} | {r['bytes'] / mib / r['ta_s']:.0f} | {r['ta_rss'] / mib:,.0f} MiB "
            f"| {r['fl_s']:.1f} ({r['fl_cpu']:.1f}) | {r['floor_rows'] / r['fl_s']:,.0f} | {r['bytes'] / mib / r['fl_s']:.0f} "
            f"| {r['fl_rss'] / mib:,.0f} MiB | {r['ta_s'] / r['fl_s']:.2f}x | {r['ta_cpu'] / r['fl_cpu']:.2f}x "
            + "".join(f"| {r['minimum'][m][0]:.1f} ({r['minimum'][m][1]:.1f}): {r['minimum'][m][0] / r['fl_s']:.2f}x "
                      for m in ("keys", "lines")) + "|"
        )
    return "\n".join(lines)


def main() -> int:
    if sys.argv[1:2] == ["--make-big"]:
        big_step_file(Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4]))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=1_000_000, help="agent_step rows to generate (default 1,000,000)")
    ap.add_argument("--rss-mb", type=int, default=1024, help="size of the single-file peak-RSS run (0: skip)")
    ap.add_argument("--workdir", help="where data and databases go (default: a temporary folder, removed after); "
                                      "data already there is reused")
    ap.add_argument("--markdown", help="also write the table to this file")
    ap.add_argument("--no-redaction", action="store_true",
                    help="ingest with redaction off (it is on by default), to see what it costs")
    args = ap.parse_args()

    work = Path(args.workdir or tempfile.mkdtemp(prefix="ta-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        t0 = time.perf_counter()
        files = generate(work / "data", args.steps)
        print(f"generated {sum(p.stat().st_size for p in files) / 2**20:,.0f} MB of seed-004 dumps "
              f"in {time.perf_counter() - t0:.0f} s: {', '.join(p.name for p in files)}", file=sys.stderr)
        extra = ("--no-redaction",) if args.no_redaction else ()
        results = [bench_pair(f"seed-004 dumps ({len(files)} files)", files, files[0].parent, work, extra)]
        print(table(results), file=sys.stderr)
        if args.rss_mb:
            step_file = next(p for p in files if p.name.startswith("agent_step"))
            big = work / "big" / "agent_step_big.jsonl"
            big.parent.mkdir(exist_ok=True)
            # In a child: a forked child's peak RSS starts from its parent's,
            # so this script must stay small while it measures.
            subprocess.run([sys.executable, __file__, "--make-big", str(step_file), str(big),
                            str(args.rss_mb * 1024 * 1024)], check=True)
            results.append(bench_pair("one agent_step file", [big], None, work, extra))
        text = table(results)
        print(text)
        for r in results:
            if r["rows"] != r["floor_rows"]:
                print(f"note: {r['label']}: trace-audit stored {r['rows']:,} rows, the floor {r['floor_rows']:,}",
                      file=sys.stderr)
        if args.markdown:
            Path(args.markdown).write_text(text + "\n", encoding="utf-8")
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
