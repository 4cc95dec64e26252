"""From framed records to warehouse rows: classify each record, hand it to its reader.

The decoder owns a private in-memory DuckDB used purely as a vectorised JSON
engine (one parse per record for all fields). It never touches the warehouse;
its output is Arrow tables for the loader.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa

from trace_audit.ingest.framing import Frame, RAW_KEEP_CHARS
from trace_audit.ingest.readers.base import Decoded, PythonReader, RecordContext, SqlReader
from trace_audit.ingest.readers.registry import READERS


def _classify_sql() -> str:
    cases = []
    for reader in READERS:
        for kind, predicate in reader.claims:
            cases.append(f"WHEN {predicate} THEN '{reader.name}:{kind}'")
    return f"""
    SELECT line, raw,
      CASE
        WHEN NOT ok THEN NULL
        WHEN jtype <> 'OBJECT' THEN NULL
        {' '.join(cases)}
        ELSE NULL
      END AS kind,
      CASE
        WHEN NOT ok THEN 'malformed JSON' || CASE WHEN is_last AND NOT ends_closed THEN ' (the last line looks truncated)' ELSE '' END
        WHEN jtype <> 'OBJECT' THEN 'not a JSON object (got ' || lower(jtype) || ')'
        ELSE 'unrecognised record: no known format has these fields (' || array_to_string(list_slice(k, 1, 12), ', ') || ')'
      END AS reject_reason
    FROM (
      SELECT line, raw, ok, is_last, ends_closed,
             CASE WHEN ok THEN json_type(raw) END AS jtype,
             CASE WHEN ok AND json_type(raw) = 'OBJECT' THEN json_keys(raw) END AS k
      FROM (SELECT line, raw, json_valid(raw) AS ok,
                   line = (SELECT max(line) FROM frame_in) AS is_last,
                   right(rtrim(raw), 1) IN ('}}', ']') AS ends_closed
            FROM frame_in)
    )
    """


class Decoder:
    def __init__(self, tz: str = "UTC"):
        self.tz = tz
        self.con = duckdb.connect(":memory:")
        self.con.execute(f"SET TimeZone = '{_checked_tz(self.con, tz)}'")
        self.con.execute("SET preserve_insertion_order = false")
        self._classify = _classify_sql()

    def close(self) -> None:
        self.con.close()

    def decode(self, frame: Frame, source_file: str) -> Decoded:
        out = Decoded()
        out.errors.extend(frame.errors)
        for table, rows in frame.tables.items():  # decoded already by a binary reader
            out.add(table, rows)
        if not frame.raws:
            return _stamped(out, source_file)
        batch = pa.table({"line": pa.array(frame.lines, pa.int64()), "raw": pa.array(frame.raws, pa.string())})
        con = self.con
        con.register("frame_in", batch)
        try:
            con.execute(f"CREATE OR REPLACE TEMP TABLE classified AS {self._classify}")
        finally:
            con.unregister("frame_in")
        rejected = con.execute(
            f"SELECT line, left(raw, {RAW_KEEP_CHARS}), reject_reason FROM classified WHERE kind IS NULL ORDER BY line"
        ).fetchall()
        out.errors.extend(rejected)
        kinds = [r[0] for r in con.execute("SELECT DISTINCT kind FROM classified WHERE kind IS NOT NULL ORDER BY kind").fetchall()]
        by_name = {r.name: r for r in READERS}
        for tagged in kinds:
            reader_name, kind = tagged.split(":", 1)
            reader = by_name[reader_name]
            if isinstance(reader, SqlReader):
                out.merge(reader.decode(con, tagged, source_file))
            elif isinstance(reader, PythonReader):
                records = con.execute("SELECT line, raw FROM classified WHERE kind = ? ORDER BY line", [tagged]).fetchall()
                out.merge(reader.decode_records(records, lambda line: RecordContext(source_file, line, self.tz)))
        con.execute("DROP TABLE classified")
        out.errors.sort(key=lambda e: e[0])
        return _stamped(out, source_file)

    def reader_names(self, decoded: Decoded) -> list[str]:
        return sorted({n for n in (t for t in decoded.tables)})


def _stamped(out: Decoded, source_file: str) -> Decoded:
    for table, rows in out.tables.items():
        if "source_file" in rows.column_names:
            idx = rows.column_names.index("source_file")
            out.tables[table] = rows.set_column(idx, "source_file", pa.array([source_file] * rows.num_rows, pa.string()))
    return out


def _checked_tz(con: duckdb.DuckDBPyConnection, tz: str) -> str:
    known = {r[0] for r in con.execute("SELECT name FROM pg_timezone_names()").fetchall()}
    if tz not in known:
        raise ValueError(f"unknown time zone {tz!r} for --tz; use an IANA name such as UTC or Asia/Shanghai")
    return tz
