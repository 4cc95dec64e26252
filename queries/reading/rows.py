"""Tables from Python lists, built by DuckDB.

pyarrow's own constructors (pa.array, pa.table) import pandas to ask whether a list is a
pandas object: 0.2-0.3 s of every rules run, for a table of a few tool names. DuckDB turns
lists into columns without it.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa


def _unnested(columns: list[tuple[str, str]], values: dict[str, list]) -> tuple[str, dict]:
    lengths = {len(values[n]) for n, _ in columns}
    if len(lengths) > 1:
        raise ValueError(f"columns of different lengths: {sorted(lengths)}")
    select = ", ".join(f'unnest(${n}::{t}[]) AS "{n}"' for n, t in columns)
    return f"SELECT {select}", {n: list(values[n]) for n, _ in columns}


def arrow_table(con: duckdb.DuckDBPyConnection, columns: list[tuple[str, str]], values: dict[str, list]) -> pa.Table:
    """An Arrow table of `columns` ((name, DuckDB type) in order), whose lists are equally long."""
    select, params = _unnested(columns, values)
    return con.sql(select, params=params).to_arrow_table()


def temp_table(con: duckdb.DuckDBPyConnection, name: str, columns: list[tuple[str, str]],
               values: dict[str, list]) -> None:
    """The same as a temp table `name` on `con`."""
    select, params = _unnested(columns, values)
    con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS {select}", params)


def temp_table_of(con: duckdb.DuckDBPyConnection, name: str, data: pa.Table, select: str = "SELECT * FROM _ta_rows"
                  ) -> None:
    """Temp table `name` on `con` from the Arrow table `data` (as `_ta_rows` in `select`)."""
    con.register("_ta_rows", data)
    try:
        con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS {select}")
    finally:
        con.unregister("_ta_rows")
