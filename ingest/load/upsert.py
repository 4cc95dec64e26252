"""Writing rows into the warehouse inside the loader's transaction: replace-by-key upserts,
plain appends into tables that started the file empty, temp-table staging for big files, and
the quarantine. Called by the loader only (`loader.py`, the one writer)."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

import duckdb
import pyarrow as pa

from ...queries.warehouse.tables import KEYS


class Stage:
    """Temp tables shaped like the warehouse tables, one per table a big file fills."""

    def __init__(self, con):
        self.con = con
        self.tables: list[str] = []
        self.prefix = f"stage_{uuid.uuid4().hex[:8]}_"
        self.errors_table = self.prefix + "ingest_errors"
        con.execute(f"CREATE TEMP TABLE {self.errors_table} AS SELECT * FROM ingest_errors LIMIT 0")

    def name(self, table: str) -> str:
        return self.prefix + table

    def append(self, table: str, rows: pa.Table) -> None:
        if table not in self.tables:
            self.con.execute(f"CREATE TEMP TABLE {self.name(table)} AS SELECT * FROM {table} LIMIT 0")
            self.tables.append(table)
        self.con.register("stage_in", rows)
        try:
            self.con.execute(f"INSERT INTO {self.name(table)} BY NAME SELECT * FROM stage_in")
        finally:
            forget(self.con, "stage_in")

    def drop(self) -> None:
        for name in [self.name(t) for t in self.tables] + [self.errors_table]:
            try:
                self.con.execute(f"DROP TABLE IF EXISTS {name}")
            except duckdb.Error:
                pass


def sources_in(rows: pa.Table) -> set[str]:
    if "source" in rows.column_names:
        return {s for s in rows.column("source").unique().to_pylist() if s}
    return set()


def empty_tables(con) -> set[str]:
    """The keyed tables with no rows at all (count(*) of a table is read from its metadata)."""
    tables = sorted(KEYS)
    counts = con.execute("SELECT " + ", ".join(f"(SELECT count(*) FROM {t})" for t in tables)).fetchall()[0]
    return {t for t, n in zip(tables, counts) if n == 0}


def append(con, table: str, rows: pa.Table) -> int:
    """Plain insert into a table that held nothing when the file started (see `drop_repeated_keys`)."""
    if rows.num_rows == 0:
        return 0
    con.register("batch_in", rows)
    try:
        con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM batch_in")
    finally:
        forget(con, "batch_in")
    return rows.num_rows


def drop_repeated_keys(con, table: str) -> int:
    """After plain appends of one file into a table that was empty: keep the last record
    (highest source_line) of each key, as the upsert would. Returns the rows removed."""
    keys = KEYS[table]
    key_list = ", ".join(keys)
    n, distinct = con.execute(f"SELECT count(*), count(DISTINCT ({key_list})) FROM {table}").fetchall()[0]
    if n == distinct:
        return 0
    con.execute(
        f"DELETE FROM {table} WHERE rowid IN (SELECT rowid FROM ("
        f"SELECT rowid, row_number() OVER (PARTITION BY {key_list} ORDER BY source_line DESC, rowid DESC) AS rn_ "
        f"FROM {table}) WHERE rn_ > 1)"
    )
    return n - distinct


def upsert(con, table: str, rows: pa.Table) -> int:
    """Replace-by-key of an Arrow batch (see `upsert_from`)."""
    if rows.num_rows == 0:
        return 0
    # Each row's place in the batch breaks ties of source_line (a one-line JSON array gives
    # every record line 1): the last record of a key wins whatever the file's shape.
    con.register("batch_in", rows.append_column("pos_", pa.array(range(rows.num_rows), pa.int64())))
    try:
        return upsert_from(con, table, "batch_in", position="pos_")
    finally:
        forget(con, "batch_in")


def upsert_from(con, table: str, source: str, position: str = "rowid") -> int:
    """Replace-by-key: delete the stored rows whose keys come again, insert `source`'s rows.

    Within `source` the last record of a key (highest source_line, then highest `position`:
    rowid of a staged table, or a column of the batch that is not stored) wins; the
    window that picks it runs only when `source` really repeats a key (it is
    the costly part). Returns the number of distinct keys written.
    """
    keys = KEYS[table]
    key_list = ", ".join(keys)
    match = " AND ".join(f"{table}.{k} = b.{k}" for k in keys)
    n, distinct = con.execute(f"SELECT count(*), count(DISTINCT ({key_list})) FROM {source}").fetchall()[0]
    if n == 0:
        return 0
    con.execute(f"DELETE FROM {table} USING (SELECT DISTINCT {key_list} FROM {source}) b WHERE {match}")
    unstored = f" EXCLUDE ({position})" if position != "rowid" else ""
    if distinct == n:
        con.execute(f"INSERT INTO {table} BY NAME SELECT *{unstored} FROM {source}")
    else:
        drop = f"rn_, {position}" if unstored else "rn_"
        con.execute(
            f"INSERT INTO {table} BY NAME SELECT * EXCLUDE ({drop}) FROM ("
            f"SELECT *, row_number() OVER (PARTITION BY {key_list} ORDER BY source_line DESC, {position} DESC) AS rn_ "
            f"FROM {source}) WHERE rn_ = 1"
        )
    return distinct


def quarantine(con, shown: str, digest: str, errors: list[tuple[int, str, str]], into: str = "ingest_errors") -> None:
    now = datetime.now(timezone.utc)
    n = len(errors)
    table = pa.table({
        "source_file": pa.array([shown] * n, pa.string()),
        "line": pa.array([e[0] for e in errors], pa.int64()),
        "raw": pa.array([e[1] for e in errors], pa.string()),
        "reason": pa.array([e[2] for e in errors], pa.string()),
        "sha256": pa.array([digest] * n, pa.string()),
        "ingested_at": pa.array([now] * n, pa.timestamp("us", tz="UTC")),
    })
    con.register("errors_in", table)
    try:
        con.execute(f"INSERT INTO {into} BY NAME SELECT * FROM errors_in")
    finally:
        forget(con, "errors_in")


def forget(con, name: str) -> None:
    # After a failed statement the transaction is aborted and even unregister
    # fails; that second error must not hide the first one.
    try:
        con.unregister(name)
    except duckdb.Error:
        pass
