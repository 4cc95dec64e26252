"""The one place that opens the warehouse.

Every reader of the database (CLI, rules, dashboard) and its only writer (the
loader) get their connection here, so session settings (UTC) and the schema are
the same everywhere.

DuckDB lets one process hold a file for writing, and while it does no other
process can open the file at all, not even read-only. Writers therefore keep
their connection short; readers retry for a while (`wait_seconds`) and then
raise `DatabaseBusy`, which the CLI and the dashboard turn into a plain note.
"""

from __future__ import annotations

import contextlib

import os
import time
from importlib import resources
from pathlib import Path

import duckdb

from .lock_holder import describe as describe_lock

from .tables import COUNTED_TABLES

SCHEMA_VERSION = "1"
DEFAULT_DB = "trace_audit.duckdb"


class DatabaseError(Exception):
    """A problem opening the warehouse, worded for the user."""


class DatabaseMissing(DatabaseError):
    pass


class DatabaseBusy(DatabaseError):
    pass


def default_db_path() -> str:
    return os.environ.get("TRACE_AUDIT_DB") or DEFAULT_DB


def schema_sql() -> str:
    return resources.files("trace_audit.queries.warehouse").joinpath("schema.sql").read_text("utf-8")


def require(path: str | os.PathLike | None = None) -> str:
    """The warehouse path, or DatabaseMissing (exit 2) when no file is there: every command
    that reads the warehouse refuses a missing one instead of answering from an empty one."""
    db = str(path or default_db_path())
    if db != ":memory:" and not Path(db).exists():
        raise DatabaseMissing(
            f"no trace-audit database at {db}. Create one with: trace-audit ingest PATH --db {db}"
        )
    return db


def is_interrupt(exc: BaseException) -> bool:
    """Ctrl-C, however it surfaced. On SIGINT DuckDB cancels the query it is running and raises
    InterruptException, or (DuckDB 2.0's Python client) RuntimeError("Query interrupted")."""
    return (isinstance(exc, (KeyboardInterrupt, duckdb.InterruptException))
            or (isinstance(exc, RuntimeError) and str(exc).startswith("Query interrupted")))


def _require_duckdb_file(db: str) -> None:
    """An existing file must be a DuckDB database (its magic 'DUCK' at byte 8): DuckDB opens
    some other files (a .jsonl) as an in-memory database, which then stores nothing."""
    try:
        with open(db, "rb") as fh:
            head = fh.read(12)
    except FileNotFoundError:
        return
    except IsADirectoryError:
        raise DatabaseError(f"{db} is a folder, not a DuckDB database; name a .duckdb file or a new path") from None
    except OSError as exc:
        raise DatabaseError(f"cannot open database {db}: {exc.strerror or exc}") from exc
    if head[8:12] != b"DUCK":
        what = "is empty" if not head else "is not a DuckDB database"
        raise DatabaseError(f"{db} {what}; --db must name a DuckDB file or a new path "
                            "(to load a trace file, give it to ingest as a PATH)")


def _is_lock_error(exc: Exception) -> bool:
    text = str(exc).lower()
    return "lock" in text or "conflicting" in text or "being used" in text


def connect(
    path: str | os.PathLike | None = None,
    *,
    read_only: bool = False,
    wait_seconds: float = 0.0,
    create: bool = True,
    on_wait=None,
) -> duckdb.DuckDBPyConnection:
    """Open the warehouse at `path` (default: $TRACE_AUDIT_DB or ./trace_audit.duckdb).

    Writable connections create the file and the schema if needed, unless `create=False`
    (a command that reads traces but writes findings, such as `rules run`: a typo in --db
    must not become an empty warehouse and a clean result). Read-only connections require
    the file to exist. Both run the session in UTC.
    `wait_seconds` retries while another process holds the lock; `on_wait(message)` is called
    once, after a second of waiting, with who holds it (a progress note for the user).
    A path that exists but is not a DuckDB file (a .jsonl named by mistake) is refused.
    """
    db = str(path or default_db_path())
    if db != ":memory:" and (read_only or not create):
        require(db)
    if db != ":memory:" and not read_only:
        parent = Path(db).resolve().parent
        if not parent.exists():
            raise DatabaseError(f"cannot create database {db}: folder {parent} does not exist")
    if db != ":memory:":
        _require_duckdb_file(db)
    started = time.monotonic()
    deadline = started + wait_seconds
    delay = 0.05
    noted = False
    while True:
        try:
            con = duckdb.connect(db, read_only=read_only)
            break
        except duckdb.Error as exc:  # IOException for locks, others for corrupt files
            if _is_lock_error(exc):
                now = time.monotonic()
                if now < deadline:
                    if on_wait and not noted and now - started >= 1.0:
                        on_wait(f"waiting up to {wait_seconds:g} s for database {db}: {describe_lock(db)}")
                        noted = True
                    time.sleep(delay)
                    delay = min(delay * 2, 0.5)
                    continue
                waited = f" after waiting {wait_seconds:g} s" if wait_seconds else ""
                raise DatabaseBusy(
                    f"database {db} is locked{waited}: {describe_lock(db)}; try again when it is done"
                    + (" (or pass --wait SECONDS)" if on_wait else "")
                ) from exc
            raise DatabaseError(f"cannot open database {db}: {exc}") from exc
    con.execute("SET TimeZone = 'UTC'")
    if not read_only:
        ensure_schema(con)
    return con


# Columns added after a table first shipped: CREATE TABLE IF NOT EXISTS leaves an older
# warehouse's table as it was, so each is added here (NULL in the rows loaded before).
ADDED_COLUMNS = [("ingest_files", "tz", "VARCHAR"), ("ingest_files", "tz_source", "VARCHAR"),
                 ("ingest_files", "naive_times", "BOOLEAN"), ("reading_cache_items", "noun", "VARCHAR"),
                 ("tasks", "utc_offset_min", "INTEGER"), ("messages", "utc_offset_min", "INTEGER")]


def ensure_schema(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(schema_sql())
    for table, column, type_ in ADDED_COLUMNS:
        con.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {column} {type_}")
    row = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchall()
    if not row:
        con.execute("INSERT INTO meta VALUES ('schema_version', ?)", [SCHEMA_VERSION])


def mark_changed(con: duckdb.DuckDBPyConnection) -> None:
    """Record that the warehouse changed; the dashboard keys its cache on this."""
    stamp = f"{time.time_ns()}"
    con.execute("DELETE FROM meta WHERE key = 'last_write'")
    con.execute("INSERT INTO meta VALUES ('last_write', ?)", [stamp])


def change_marker(con: duckdb.DuckDBPyConnection) -> str:
    rows = con.execute("SELECT value FROM meta WHERE key = 'last_write'").fetchall()
    return rows[0][0] if rows else "0"


def table_counts(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    out = {}
    for table in COUNTED_TABLES:
        out[table] = con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]
    return out


@contextlib.contextmanager
def deferred_checkpoint(con: duckdb.DuckDBPyConnection):
    """No automatic checkpoint while the block runs: a rules run builds GBs of temp tables, and
    DuckDB's checkpoint at 16 MB of log would compress them all mid-run, once or more (0.5-1.5 s
    on 1M steps) for tables dropped a moment later. The usual threshold is back afterwards; the
    warehouse still checkpoints at its next commit past it or when it is closed."""
    before = con.execute("SELECT current_setting('checkpoint_threshold')").fetchall()[0][0]
    con.execute("SET checkpoint_threshold = '1TB'")
    try:
        yield con
    finally:
        con.execute(f"SET checkpoint_threshold = '{before}'")
