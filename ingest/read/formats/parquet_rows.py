"""Parquet rows whose values the warehouse cannot take are quarantined one by one.

A Parquet file from elsewhere may hold a column as text where the warehouse has a number or a
time (`total_steps` "x", `started_at` "not a time"): one such value failed the whole file at
insert, with no quarantine row. Each batch is checked here with DuckDB's own casts (TRY_CAST
into the warehouse column's type, in a private in-memory database, as the readers may have):
rows with a value that does not cast are quarantined with the column and value, the rest go on.
Columns already of the warehouse's type are not looked at.
"""

from __future__ import annotations

import json
import threading

import duckdb
import pyarrow as pa

from ....queries.warehouse.types import arrow_schema

_local = threading.local()


def _con() -> duckdb.DuckDBPyConnection:
    con = getattr(_local, "con", None)
    if con is None:
        con = _local.con = duckdb.connect()
        con.execute("SET TimeZone = 'UTC'")
    return con


def checked(table: str, batch: pa.Table, first_row: int) -> tuple[pa.Table, list[tuple[int, str, str]]]:
    """(rows that cast, quarantine entries (row number in the file, 1-based; the row; why))."""
    schema = arrow_schema(table)
    odd = [n for n in batch.column_names if n in schema.names and batch.schema.field(n).type != schema.field(n).type]
    if not odd or batch.num_rows == 0:
        return batch, []
    con = _con()
    ddb_types = {n: _ddb_type(schema.field(n).type) for n in odd}
    problems = " ".join(
        f"WHEN \"{n}\" IS NOT NULL AND TRY_CAST(\"{n}\" AS {ddb_types[n]}) IS NULL "
        f"THEN 'column {n}: ' || left(CAST(\"{n}\" AS VARCHAR), 80) || ' is not a {ddb_types[n]}'" for n in odd)
    con.register("parquet_rows_in", batch)
    try:
        reasons = con.sql(f"SELECT CASE {problems} END FROM parquet_rows_in").fetchall()
    finally:
        con.unregister("parquet_rows_in")
    bad = [i for i, (r,) in enumerate(reasons) if r is not None]
    if not bad:
        return batch, []
    keep = pa.array([r is None for (r,) in reasons])
    rows = batch.take(pa.array(bad, pa.int64())).to_pylist()
    errors = [(first_row + i + 1, json.dumps(row, default=str, ensure_ascii=False)[:2000],
               f"Parquet row {first_row + i + 1}: {reasons[i][0]}") for i, row in zip(bad, rows)]
    return batch.filter(keep), errors


def _ddb_type(t: pa.DataType) -> str:
    if pa.types.is_timestamp(t):
        return "TIMESTAMPTZ" if t.tz else "TIMESTAMP"
    return {pa.int32(): "INTEGER", pa.int64(): "BIGINT", pa.int16(): "SMALLINT", pa.bool_(): "BOOLEAN",
            pa.float64(): "DOUBLE", pa.float32(): "FLOAT", pa.string(): "VARCHAR", pa.large_string(): "VARCHAR",
            pa.date32(): "DATE"}.get(t, "VARCHAR")
