"""Moving the warehouse out of DuckDB: Hive-partitioned Parquet, or a ClickHouse database.

    write_parquet(con, "out/")        out/steps/day=2026-11-03/data_0.parquet ...
    load_into_clickhouse(con, engine) the same tables into ClickHouse (or chDB)

Parquet is the interchange every engine reads the same way (DuckDB, ClickHouse,
Spark): partitions are by `day`, a DATE of the row's UTC time, never by a
timestamp (engines disagree on how they spell and parse timestamp partition
values). JSON columns are written as plain text, which every engine reads as a
string. Each file carries `trace_audit_table` in its key/value metadata so
`trace-audit ingest DIR` knows which table a file belongs to.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import duckdb

from .engines.base import RULE_TABLES
from .warehouse.tables import PARQUET_TABLE_KEY

# The UTC day a row belongs to (its partition).
DAY_OF = {
    "tasks": "started_at",
    "steps": "coalesce(started_at, ended_at)",
    "messages": "created_at",
    "audit_logs": "created_at",
}


class ExportError(Exception):
    """An export that cannot go ahead; the text says what to do."""


def columns(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[str, str]]:
    return [(r[0], r[1]) for r in con.execute(f"DESCRIBE {table}").fetchall()]


def select_sql(con: duckdb.DuckDBPyConnection, table: str, with_day: bool = False) -> str:
    """The table's rows with JSON as text (and, for Parquet, the partition day)."""
    cols = [f"CAST({name} AS VARCHAR) AS {name}" if typ == "JSON" else name for name, typ in columns(con, table)]
    if with_day:
        cols.append(f"CAST({DAY_OF[table]} AS DATE) AS day")
    return f"SELECT {', '.join(cols)} FROM {table}"


def write_parquet(con: duckdb.DuckDBPyConnection, out_dir: str | Path, overwrite: bool = False) -> dict[str, int]:
    """Write each rule table under out_dir/<table>/day=YYYY-MM-DD/; returns rows per table."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ExportError(f"{out}: exists and is not a directory; choose a directory for --parquet")
    clash = [t for t in RULE_TABLES if (out / t).exists() and any((out / t).iterdir())]
    if clash and not overwrite:
        raise ExportError(f"{out}: already holds {', '.join(clash)}; choose an empty directory or pass --overwrite")
    out.mkdir(parents=True, exist_ok=True)
    # Written beside the target first, then each table's folder replaces the old one whole:
    # writing over an export left its old day files, so a 3-step warehouse read back as 5,208 steps.
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.export-", dir=out))
    try:
        counts = {}
        for table in RULE_TABLES:
            target = (staging / table).as_posix().replace("'", "''")
            opts = f"FORMAT parquet, PARTITION_BY (day), KV_METADATA {{{PARQUET_TABLE_KEY}: '{table}'}}"
            n = con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]
            if n:
                con.execute(f"COPY ({select_sql(con, table, with_day=True)}) TO '{target}' ({opts})")
            counts[table] = n
        for table in RULE_TABLES:
            old = out / table
            if old.is_dir() and not old.is_symlink():
                shutil.rmtree(old)
            elif old.exists() or old.is_symlink():
                old.unlink()
            if (staging / table).exists():
                os.replace(staging / table, old)
        return counts
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def load_into_clickhouse(con: duckdb.DuckDBPyConnection, target, replace: bool = False) -> dict[str, int]:
    """Create the tables on a ClickHouse engine (server or chDB) and copy the rule tables into it.

    A table that already holds rows is refused unless `replace` (then it is
    emptied first): MergeTree does not replace rows by key, so loading twice
    would double every finding.
    """
    from .engines.clickhouse_family import ddl, quote

    counts = {}
    for table in RULE_TABLES:
        target.execute(ddl(table))
        have = target.query_arrow(f"SELECT count() AS n FROM {quote(table)}").column(0)[0].as_py()
        if have and not replace:
            raise ExportError(f"ClickHouse table {table} already holds {have:,} rows; pass --replace to empty "
                              "it and load again (loading twice would duplicate rows)")
        if have:
            target.execute(f"TRUNCATE TABLE {quote(table)}")
        names = [c for c, _ in columns(con, table)]
        counts[table] = target.insert_from_duckdb(con, table, select_sql(con, table), names)
    return counts
