"""A reader defined by field mappings alone (see `fields.py`).

Each record kind it claims maps to one warehouse table through a list of
`Field`s plus a few derived columns written in SQL. The whole batch is decoded
by one query; records with a reason are quarantined, the rest become rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from trace_audit.ingest.fields import Field, compile_select, sql_str
from trace_audit.ingest.framing import RAW_KEEP_CHARS
from trace_audit.ingest.readers.base import Decoded, SqlReader
from trace_audit.ingest.warehouse_types import arrow_schema, columns


@dataclass(frozen=True)
class Mapping:
    table: str
    fields: list[Field]
    # Warehouse column -> SQL expression over the decoded columns (e.g. kind from tool).
    derived: dict[str, str] = field(default_factory=dict)


class FieldReader(SqlReader):
    mappings: dict[str, Mapping]  # claimed kind -> mapping

    def decode(self, con, tagged_kind: str, source_file: str) -> Decoded:
        kind = tagged_kind.split(":", 1)[1]
        mapping = self.mappings[kind]
        select = compile_select(mapping.fields, "classified", f"kind = {sql_str(tagged_kind)}")
        con.execute(f"CREATE OR REPLACE TEMP TABLE decoded AS {select}")
        out = Decoded()
        out.errors.extend(
            con.execute(
                f"SELECT line, left(raw, {RAW_KEEP_CHARS}), _reject FROM decoded WHERE _reject <> '' ORDER BY line"
            ).fetchall()
        )
        produced = {f.column for f in mapping.fields}
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
        rows = con.sql(f"SELECT {', '.join(exprs)} FROM decoded WHERE _reject = ''").to_arrow_table()
        con.execute("DROP TABLE decoded")
        out.add(mapping.table, rows.cast(arrow_schema(mapping.table)))
        return out
