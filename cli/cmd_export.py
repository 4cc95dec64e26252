"""`trace-audit export --parquet DIR | --to clickhouse --clickhouse-url URL`"""

from __future__ import annotations

from .errors import UserError
from .options import add_db_option


def register(sub) -> None:
    p = sub.add_parser("export", help="write the warehouse as Parquet, or load it into ClickHouse",
                       description="Move the rule tables (tasks, steps, messages, audit_logs) out of DuckDB: "
                                   "Hive-partitioned Parquet by UTC day (readable by DuckDB, ClickHouse, Spark, "
                                   "and by `trace-audit ingest DIR`), or a ClickHouse database for "
                                   "`rules run --engine clickhouse`. See docs/scale-out.md.")
    add_db_option(p)
    p.add_argument("--parquet", metavar="DIR", help="write DIR/<table>/day=YYYY-MM-DD/*.parquet")
    p.add_argument("--overwrite", action="store_true", help="with --parquet: write into a DIR that already "
                                                            "holds an export (files of the same day are replaced)")
    p.add_argument("--to", choices=["clickhouse"], help="load into a ClickHouse server")
    p.add_argument("--clickhouse-url", metavar="URL",
                   help="clickhouse://user:password@host:8123/database (clickhouse-connect DSN)")
    p.add_argument("--replace", action="store_true", help="with --to clickhouse: empty tables that already "
                                                          "hold rows, then load")
    p.set_defaults(run=run)


def run(args) -> int:
    from ..queries.warehouse import db
    from ..queries.engines import EngineQueryError, EngineUnavailable
    from ..queries.export import ExportError, load_into_clickhouse, write_parquet

    if not args.parquet and not args.to:
        raise UserError("say where to: --parquet DIR, or --to clickhouse --clickhouse-url URL")
    con = db.connect(args.db, read_only=True, wait_seconds=10)
    try:
        if args.parquet:
            try:
                counts = write_parquet(con, args.parquet, overwrite=args.overwrite)
            except ExportError as exc:
                raise UserError(str(exc)) from None
            for table, n in counts.items():
                where = f"{args.parquet}/{table}/day=*/" if n else "(empty: no files)"
                print(f"{table:<11} {n:>12,} rows -> {where}")
        if args.to == "clickhouse":
            from ..queries.engines import open_engine

            try:
                with open_engine("clickhouse", args.clickhouse_url) as eng:
                    counts = load_into_clickhouse(con, eng, replace=args.replace)
            except (EngineUnavailable, EngineQueryError, ExportError) as exc:
                raise UserError(str(exc)) from None
            for table, n in counts.items():
                print(f"{table:<11} {n:>12,} rows -> ClickHouse")
    finally:
        con.close()
    return 0
