"""Make an engine's Arrow result look like DuckDB's, so findings are stored the same way.

Two steps. `arrow_columns` fixes what differs by engine at the Arrow level:
unsigned integers (ClickHouse counts are UInt64), dictionary-encoded and large
strings, timestamps in any unit or zone (all become UTC microseconds; naive
ones are UTC because every engine session runs in UTC). `reference_columns`
then asks DuckDB what the rule returns when DuckDB runs it (on an empty
warehouse, so it costs nothing), and `cast_select` casts the engine's columns
to exactly those types inside DuckDB: a ClickHouse UInt8 flag becomes BOOLEAN,
JSON text becomes JSON again (so evidence nests it as an object, not a string).

Empty strings are kept as they are: '' is a real value (verified_false writes
coalesce(detail, error, '')). NULLs survive because the ClickHouse tables are
Nullable and sessions set join_use_nulls=1; JSON extraction is rewritten to
return NULL where DuckDB does (see transpile.py).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from ..warehouse import db
from .. import engine as rule_engine


def _column(col: pa.ChunkedArray) -> pa.ChunkedArray:
    t = col.type
    if pa.types.is_dictionary(t):
        col = col.cast(t.value_type)
        t = col.type
    if pa.types.is_unsigned_integer(t):
        return col.cast(pa.int64())
    if pa.types.is_large_string(t):
        return col.cast(pa.string())
    if pa.types.is_timestamp(t):
        if t.tz is None:
            col = pc.assume_timezone(col, "UTC")
        return col.cast(pa.timestamp("us", tz="UTC"))
    if pa.types.is_fixed_size_binary(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return col.cast(pa.string())  # ClickHouse FixedString / String without the strings option
    return col


def arrow_columns(table: pa.Table) -> pa.Table:
    return pa.table({name: _column(table.column(name)) for name in table.column_names})


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def cast_select(source: str, reference: list[tuple[str, str]], got: list[str]) -> str:
    """DuckDB SELECT over `source` giving the reference column names and types, in order."""
    want = [c for c, _ in reference]
    missing = [c for c in want if c not in got]
    extra = [c for c in got if c not in want]
    if missing or extra:
        raise ValueError("the engine returned different columns than DuckDB would"
                         + (f"; missing {', '.join(missing)}" if missing else "")
                         + (f"; unexpected {', '.join(extra)}" if extra else "")
                         + " (an override file must return the same columns as the rule)")
    return "SELECT " + ", ".join(f"CAST({_ident(c)} AS {t}) AS {_ident(c)}" for c, t in reference) + \
        f" FROM {source}"


class Reference:
    """DuckDB's view of a plan on an empty warehouse: each rule's result columns and the
    argument_bounds table the engine builds from the config."""

    def __init__(self, plan: rule_engine.Plan) -> None:
        self.columns: dict[str, list[tuple[str, str]]] = {}
        self.errors: dict[str, str] = {}
        con = db.connect(":memory:")
        try:
            rule_engine._prepare(con, plan)  # noqa: SLF001 - the same models and config tables
            self.bounds_columns = [(r[0], r[1]) for r in con.execute("DESCRIBE argument_bounds").fetchall()]
            self.bounds_rows = con.sql("SELECT * FROM argument_bounds").to_arrow_table()
            for rule in plan.rules:
                if rule.kind != "sql":
                    continue
                try:
                    con.execute(f"CREATE OR REPLACE TEMP TABLE _ta_ref AS SELECT * FROM ({rule.sql}) LIMIT 0",
                                rule_engine._bind(rule, plan))  # noqa: SLF001
                    self.columns[rule.id] = [(r[0], r[1]) for r in con.execute("DESCRIBE _ta_ref").fetchall()]
                except Exception as exc:  # noqa: BLE001 - reported as that rule's failure
                    self.errors[rule.id] = f"{type(exc).__name__}: {exc}"
        finally:
            con.close()
