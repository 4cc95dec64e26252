"""From framed records to warehouse rows: classify each record, hand it to its reader.

The decoder owns a private in-memory DuckDB used purely as a vectorised JSON
engine. It never touches the warehouse; its output is Arrow tables for the
loader. Per frame, classification reads each record's top-level keys once
(`json_keys`, which also tells valid JSON from not), and a field-mapped reader
parses it once more to extract every field; nothing else parses it again
except for the few records that are rejected or carry unknown keys.
"""

from __future__ import annotations

import json

import duckdb
import pyarrow as pa

from trace_audit.ingest.framing import RAW_KEEP_CHARS, RECORDS_SCHEMA, Frame
from trace_audit.ingest.readers.base import Decoded, PythonReader, RecordContext, SqlReader
from trace_audit.ingest.readers.registry import READERS

SCAN_BATCH_ROWS = 16 * 1024
_EMPTY_FRAME = RECORDS_SCHEMA.empty_table()

_JSON_TYPE_NAMES = {
    "ARRAY": "an array", "VARCHAR": "a string", "NULL": "null", "BOOLEAN": "true/false",
    "BIGINT": "a number", "UBIGINT": "a number", "DOUBLE": "a number",
}


def _classify_sql() -> str:
    cases = []
    for reader in READERS:
        for kind, predicate in reader.claims:
            cases.append(f"WHEN {predicate} THEN '{reader.name}:{kind}'")
    # k is NULL for text that is not JSON, [] for JSON that is not an object
    # (and for the empty object); only those few rows pay for json_type.
    # Blank lines get the kind '' and are ignored.
    return f"""
    SELECT line, raw, k,
      CASE WHEN k IS NULL AND trim(raw, ' \t\r\n') = '' THEN ''
        WHEN k IS NULL OR (len(k) = 0 AND jtype <> 'OBJECT') THEN NULL
        {' '.join(cases)}
        ELSE NULL
      END AS kind,
      jtype
    FROM (
      SELECT line, raw, k, CASE WHEN k IS NULL OR len(k) = 0 THEN try(json_type(raw)) END AS jtype
      FROM (SELECT line, raw, try(json_keys(raw)) AS k FROM frame_in)
    )
    """


def _reject_reason(raw: str, jtype: str | None, keys: list[str] | None, unterminated: bool) -> str:
    """Why a record no reader took, in words a person acts on."""
    if keys is None:
        try:
            json.loads(raw.rstrip("\r\n"))
        except ValueError as exc:
            msg = getattr(exc, "msg", str(exc))
            where = f" (column {exc.colno})" if hasattr(exc, "colno") else ""
            tail = " (the last line looks truncated: the file may have been cut short)" if unterminated else ""
            return f"malformed JSON: {msg}{where}{tail}"
        return "malformed JSON (not accepted by the JSON parser)"
    if not keys and jtype != "OBJECT":
        return f"not a JSON object (got {_JSON_TYPE_NAMES.get(jtype or '', str(jtype).lower())}); each record must be an object"
    shown = ", ".join((keys or [])[:12]) or "no keys at all"
    return f"unrecognised record: no known format has these fields ({shown})"


class Decoder:
    def __init__(self, tz: str = "UTC"):
        self.tz = tz
        self.con = duckdb.connect(":memory:")
        self.con.execute(f"SET TimeZone = '{_checked_tz(self.con, tz)}'")
        self.con.execute("SET preserve_insertion_order = false")
        self.con.register("frame_in", _EMPTY_FRAME)
        self.con.execute(f"CREATE TEMP VIEW classified AS {_classify_sql()}")
        self._by_name = {r.name: r for r in READERS}

    def close(self) -> None:
        self.con.close()

    def decode(self, frame: Frame, source_file: str) -> Decoded:
        out = Decoded()
        out.errors.extend(frame.errors)
        for table, rows in frame.tables.items():  # decoded already by a binary reader
            out.add(table, rows)
        batch = frame.records()
        if batch is None or batch.num_rows == 0:
            return _stamped(out, source_file)
        con = self.con
        # Several record batches, so DuckDB scans the frame on all its threads.
        con.register("frame_in", pa.Table.from_batches(batch.to_batches(max_chunksize=SCAN_BATCH_ROWS)))
        try:
            # `classified` is a view over frame_in: each query below parses
            # the keys again, which costs less than materialising the frame.
            kinds = dict(con.execute("SELECT kind, count(*) FROM classified GROUP BY ALL").fetchall())
            if None in kinds:
                last = batch.column("line")[-1].as_py()
                last_raw = batch.column("raw")[-1].as_py()
                unterminated_line = last if frame.batch is not None and not last_raw.endswith("\n") else None
                for line, raw, jtype, keys in con.execute(
                    "SELECT line, raw, jtype, k FROM classified WHERE kind IS NULL ORDER BY line"
                ).fetchall():
                    out.errors.append((line, raw, _reject_reason(raw, jtype, keys, line == unterminated_line)))
            for tagged in sorted(k for k in kinds if k):
                reader_name, kind = tagged.split(":", 1)
                reader = self._by_name[reader_name]
                if isinstance(reader, SqlReader):
                    out.merge(reader.decode(con, tagged, source_file))
                elif isinstance(reader, PythonReader):
                    records = con.execute("SELECT line, raw FROM classified WHERE kind = ? ORDER BY line", [tagged]).fetchall()
                    out.merge(reader.decode_records(records, lambda line: RecordContext(source_file, line, self.tz)))
        finally:
            con.register("frame_in", _EMPTY_FRAME)
        out.errors = [(line, _cut(raw), reason) for line, raw, reason in out.errors]
        out.errors.sort(key=lambda e: e[0])
        return _stamped(out, source_file)

    def reader_names(self, decoded: Decoded) -> list[str]:
        return sorted({n for n in (t for t in decoded.tables)})


def _cut(raw: str) -> str:
    raw = raw.rstrip("\r\n")
    return raw if len(raw) <= RAW_KEEP_CHARS else raw[:RAW_KEEP_CHARS] + "…"


def _stamped(out: Decoded, source_file: str) -> Decoded:
    for table, rows in out.tables.items():
        if "source_file" in rows.column_names:
            idx = rows.column_names.index("source_file")
            if rows.column(idx).null_count:
                out.tables[table] = rows.set_column(idx, "source_file", pa.repeat(pa.scalar(source_file, pa.string()), rows.num_rows))
    return out


def _checked_tz(con: duckdb.DuckDBPyConnection, tz: str) -> str:
    known = {r[0] for r in con.execute("SELECT name FROM pg_timezone_names()").fetchall()}
    if tz not in known:
        raise ValueError(f"unknown time zone {tz!r} for --tz; use an IANA name such as UTC or Asia/Shanghai")
    return tz
