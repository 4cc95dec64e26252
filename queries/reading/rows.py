"""Tables from Python lists, built by DuckDB.

pyarrow's own constructors (pa.array, pa.table) import pandas to ask whether a list is a
pandas object: 0.2-0.3 s of every rules run, for a table of a few tool names. DuckDB turns
lists into columns without it.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa


def arrow_table(con: duckdb.DuckDBPyConnection, columns: list[tuple[str, str]], values: dict[str, list]) -> pa.Table:
    """An Arrow table of `columns` ((name, DuckDB type) in order), whose lists are equally long."""
    lengths = {len(values[n]) for n, _ in columns}
    if len(lengths) > 1:
        raise ValueError(f"columns of different lengths: {sorted(lengths)}")
    select = ", ".join(f'unnest(${n}::{t}[]) AS "{n}"' for n, t in columns)
    return con.sql(f"SELECT {select}", params={n: list(values[n]) for n, _ in columns}).to_arrow_table()


def temp_table(con: duckdb.DuckDBPyConnection, name: str, columns: list[tuple[str, str]],
               values: dict[str, list]) -> None:
    """The same as a temp table `name` on `con`."""
    select = ", ".join(f'unnest(${n}::{t}[]) AS "{n}"' for n, t in columns)
    con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS SELECT {select}",
                {n: list(values[n]) for n, _ in columns})
