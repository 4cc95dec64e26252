"""Parquet files written by `trace-audit export --parquet` (or any file with the same columns).

A file-level binary format, plugged in as a framing sniffer (magic bytes
`PAR1`): the rows are already warehouse rows, so they bypass the JSON decoder
(`Frame.tables`). Which table a file holds comes from its key/value metadata
(`trace_audit_table`, written by the export); for Parquet written elsewhere
(Spark, ClickHouse) it is recognised by its key columns. Columns the warehouse
does not have (such as a `day` partition column) are dropped.
"""

from __future__ import annotations

from typing import BinaryIO, Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from ..framing import Frame
from . import parquet_spans
from .parquet_rows import checked
from ....queries.warehouse.tables import PARQUET_TABLE_KEY, TRACE_TABLES
from ....queries.warehouse.types import columns

PARQUET_MAGIC = b"PAR1"
BATCH_ROWS = 100_000
MAX_FILE_BYTES = 2 * 1024 * 1024 * 1024

# Key columns that identify a table in Parquet from elsewhere, most specific first.
_SIGNATURES = [
    ("audit_logs", {"audit_id"}),
    ("messages", {"message_id"}),
    ("steps", {"task_id", "seq"}),
    ("tasks", {"task_id", "goal"}),
]


def sniff(head: bytes):
    """A framing sniffer: the frame generator for Parquet files, else None."""
    return parquet_frames if head[:4] == PARQUET_MAGIC else None


def _table_of(pf: pq.ParquetFile) -> str | None:
    meta = pf.schema_arrow.metadata or {}
    name = meta.get(PARQUET_TABLE_KEY.encode(), b"").decode("utf-8", "replace")
    if name in TRACE_TABLES:
        return name
    names = set(pf.schema_arrow.names)
    for table, keys in _SIGNATURES:
        if keys <= names:
            return table
    return None


def parquet_frames(stream: BinaryIO, head: bytes, counter, max_bytes: int) -> Iterator[Frame]:
    data = head + stream.read(MAX_FILE_BYTES)  # Parquet keeps its index at the end: needs random access
    if stream.read(1):
        yield Frame(errors=[(1, "", f"a Parquet file over {MAX_FILE_BYTES // 1073741824} GiB; "
                                    "split it (the export writes one file per day)")], bytes_read=counter.count)
        return
    try:
        pf = pq.ParquetFile(pa.BufferReader(data))
    except (pa.ArrowInvalid, OSError) as exc:
        yield Frame(errors=[(1, "<Parquet>", f"not a readable Parquet file ({exc})")], bytes_read=counter.count)
        return
    spans = parquet_spans.kind_of(set(pf.schema_arrow.names))
    if spans is not None:  # LangSmith's bulk export, a Phoenix trace dataset: records for their readers
        yield from parquet_spans.frames(spans, pf, counter)
        return
    table = _table_of(pf)
    if table is None:
        yield Frame(errors=[(1, "<Parquet>", "a Parquet file with neither trace_audit_table metadata nor the key "
                                             "columns of tasks, steps, messages or audit_logs "
                                             f"(columns: {', '.join(pf.schema_arrow.names[:12])})")],
                    bytes_read=counter.count)
        return
    keep = [c for c in pf.schema_arrow.names if c in set(columns(table))]
    first_row = 0
    for batch in pf.iter_batches(batch_size=BATCH_ROWS, columns=keep):
        rows, errors = checked(table, pa.Table.from_batches([batch]), first_row)
        first_row += batch.num_rows
        yield Frame(tables={table: rows}, errors=errors, bytes_read=counter.count)
