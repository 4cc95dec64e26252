"""`trace-audit stats [--json] [--errors]`"""

from __future__ import annotations

import json

from .options import add_db_option


def register(sub) -> None:
    p = sub.add_parser("stats", help="row counts per table, and the quarantine",
                       description="Row counts of the warehouse tables; --errors lists quarantined records.")
    add_db_option(p)
    p.add_argument("--json", action="store_true", help="print counts as JSON")
    p.add_argument("--errors", action="store_true", help="list quarantined records (file:line: reason)")
    p.add_argument("--limit", type=int, default=50, help="how many quarantined records to list (default 50)")
    p.set_defaults(run=run)


def run(args) -> int:
    from ..queries.warehouse import db

    con = db.connect(args.db, read_only=True, wait_seconds=5)
    try:
        counts = db.table_counts(con)
        if args.errors:
            rows = con.execute(
                "SELECT source_file, line, reason FROM ingest_errors ORDER BY source_file, line LIMIT ?", [args.limit]
            ).fetchall()
            for f, line, reason in rows:
                print(f"{f}:{line}: {reason}")
            if counts["ingest_errors"] > len(rows):
                print(f"... {counts['ingest_errors'] - len(rows)} more (use --limit)")
            return 0
        if args.json:
            print(json.dumps(counts))
        else:
            width = max(len(k) for k in counts)
            for k, v in counts.items():
                print(f"{k:<{width}}  {v:>10,}")
    finally:
        con.close()
    return 0
