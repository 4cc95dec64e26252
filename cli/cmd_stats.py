"""`trace-audit stats [--json] [--errors] [--spool DIR]`"""

from __future__ import annotations

import json
from pathlib import Path

from .options import add_db_option, count


def register(sub) -> None:
    p = sub.add_parser("stats", help="row counts per table, OTLP spans, the receiver's spool, and the quarantine",
                       description="Row counts of the warehouse tables and of stored OTLP spans, the OTLP "
                                   "receiver's spool backlog (requests acknowledged but not loaded yet); "
                                   "--errors lists quarantined records.")
    add_db_option(p)
    p.add_argument("--json", action="store_true", help="print counts as JSON")
    p.add_argument("--errors", action="store_true", help="list quarantined records (file:line: reason)")
    p.add_argument("--limit", type=count, default=50, help="how many quarantined records to list (default 50)")
    p.add_argument("--spool", default=None, metavar="DIR",
                   help="the receiver's spool folder (default: <db>.otlp-spool next to the db, as serve-otlp uses)")
    p.set_defaults(run=run)


def run(args) -> int:
    from ..ingest.receive.spool import backlog
    from ..queries.warehouse import db

    path = db.require(args.db)
    con = db.connect(path, read_only=True, wait_seconds=5)
    try:
        counts = db.table_counts(con)
        if args.errors:
            rows = con.execute(
                "SELECT source_file, line, reason FROM ingest_errors ORDER BY source_file, line LIMIT ?", [args.limit]
            ).fetchall()
            if not rows:
                print(f"nothing quarantined: every record read into {path} loaded")
            for f, line, reason in rows:
                print(f"{f}:{line}: {reason}")
            if counts["ingest_errors"] > len(rows):
                print(f"... {counts['ingest_errors'] - len(rows)} more (use --limit)")
            return 0
        counts["otel_spans"] = con.execute("SELECT count(*) FROM otel_spans").fetchall()[0][0]
        # A warehouse written before the logs signal was read has no otel_logs until its next write.
        has_logs = con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 'otel_logs'")
        if has_logs.fetchall()[0][0]:
            counts["otel_logs"] = con.execute("SELECT count(*) FROM otel_logs").fetchall()[0][0]
    finally:
        con.close()
    spool = Path(args.spool or f"{path}.otlp-spool")  # the receiver's default_spool_dir
    segments, size, failed = backlog(spool)
    if args.json:
        print(json.dumps(dict(counts, spool={"dir": str(spool), "segments": segments, "bytes": size,
                                             "failed_segments": failed})))
        return 0
    width = max(len(k) for k in counts)
    for k, v in counts.items():
        print(f"{k:<{width}}  {v:>10,}")
    if spool.is_dir() or args.spool:
        state = f"{segments} segment(s), {size:,} bytes waiting to load" if segments else "empty"
        print(f"spool {spool}: {state}" + (f"; {failed} segment(s) set aside in failed/" if failed else ""))
    return 0
