"""chDB: the ClickHouse engine embedded in this process (pip install chdb).

Used for tests, CI and trying the ClickHouse dialect without a server: the
warehouse's rule tables are copied into a private chDB session (created with
the same DDL as a real server, via Parquet) and the rules run there.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import uuid

import duckdb
import pyarrow as pa

from .base import EngineQueryError, EngineUnavailable
from .clickhouse_family import SESSION_SETTINGS, ClickHouseFamily, quote


# chDB runs one embedded server per process, bound to the first data path it was
# opened with; every ChdbEngine shares that path and works in a database of its own.
_SERVER_DIR: str | None = None


def _server_path() -> str:
    global _SERVER_DIR
    if _SERVER_DIR is None:
        _SERVER_DIR = tempfile.mkdtemp(prefix="trace-audit-chdb-")
        atexit.register(shutil.rmtree, _SERVER_DIR, True)
    return os.path.join(_SERVER_DIR, "db")


class ChdbEngine(ClickHouseFamily):
    name = "chdb"

    def __init__(self) -> None:
        try:
            from chdb import session
        except ImportError:
            raise EngineUnavailable("--engine chdb needs the chdb package: pip install 'trace-audit[test]' "
                                    "(or pip install chdb)") from None
        self._dir = tempfile.mkdtemp(prefix="trace-audit-chdb-files-")
        try:
            self._session = session.Session(_server_path())
        except RuntimeError as exc:
            raise EngineUnavailable(f"cannot start chDB in this process: {_first_line(exc)}") from None
        self._database = f"trace_audit_{uuid.uuid4().hex[:12]}"
        self.execute(f"CREATE DATABASE {self._database}")
        self.execute(f"USE {self._database}")
        for key, value in SESSION_SETTINGS.items():
            self.execute(f"SET {key} = {value!r}" if isinstance(value, str) else f"SET {key} = {value}")

    def execute(self, sql: str) -> None:
        try:
            self._session.query(sql, "Null")
        except Exception as exc:  # noqa: BLE001 - chdb raises plain RuntimeError
            raise EngineQueryError(f"chdb: {_first_line(exc)}") from None

    def query_arrow(self, sql: str) -> pa.Table:
        try:
            return self._session.query(sql, "ArrowTable")
        except Exception as exc:  # noqa: BLE001
            raise EngineQueryError(f"chdb: {_first_line(exc)}") from None

    def insert_from_duckdb(self, con: duckdb.DuckDBPyConnection, table: str, select_sql: str,
                           columns: list[str]) -> int:
        # Parquet keeps types exactly (UTC microsecond times, NULLs) and streams on both sides.
        path = os.path.join(self._dir, f"{table}.parquet")
        con.execute(f"COPY ({select_sql}) TO '{path}' (FORMAT parquet)")
        cols = ", ".join(quote(c) for c in columns)
        self.execute(f"INSERT INTO {quote(table)} ({cols}) SELECT {cols} FROM file('{path}', Parquet)")
        os.unlink(path)
        return self.query_arrow(f"SELECT count() AS n FROM {quote(table)}").column(0)[0].as_py()

    def attach(self, warehouse: duckdb.DuckDBPyConnection) -> None:
        from ..export import load_into_clickhouse

        load_into_clickhouse(warehouse, self, replace=True)

    def close(self) -> None:
        if self._session is not None:
            try:
                self._session.query(f"DROP DATABASE IF EXISTS {self._database}", "Null")
                self._session.close()
            finally:
                self._session = None
                shutil.rmtree(self._dir, ignore_errors=True)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:600] if text else type(exc).__name__
