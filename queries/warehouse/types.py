"""Arrow types of the warehouse tables, read from `queries/warehouse/schema.sql` itself.

So the tables are defined once: Python readers build Arrow tables of exactly
these types without a second, hand-kept list of columns.
"""

from __future__ import annotations

from functools import lru_cache

import duckdb
import pyarrow as pa

from .db import schema_sql


def _schemas() -> dict[str, pa.Schema]:
    return _read_schema()[0]


@lru_cache(maxsize=None)
def _read_schema() -> tuple[dict[str, pa.Schema], dict[str, tuple[str, ...]]]:
    """Each table's Arrow schema, and its JSON columns, from one in-memory run of schema.sql."""
    con = duckdb.connect(":memory:")
    try:
        con.execute("SET TimeZone = 'UTC'")
        con.execute(schema_sql())
        names = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()]
        out, json = {}, {}
        for name in names:
            schema = con.sql(f"SELECT * FROM {name} LIMIT 0").to_arrow_table().schema
            # JSON columns arrive as an extension type; plain strings are what
            # readers produce and what DuckDB casts back to JSON on insert.
            fields = [pa.field(f.name, pa.string() if _is_json(f) else f.type) for f in schema]
            out[name] = pa.schema(fields)
            json[name] = tuple(r[0] for r in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ? AND data_type = 'JSON' "
                "ORDER BY ordinal_position", [name]).fetchall())
        return out, json
    finally:
        con.close()


def _is_json(f: pa.Field) -> bool:
    return isinstance(f.type, pa.ExtensionType) or (f.metadata or {}).get(b"ARROW:extension:name") == b"arrow.json"


def arrow_schema(table: str) -> pa.Schema:
    return _schemas()[table]


def columns(table: str) -> list[str]:
    return arrow_schema(table).names


def tables() -> list[str]:
    """Every table schema.sql creates."""
    return list(_schemas())


def json_columns(table: str) -> tuple[str, ...]:
    """The columns schema.sql types JSON (Arrow holds them as strings: JSON text)."""
    return _read_schema()[1][table]
