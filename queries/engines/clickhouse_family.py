"""What the ClickHouse server and embedded chDB share: session settings, DDL,
temporary tables, and turning DuckDB values into ClickHouse literals."""

from __future__ import annotations

from importlib import resources

import pyarrow as pa
from sqlglot import exp

from .base import Engine

# join_use_nulls: a LEFT JOIN miss is NULL (ClickHouse's default is the type's default value,
# which breaks `coalesce(flag, 0) = 0` and `IS NULL` checks written for DuckDB).
# prefer_column_name_to_alias: in WHERE, `value` is the source column even when the SELECT
# list says `coalesce(value, 'missing') AS value` (ClickHouse otherwise substitutes the alias;
# DuckDB and Spark do not).
SESSION_SETTINGS = {
    "join_use_nulls": 1,
    "prefer_column_name_to_alias": 1,
    "session_timezone": "UTC",
    "max_partitions_per_insert_block": 0,
}

_CH_TYPES = {
    "VARCHAR": "String", "JSON": "String", "BOOLEAN": "Bool", "INTEGER": "Int32", "BIGINT": "Int64",
    "DOUBLE": "Float64", "FLOAT": "Float32", "TIMESTAMP WITH TIME ZONE": "DateTime64(6, 'UTC')",
    "TIMESTAMP": "DateTime64(6, 'UTC')", "DATE": "Date",
}


def ddl(table: str) -> str:
    """CREATE TABLE IF NOT EXISTS for a warehouse table (queries/clickhouse/<table>.sql)."""
    return resources.files("trace_audit.queries").joinpath("clickhouse", f"{table}.sql").read_text("utf-8")


def ch_type(duckdb_type: str) -> str:
    return f"Nullable({_CH_TYPES.get(duckdb_type.upper(), 'String')})"


def ch_literal(value) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return exp.Literal.string(str(value)).sql("clickhouse")


def quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


class ClickHouseFamily(Engine):
    dialect = "clickhouse"

    def create_temp_table(self, name: str, select_sql: str) -> None:
        self.execute(f"DROP TEMPORARY TABLE IF EXISTS {quote(name)}")
        self.execute(f"CREATE TEMPORARY TABLE {quote(name)} ENGINE = Memory AS {select_sql}")

    def create_values_table(self, name: str, columns: list[tuple[str, str]], rows: pa.Table) -> None:
        cols = ", ".join(f"{quote(c)} {ch_type(t)}" for c, t in columns)
        self.execute(f"DROP TEMPORARY TABLE IF EXISTS {quote(name)}")
        self.execute(f"CREATE TEMPORARY TABLE {quote(name)} ({cols}) ENGINE = Memory")
        if rows.num_rows:
            values = ", ".join("(" + ", ".join(ch_literal(v) for v in row.values()) + ")"
                               for row in rows.to_pylist())
            self.execute(f"INSERT INTO {quote(name)} VALUES {values}")

    def drop_temp_table(self, name: str) -> None:
        self.execute(f"DROP TEMPORARY TABLE IF EXISTS {quote(name)}")
