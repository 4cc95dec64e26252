"""Make a big warehouse from a small one: N copies of every turn under new ids.

    python bench/replicate_warehouse.py --from /tmp/1m.duckdb --to /tmp/10m.duckdb --copies 10

Generating and ingesting 10M steps of JSONL takes the better part of an hour on two
cores; for timing rule re-runs at scale the content only has to be realistic and the
ids distinct, so this copies the turns inside DuckDB instead. Copy k keeps the times
and contents of the original and appends `~k` to every id that joins rows (task,
conversation, user, message, audit), so each copy is a separate population of users.
"""

from __future__ import annotations

import argparse
import os
import time

import duckdb

ID_COLUMNS = {
    "tasks": ["task_id", "conversation_id", "user_id"],
    "steps": ["task_id"],
    "messages": ["message_id", "conversation_id", "user_id", "task_id"],
    "audit_logs": ["audit_id", "user_id", "task_id"],
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--from", dest="src", required=True)
    ap.add_argument("--to", dest="dst", required=True)
    ap.add_argument("--copies", type=int, default=10)
    args = ap.parse_args()
    for suffix in ("", ".wal"):
        if os.path.exists(args.dst + suffix):
            os.unlink(args.dst + suffix)
    from trace_audit.queries.warehouse import db

    con = db.connect(args.dst)
    con.execute(f"ATTACH '{args.src}' AS src (READ_ONLY)")
    t0 = time.perf_counter()
    for table, ids in ID_COLUMNS.items():
        replaced = ", ".join(f"CASE WHEN {c} IS NULL THEN NULL ELSE {c} || '~' || k END AS {c}" for c in ids)
        con.execute(
            f"INSERT INTO {table} BY NAME SELECT t.* REPLACE ({replaced}) "
            f"FROM src.{table} t, (SELECT CAST(range AS VARCHAR) AS k FROM range({args.copies})) copies"
        )
    con.execute("DETACH src")
    db.mark_changed(con)
    counts = {t: con.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0] for t in ID_COLUMNS}
    con.close()
    print(f"{args.dst}: {counts} in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
