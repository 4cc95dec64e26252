"""A ClickHouse server, through clickhouse-connect (pip install clickhouse-connect).

    trace-audit rules run --engine clickhouse --clickhouse-url clickhouse://user:pw@host:8123/db

The server already holds the warehouse tables (`trace-audit export --to
clickhouse` puts them there); findings still go to the local DuckDB file.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa

from .base import RULE_TABLES, EngineQueryError, EngineUnavailable
from .clickhouse_family import SESSION_SETTINGS, ClickHouseFamily, quote

INSERT_BATCH_ROWS = 500_000


class ClickHouseEngine(ClickHouseFamily):
    name = "clickhouse"

    def __init__(self, url: str | None) -> None:
        if not url:
            raise EngineUnavailable("--engine clickhouse needs --clickhouse-url "
                                    "(e.g. clickhouse://default:@localhost:8123/default), or use --engine chdb "
                                    "to try the ClickHouse dialect without a server")
        try:
            import clickhouse_connect
        except ImportError:
            raise EngineUnavailable("ClickHouse needs the clickhouse-connect package: "
                                    "pip install 'trace-audit[clickhouse]'") from None
        try:
            # One session (temporary tables live in it), UTC, NULLs for join misses.
            self._client = clickhouse_connect.get_client(dsn=url, settings=dict(SESSION_SETTINGS),
                                                         autogenerate_session_id=True)
        except Exception as exc:  # noqa: BLE001 - network / auth errors come in many types
            raise EngineUnavailable(f"cannot connect to ClickHouse at {_redacted(url)}: {exc}") from None

    def execute(self, sql: str) -> None:
        try:
            self._client.command(sql)
        except Exception as exc:  # noqa: BLE001
            raise EngineQueryError(f"clickhouse: {str(exc).strip().splitlines()[0][:600]}") from None

    def query_arrow(self, sql: str) -> pa.Table:
        try:
            return self._client.query_arrow(sql, use_strings=True)
        except Exception as exc:  # noqa: BLE001
            raise EngineQueryError(f"clickhouse: {str(exc).strip().splitlines()[0][:600]}") from None

    def insert_from_duckdb(self, con: duckdb.DuckDBPyConnection, table: str, select_sql: str,
                           columns: list[str]) -> int:
        reader = con.sql(select_sql).to_arrow_reader(INSERT_BATCH_ROWS)
        for batch in reader:
            self._client.insert_arrow(table, pa.Table.from_batches([batch]))
        return self.query_arrow(f"SELECT count() AS n FROM {quote(table)}").column(0)[0].as_py()

    def attach(self, warehouse: duckdb.DuckDBPyConnection) -> None:
        have = set(self.query_arrow("SELECT name FROM system.tables WHERE database = currentDatabase()")
                   .column(0).to_pylist())
        missing = [t for t in RULE_TABLES if t not in have]
        if missing:
            raise EngineUnavailable(f"the ClickHouse database has no {', '.join(missing)} table; load the "
                                    "warehouse first: trace-audit export --to clickhouse --clickhouse-url URL")

    def close(self) -> None:
        try:
            self._client.close()
        except Exception:  # noqa: BLE001 - closing a dead connection
            pass


def _redacted(url: str) -> str:
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password:
        netloc = f"{parts.username}:***@{parts.hostname}" + (f":{parts.port}" if parts.port else "")
        return urlunsplit(parts._replace(netloc=netloc))
    return url
