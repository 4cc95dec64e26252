"""A reader defined by field mappings alone (see `fields.py`).

Each record kind it claims maps to one warehouse table through a list of
`Field`s plus a few derived columns written in SQL. The whole batch is decoded
by one query; records with a reason are quarantined, the rest become rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

from .fields import TS, Field, compile_select, has_unknown_keys_sql, sql_str
from .framing import RAW_KEEP_CHARS
from .base import Decoded, SqlReader
from ...queries.warehouse.tables import OFFSET_COLUMN, WRITTEN_TIMES
from ...queries.warehouse.types import arrow_schema, columns


@dataclass(frozen=True)
class Mapping:
    table: str
    fields: list[Field]
    # Warehouse column -> SQL expression over the decoded columns (e.g. kind from tool).
    derived: dict[str, str] = field(default_factory=dict)


class FieldReader(SqlReader):
    """Decodes the records of one claimed kind, registered as `kind_in` (line, raw, _extra)
    on the decoder's connection; `_extra` comes from `has_unknown_keys_sql`."""

    mappings: dict[str, Mapping]  # claimed kind -> mapping

    def has_unknown_keys_sql(self, kind: str, keys_expr: str = "k") -> str:
        return has_unknown_keys_sql(self.mappings[kind].fields, keys_expr)

    def decode(self, con, tagged_kind: str, source_file: str, records: pa.Table) -> Decoded:
        kind = tagged_kind.split(":", 1)[1]
        mapping = self.mappings[kind]
        schema = arrow_schema(mapping.table)
        int32 = {f.name for f in schema if pa.types.is_int32(f.type)}
        written = WRITTEN_TIMES.get(mapping.table)
        select = compile_select(mapping.fields, "kind_in", int32_columns=int32, offset_of=written)
        produced = {f.column for f in mapping.fields}
        if any(f.column == written and f.kind == TS for f in mapping.fields):
            produced.add(OFFSET_COLUMN)
        exprs = []
        for col in columns(mapping.table):
            if col in mapping.derived:
                exprs.append(f"{mapping.derived[col]} AS {col}")
            elif col == "metadata":
                base = "metadata" if "metadata" in produced else "NULL"
                # Keys the mapping did not consume are kept in metadata.
                exprs.append(
                    f"CASE WHEN metadata_extra IS NULL THEN {base} "
                    f"WHEN {base} IS NULL THEN metadata_extra "
                    f"ELSE CAST(json_merge_patch(metadata_extra, {base}) AS JSON) END AS metadata"
                )
            elif col == "source_line":
                exprs.append("line AS source_line")
            elif col == "source_file":
                exprs.append(f"{sql_str(source_file)} AS source_file")
            elif col in produced:
                exprs.append(col)
            else:
                exprs.append(f"NULL AS {col}")
        # One pass: good rows and rejected ones come out together and are
        # split in Arrow; only rejected rows carry their raw text.
        result = con.sql(
            f"SELECT {', '.join(exprs)}, _reject, CASE WHEN _reject <> '' THEN left(raw, {RAW_KEEP_CHARS}) END AS _raw "
            f"FROM ({select})"
        ).to_arrow_table()
        out = Decoded()
        good = pc.equal(result.column("_reject"), "")
        if pc.sum(pc.invert(good)).as_py():
            bad = result.filter(pc.invert(good)).select(["source_line", "_raw", "_reject"])
            out.errors.extend(zip(*(bad.column(c).to_pylist() for c in bad.column_names)))
            result = result.filter(good)
        rows = result.drop_columns(["_reject", "_raw"])
        out.add(mapping.table, rows.cast(schema))
        return out
