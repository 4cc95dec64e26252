"""A frame: a batch of records from one file, and how a bad record is shown when quarantined."""

from __future__ import annotations

from dataclasses import dataclass, field

import pyarrow as pa

RAW_KEEP_CHARS = 2000  # how much of a bad record is kept in ingest_errors

RECORDS_SCHEMA = pa.schema([("line", pa.int64()), ("raw", pa.large_string())])


@dataclass
class Frame:
    """A batch of records from one file.

    Records come either as parallel lists (`lines`, `raws`) or, from the bulk
    JSON-lines path, as `batch`, an Arrow table (line, raw) that may hold blank
    lines. `tables` carries rows a binary format decoded itself (warehouse
    table name -> Arrow table); they bypass the JSON decoder.
    """

    lines: list[int] = field(default_factory=list)
    raws: list[str] = field(default_factory=list)
    errors: list[tuple[int, str, str]] = field(default_factory=list)  # (line, raw, reason)
    bytes_read: int = 0  # of the (compressed) input, for progress
    batch: pa.Table | None = None
    tables: dict[str, pa.Table] = field(default_factory=dict)

    def records(self) -> pa.Table | None:
        """The JSON texts of this frame as one Arrow table (line, raw), or None."""
        if self.batch is not None:
            if not self.raws:
                return self.batch
            listed = pa.table({"line": pa.array(self.lines, pa.int64()),
                               "raw": pa.array(self.raws, pa.large_string())}, schema=RECORDS_SCHEMA)
            return pa.concat_tables([self.batch, listed])
        if not self.raws:
            return None
        return pa.table({"line": pa.array(self.lines, pa.int64()),
                         "raw": pa.array(self.raws, pa.large_string())}, schema=RECORDS_SCHEMA)


def cut_raw(text: str) -> str:
    text = text.rstrip("\r\n")
    return text if len(text) <= RAW_KEEP_CHARS else text[:RAW_KEEP_CHARS] + "…"


def cut_raw_bytes(data: bytes) -> str:
    return cut_raw(data[: RAW_KEEP_CHARS * 4].decode("utf-8", "replace"))


def too_big_reason(length: int, max_bytes: int) -> str:
    return (f"record is {length / 1048576:.1f} MiB, over the {max_bytes / 1048576:g} MiB limit "
            "(raise --max-record-mb to load it)")


def bad_utf8(piece: bytes) -> str | None:
    try:
        piece.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"invalid UTF-8 at byte {exc.start + 1} of the line (the file must be UTF-8)"
    return None
