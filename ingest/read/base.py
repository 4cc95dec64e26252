"""What a reader is, and the shapes it hands to the loader.

A reader turns records of one input format into warehouse rows. It never sees
the warehouse: it gets a batch of already-framed records and returns Arrow
tables whose column names are warehouse column names, plus the records it
had to reject and why.

Two ways to write one:
- `SqlReader`: field mappings as data (`fields.Field`), run as one vectorised
  query over the whole batch in the decoder's private in-memory DuckDB. Use it
  for flat, high-volume records (table dumps, canonical JSONL).
- `PythonReader`: a function from one parsed record to rows. Use it for
  nested, low-volume documents (a trace with its tool calls, a chat run).

Readers claim records by their fields, never by file name: each declares
`claims`, a list of (kind, SQL predicate over `k`, the record's top-level key
list, and `raw`, its text). The first matching predicate, in registry order,
decides.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, ClassVar, Iterator

import pyarrow as pa

from ...queries.warehouse.tables import OFFSET_COLUMN, TRACE_TABLES, WRITTEN_TIMES
from ...queries.warehouse.types import arrow_schema, json_columns
from .vocabulary import epoch_seconds

TABLES = TRACE_TABLES  # the tables a reader fills


@dataclass
class Decoded:
    tables: dict[str, pa.Table] = field(default_factory=dict)
    errors: list[tuple[int, str, str]] = field(default_factory=list)  # (line, raw, reason)
    readers: set[str] = field(default_factory=set)  # names of the readers that produced these rows
    records: int = 0  # records the decoder was handed (set by the decoder; the loader's ledger adds them up)

    def add(self, table: str, rows: pa.Table) -> None:
        if rows.num_rows == 0:
            return
        if table in self.tables:
            self.tables[table] = pa.concat_tables([self.tables[table], rows], promote_options="permissive")
        else:
            self.tables[table] = rows

    def merge(self, other: "Decoded") -> None:
        for t, rows in other.tables.items():
            self.add(t, rows)
        self.errors.extend(other.errors)
        self.readers |= other.readers
        self.records += other.records


class Reader:
    name: ClassVar[str]
    claims: ClassVar[list[tuple[str, str]]]


@contextmanager
def registered(con, name: str, table: pa.Table, empty: pa.Table | None = None):
    """`table` registered as `name` on `con` for the block; afterwards `empty` in its place (for
    names that views refer to) or nothing, so the connection holds no reference to its memory."""
    con.register(name, table)
    try:
        yield
    finally:
        if empty is None:
            con.unregister(name)
        else:
            con.register(name, empty)


class SqlReader(Reader):
    """Subclasses implement `decode(con, kind, source_file, records) -> Decoded` using the decoder
    connection, where the records of the kind are registered as `kind_in` (line, raw, _extra).
    `records` is that same Arrow table, for a reader that wants the records themselves
    (reading `kind_in` back out of DuckDB would copy every record)."""

    def decode(self, con, kind: str, source_file: str, records: pa.Table) -> Decoded:  # pragma: no cover - interface
        raise NotImplementedError


class RowError(ValueError):
    """Raised by a PythonReader for a record it cannot use; the message is shown to the user."""


@dataclass
class Rows:
    """What a PythonReader returns for one record."""

    tasks: list[dict[str, Any]] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    audit_logs: list[dict[str, Any]] = field(default_factory=list)


class RowBuckets:
    """The rows of many records, by table, until they become the warehouse's Arrow tables."""

    def __init__(self) -> None:
        self.rows: dict[str, list[dict[str, Any]]] = {t: [] for t in TABLES}

    def add(self, got: Rows, line: int) -> None:
        """A record's rows; those without a source line get `line`."""
        for table in TABLES:
            for row in getattr(got, table):
                row.setdefault("source_line", line)
                self.rows[table].append(row)

    def into(self, out: Decoded) -> Decoded:
        for table, rows in self.rows.items():
            if rows:
                out.add(table, rows_to_table(table, rows))
        return out


def each_record(name: str, records: list[tuple[int, str]], read: Callable[[Any, int], Any],
                errors: list[tuple[int, str, str]]) -> Iterator[tuple[int, str, Any]]:
    """(line, raw, what `read(parsed record, line)` made of it) for every record it could use; the
    others go to `errors` with the reason (a RowError's own words, else what went wrong)."""
    for line, raw in records:
        try:
            got = read(json.loads(raw), line)
        except RowError as exc:
            errors.append((line, raw, str(exc)))
            continue
        except RecursionError:
            errors.append((line, raw, f"{name} record is nested too deeply to read"))
            continue
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            errors.append((line, raw, f"{name} record could not be read: {type(exc).__name__}: {exc}"))
            continue
        yield line, raw, got


class PythonReader(Reader):
    """Subclasses implement `rows(record: dict, ctx: RecordContext) -> Rows`."""

    def rows(self, record: dict[str, Any], ctx: "RecordContext") -> Rows:  # pragma: no cover
        raise NotImplementedError

    def decode_records(self, records: list[tuple[int, str]], ctx_factory: Callable[[int], "RecordContext"]) -> Decoded:
        out = Decoded()
        buckets = RowBuckets()
        for line, _, got in each_record(self.name, records, lambda r, line: self.rows(r, ctx_factory(line)), out.errors):
            buckets.add(got, line)
        return buckets.into(out)


# How naive times (a Python reader's datetimes without tzinfo) are read: set by the decoder
# around a Python reader's work (`naive_times_read_by`) to its DuckDB session's way of reading
# naive text, so both kinds of reader convert them alike. Unset, naive means UTC.
_LOCALIZE: ContextVar[Callable[[list[datetime]], list[datetime]] | None] = ContextVar("localize", default=None)


@contextmanager
def naive_times_read_by(localize: Callable[[list[datetime]], list[datetime]]):
    token = _LOCALIZE.set(localize)
    try:
        yield
    finally:
        _LOCALIZE.reset(token)


def _localize_naive(table: str, rows: list[dict[str, Any]]) -> None:
    localize = _LOCALIZE.get()
    if localize is None:
        return
    stamps = [f.name for f in arrow_schema(table) if pa.types.is_timestamp(f.type)]
    naive = [(row, name) for row in rows for name in stamps
             if isinstance(row.get(name), datetime) and row[name].tzinfo is None]
    if naive:
        for (row, name), aware in zip(naive, localize([row[name] for row, name in naive])):
            row[name] = aware


@dataclass
class RecordContext:
    source_file: str
    line: int


@dataclass(frozen=True)
class RawJson:
    """JSON text that is already serialised (stored as is, not quoted again)."""

    text: str


def to_json_text(value: Any) -> str | None:
    if value is None:
        return None
    return json.dumps(value, ensure_ascii=False, sort_keys=False, default=str)


def epoch_to_datetime(value: Any) -> datetime | None:
    """Epoch seconds (or ms/us/ns by magnitude) to an aware UTC datetime."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return parse_iso(value)
    return datetime.fromtimestamp(epoch_seconds(float(value)), tz=timezone.utc)


class WrittenTime(datetime):
    """An instant in UTC that remembers the UTC offset its text was written with (`offset_min`:
    +08:00 is 480, Z 0). Arithmetic gives plain datetimes (a derived time was written by nobody);
    min, max and sorting keep it, so a turn's start taken from its first message keeps that
    message's offset. `rows_to_table` stores it as utc_offset_min (WRITTEN_TIMES)."""

    offset_min: int | None = None


def parse_iso(text: str) -> datetime | None:
    """ISO 8601 text to a UTC datetime (a `WrittenTime`), or to a naive one when the text has no
    offset: the decoder reads those in --tz (`PythonReader.decode_records`), as it reads naive text."""
    try:
        dt = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError as exc:
        raise RowError(f"expected a timestamp, got {text[:60]!r}") from exc
    if dt.tzinfo is None:
        return dt
    utc = dt.astimezone(timezone.utc)
    out = WrittenTime(utc.year, utc.month, utc.day, utc.hour, utc.minute, utc.second, utc.microsecond, timezone.utc)
    minutes = int(dt.utcoffset().total_seconds() // 60)
    # as fields.written_offset_sql: an offset no zone uses (beyond -12:00..+14:00) names no zone
    out.offset_min = minutes if -720 <= minutes <= 840 else None
    return out


def _written_offsets(table: str, rows: list[dict[str, Any]]) -> None:
    """utc_offset_min from the offset each row's written time was parsed with, unless the reader set it."""
    column = WRITTEN_TIMES.get(table)
    if column is None:
        return
    for row in rows:
        if row.get(OFFSET_COLUMN) is None:
            row[OFFSET_COLUMN] = getattr(row.get(column), "offset_min", None)


def rows_to_table(table: str, rows: list[dict[str, Any]]) -> pa.Table:
    """Rows (dicts keyed by warehouse column) to an Arrow table of the warehouse's types.

    JSON columns take Python values (serialised here; a str becomes a JSON
    string) or `RawJson` for text that is JSON already.
    """
    _localize_naive(table, rows)
    _written_offsets(table, rows)
    schema = arrow_schema(table)
    columns = {}
    for f in schema:
        values = [r.get(f.name) for r in rows]
        if f.name in json_columns(table):
            values = [v.text if isinstance(v, RawJson) else to_json_text(v) for v in values]
        columns[f.name] = pa.array(values, type=f.type)
    return pa.table(columns, schema=schema)
