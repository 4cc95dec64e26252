"""From framed records to warehouse rows: classify each record, hand it to its reader.

The decoder owns a private in-memory DuckDB used purely as a vectorised JSON
engine. It never touches the warehouse; its output is Arrow tables for the
loader. Per frame, classification reads each record's top-level keys once
(`json_keys`; a frame holding text that is not JSON is tagged again with
`json_valid` first), and a field-mapped reader
parses it once more to extract every field; nothing else parses it again
except for the few records that are rejected or carry unknown keys.
"""

from __future__ import annotations

import json
from datetime import datetime

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from .frame import RECORDS_SCHEMA, Frame, cut_raw
from .base import Decoded, PythonReader, RecordContext, SqlReader, naive_times_read_by, registered
from .registry import READERS
from ...queries.warehouse.zones import check_zone

SCAN_BATCH_ROWS = 16 * 1024
SCAN_BATCH_BYTES = 2 * 1024 * 1024
BIG_RECORD_BYTES = 4096  # records of this size and over, on average, are batched by size
# from_batches, not Schema.empty_table(): that one imports pandas (~0.2 s on every command).
_EMPTY_FRAME = pa.Table.from_batches([], schema=RECORDS_SCHEMA)
_EMPTY_KIND = pa.Table.from_batches([], schema=RECORDS_SCHEMA.append(pa.field("_extra", pa.bool_())))

_JSON_TYPE_NAMES = {
    "ARRAY": "an array", "VARCHAR": "a string", "NULL": "null", "BOOLEAN": "true/false",
    "BIGINT": "a number", "UBIGINT": "a number", "DOUBLE": "a number",
}


def _classify_sql(trusting: bool = False) -> str:
    cases = []
    for reader in READERS:
        for kind, predicate in reader.claims:
            cases.append(f"WHEN {predicate} THEN '{reader.name}:{kind}'")
    # k is NULL for text that is not JSON, [] for JSON that is not an object
    # (and for the empty object); only those few rows pay for json_type.
    # json_valid first: try() over an error costs ~17 us a row, so a file of
    # blank or junk lines took minutes (1M blank lines: 17 s, now 0.05 s).
    # Blank lines get the kind '' and are ignored.
    # `trusting` skips json_valid (a parse of its own): json_keys then raises
    # on the first record that is not JSON, and the frame is tagged again by
    # the validating query. Clean frames, nearly all of them, parse once.
    keys = "json_keys(raw)" if trusting else "CASE WHEN json_valid(raw) THEN json_keys(raw) END"
    return f"""
    SELECT line, raw, k,
      CASE WHEN k IS NULL AND trim(raw, ' \t\r\n') = '' THEN ''
        WHEN k IS NULL OR (len(k) = 0 AND jtype <> 'OBJECT') THEN NULL
        {' '.join(cases)}
        ELSE NULL
      END AS kind,
      jtype
    FROM (
      SELECT line, raw, k, CASE WHEN k IS NOT NULL AND len(k) = 0 THEN try(json_type(raw)) END AS jtype
      FROM (SELECT line, raw, {keys} AS k FROM frame_in)
    )
    """


def _reject_reason(raw: str, jtype: str | None, keys: list[str] | None, unterminated: bool) -> str:
    """Why a record no reader took, in words a person acts on."""
    if keys is None:
        try:
            json.loads(raw.rstrip("\r\n"))
        except RecursionError:
            return "malformed JSON, nested too deeply to say where"
        except ValueError as exc:
            msg = getattr(exc, "msg", str(exc))
            where = f" (column {exc.colno})" if hasattr(exc, "colno") else ""
            tail = " (the last line looks truncated: the file may have been cut short)" if unterminated else ""
            return f"malformed JSON: {msg}{where}{tail}"
        return "malformed JSON (not accepted by the JSON parser)"
    if not keys and jtype != "OBJECT":
        return f"not a JSON object (got {_JSON_TYPE_NAMES.get(jtype or '', str(jtype).lower())}); each record must be an object"
    shown = ", ".join((keys or [])[:12]) or "no keys at all"
    looks = looks_like(set(keys or []))
    if looks:
        return f"unrecognised record: looks like {looks} (fields: {shown})"
    return f"unrecognised record: no known format has these fields ({shown})"


# Formats a record can be told by that have no reader (or are not traces): the quarantine reason
# names the format and what to do, instead of only listing the keys.
LOOKS_LIKE = [
    ({"resourceMetrics"}, "an OTLP metrics export; trace-audit reads traces (resourceSpans), not metrics: "
                          "export the traces of the same service"),
    ({"model_name_or_path", "instance_id", "model_patch"}, "SWE-bench predictions (all_preds.jsonl), which hold "
                                                           "no trajectory: ingest the run's .traj files"),
    ({"dotted_order"}, "a LangSmith run without `run_type` (tool, llm, chain...), which the langsmith reader "
                       "needs to tell a tool call from a model call: export the runs with every field"),
    ({"context.span_id"}, "a Phoenix span as JSON, which is not read: save the trace dataset as Parquet "
                          "(TraceDataset.save or get_spans_dataframe().to_parquet()) or send the spans over OTLP"),
    ({"context", "span_kind", "attributes"}, "a Phoenix span as JSON, which is not read: save the trace dataset "
                                             "as Parquet (TraceDataset.save) or send the spans over OTLP"),
]


def looks_like(keys: set[str]) -> str | None:
    return next((name for needed, name in LOOKS_LIKE if needed <= keys), None)


class Decoder:
    def __init__(self, tz: str = "UTC"):
        self.con = duckdb.connect(":memory:")
        # Naive times are read in this session's zone, by the SQL readers and, through
        # `localize`, the Python ones: one conversion for every reader.
        self.con.execute(f"SET TimeZone = '{check_zone(tz)}'")
        self.con.execute("SET enable_progress_bar = false")  # DuckDB's own bar would write to stdout
        # The tags query's rows must line up with the frame's.
        self.con.execute("SET preserve_insertion_order = true")
        self.con.register("frame_in", _EMPTY_FRAME)
        self.con.register("kind_in", _EMPTY_KIND)
        self.con.execute(f"CREATE TEMP VIEW classified AS {_classify_sql()}")
        self.con.execute(f"CREATE TEMP VIEW classified_trusting AS {_classify_sql(trusting=True)}")
        self._by_name = {r.name: r for r in READERS}
        self._tags_sql = _tags_sql("classified")
        self._trusting_tags_sql = _tags_sql("classified_trusting")

    def close(self) -> None:
        self.con.close()

    def decode(self, frame: Frame, source_file: str) -> Decoded:
        out = Decoded()
        out.errors.extend(frame.errors)
        # Records handed over: what the framing quarantined, what a binary reader decoded, the
        # non-blank texts below; each ends up as rows or quarantined (the loader's ledger checks).
        out.records = len(frame.errors)
        for table, rows in frame.tables.items():  # decoded already by a binary reader
            out.add(table, rows)
            out.records += rows.num_rows
        batch = frame.records()
        if batch is None or batch.num_rows == 0:
            return _stamped(out, source_file)
        con = self.con
        # One pass tags every record with its kind (and whether it has keys its
        # mapping does not know); each kind's records then go to their reader
        # without being classified again.
        with registered(con, "frame_in", _chunked(batch), _EMPTY_FRAME):
            try:
                tags = con.sql(self._trusting_tags_sql).to_arrow_table()
            # Some record is not JSON: tag the frame with validation. DuckDB's
            # message quotes the bad text cut at a byte count, and when the cut
            # splits a character the client raises UnicodeDecodeError instead.
            except (duckdb.Error, UnicodeDecodeError):
                tags = con.sql(self._tags_sql).to_arrow_table()
        if tags.num_rows != batch.num_rows:  # pragma: no cover - guards the alignment the code relies on
            raise RuntimeError("decoder: record tags do not line up with the frame")
        kinds = tags.column("kind")
        present = pc.unique(kinds).to_pylist()
        blank = (pc.sum(pc.equal(kinds, "")).as_py() or 0) if "" in present else 0
        out.records += batch.num_rows - blank
        if None in present:
            out.errors.extend(self._rejected(frame, batch.filter(pc.is_null(kinds))))
        tagged_kinds = sorted(k for k in present if k)
        for tagged in tagged_kinds:
            reader = self._by_name[tagged.split(":", 1)[0]]
            out.readers.add(reader.name)
            mine = batch.append_column("_extra", tags.column("_extra"))
            if len(present) > 1:
                mine = mine.filter(pc.equal(kinds, tagged))
            if isinstance(reader, SqlReader):
                mine = _chunked(mine)
                with registered(con, "kind_in", mine, _EMPTY_KIND):
                    out.merge(reader.decode(con, tagged, source_file, mine))
            elif isinstance(reader, PythonReader):
                records = list(zip(mine.column("line").to_pylist(), mine.column("raw").to_pylist()))
                with naive_times_read_by(self.localize):
                    out.merge(reader.decode_records(records, lambda line: RecordContext(source_file, line)))
        out.errors = [(line, cut_raw(raw), reason) for line, raw, reason in out.errors]
        out.errors.sort(key=lambda e: e[0])
        return _stamped(out, source_file)

    def localize(self, naive: list[datetime]) -> list[datetime]:
        """Naive wall-clock times read in --tz, as the SQL readers read naive text (DuckDB's
        session zone: an ambiguous or skipped wall-clock time lands where theirs does)."""
        table = pa.table({"t": pa.array(naive, pa.timestamp("us"))})
        with registered(self.con, "naive_in", table):
            return self.con.sql("SELECT CAST(t AS TIMESTAMPTZ) FROM naive_in").to_arrow_table().column(0).to_pylist()

    def _rejected(self, frame: Frame, rejected: pa.Table) -> list[tuple[int, str, str]]:
        last = frame.batch.column("line")[-1].as_py() if frame.batch is not None and frame.batch.num_rows else None
        last_raw = frame.batch.column("raw")[-1].as_py() if last is not None else ""
        unterminated_line = last if last is not None and not last_raw.endswith("\n") else None
        with registered(self.con, "frame_in", rejected, _EMPTY_FRAME):
            rows = self.con.execute("SELECT line, raw, jtype, k FROM classified WHERE kind IS NULL ORDER BY line").fetchall()
        return [(line, raw, _reject_reason(raw, jtype, keys, line == unterminated_line)) for line, raw, jtype, keys in rows]


def _tags_sql(view: str) -> str:
    extras = []
    for reader in READERS:
        probe = getattr(reader, "has_unknown_keys_sql", None)
        if probe is None:
            continue
        for kind, _ in reader.claims:
            extras.append(f"WHEN '{reader.name}:{kind}' THEN {probe(kind, 'k')}")
    extra = f"CASE kind {' '.join(extras)} ELSE TRUE END" if extras else "TRUE"
    return f"SELECT kind, {extra} AS _extra FROM {view}"


def _chunked(table: pa.Table) -> pa.Table:
    # Several record batches, so DuckDB scans the frame on all its threads: a batch is
    # the unit a thread takes. Frames of big records (OTLP requests of hundreds of KB: a
    # 32 MB frame is under a hundred lines) are cut by size; frames of small records
    # keep 16k-row batches (cut to 4k rows, the 1M-step ingest was no faster).
    rows = SCAN_BATCH_ROWS
    size = table.column("raw").nbytes if table.num_rows else 0
    if size > SCAN_BATCH_BYTES and size >= table.num_rows * BIG_RECORD_BYTES:
        rows = max(1, table.num_rows * SCAN_BATCH_BYTES // size)
    return pa.Table.from_batches(table.to_batches(max_chunksize=rows), schema=table.schema)


def _stamped(out: Decoded, source_file: str) -> Decoded:
    for table, rows in out.tables.items():
        if "source_file" in rows.column_names:
            idx = rows.column_names.index("source_file")
            if rows.column(idx).null_count:
                out.tables[table] = rows.set_column(idx, "source_file", pa.repeat(pa.scalar(source_file, pa.string()), rows.num_rows))
    return out
