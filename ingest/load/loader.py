"""The only writer of the warehouse.

For each input file: skip it if its content (sha256) was loaded before,
stream its frames through the decoder, upsert the rows by key (`INSERT ... BY
NAME` after deleting the keys being re-sent), record every rejected record in
`ingest_errors` and the file in `ingest_files`, all in one transaction per
file. Anything that goes wrong mid-file rolls the whole file back, so the
database is as it was before that file.

Small files are upserted frame by frame inside that transaction. Files of
STAGE_MIN_BYTES and more are first appended to temp tables (bounded memory:
DuckDB keeps a transaction's appended rows in memory until commit, but may
spill temp tables to disk) and moved in one statement per table inside the
file's transaction at the end. A file is hashed while it is read unless a
stored file has the same size (then it may be a repeat and is hashed first).

Keys: tasks(task_id), steps(task_id, seq), messages(message_id),
audit_logs(audit_id). Within one file the last record with a key wins.
"""

from __future__ import annotations

import hashlib
import io
import os
import sys
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Protocol

import duckdb
import pyarrow as pa

from ..read.decoder import Decoder
from ..read.framing import DEFAULT_MAX_RECORD_BYTES
from .frame_loop import redacted_frames
from .ledger import Ledger, Unaccounted
from ..read.naive_times import has_naive_times
from ..read.base import TABLES
from .otlp_rebuild import OtlpTraceRebuild
from ..redact.config import RedactionConfig
from ..redact.redactor import Redactor
from ..redact.report import RedactionReport
from ..read.sources import Source, expand, release
from ...queries.warehouse import db
from ...queries.warehouse.tables import KEYS
from . import upsert as store

PROGRESS_MIN_BYTES = 4 * 1024 * 1024
# Files from this size on are staged (bounded memory); smaller ones are
# upserted frame by frame inside their transaction (faster).
STAGE_MIN_BYTES = 512 * 1024 * 1024  # a 400 MB file upserted directly peaks near 0.8 GB RSS
# The warehouse connection's memory cap while ingesting: staged rows beyond it
# spill to DuckDB's temp directory next to the database.
INGEST_MEMORY_LIMIT = "1GB"


class AfterFile(Protocol):
    """A step run once a file's rows are in, inside the file's transaction.

    For readers that store raw rows first and derive warehouse rows from all
    stored raw rows (OTLP spans -> tasks/steps/messages), so that data split
    over files and arriving in any order gives the same result.
    """

    name: str
    raw_tables: dict[str, tuple[str, ...]]  # raw tables it owns, with their keys

    def after_file(self, con, loaded: dict[str, pa.Table]) -> dict[str, int]:
        """`loaded`: the keys of the raw rows this file upserted. Returns rows written per table."""
        ...


# The derivations the loader runs itself, inside each file's transaction (the readers only
# store raw rows): OTLP spans -> tasks, steps and messages.
AFTER_FILE: list[AfterFile] = [OtlpTraceRebuild()]


@dataclass
class FileResult:
    path: str
    status: str  # loaded | already_loaded | failed
    sha256: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    errors: int = 0
    formats: list[str] = field(default_factory=list)
    message: str = ""
    first_errors: list[tuple[int, str]] = field(default_factory=list)  # (line, reason), a few for the summary
    redaction: RedactionReport = field(default_factory=RedactionReport)
    tz: str = ""                 # the zone naive times were read in
    tz_source: str = ""          # where that zone came from: --tz, $TRACE_AUDIT_TZ, default
    naive_times: bool = False    # the file holds times without an offset (ingest/read/naive_times.py)
    records: int = 0             # records read: each stored as rows or quarantined (ledger.py checks)
    internal: bool = False       # failed by a bug of trace-audit (records unaccounted), not by the input

    @property
    def naive_read_as_default(self) -> bool:
        """Naive times read in the default zone (UTC) because nobody named one: say so."""
        return self.naive_times and self.tz_source == "default"


@dataclass
class IngestSummary:
    files: list[FileResult] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    @property
    def failed(self) -> list[FileResult]:
        return [f for f in self.files if f.status == "failed"]

    @property
    def quarantined(self) -> int:
        return sum(f.errors for f in self.files)

    def totals(self) -> dict[str, int]:
        out = {t: 0 for t in TABLES}
        for f in self.files:
            for t, n in f.counts.items():
                out[t] = out.get(t, 0) + n
        out["ingest_errors"] = self.quarantined
        return out


def sha256_of(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(4 * 1024 * 1024), b""):
            h.update(block)
    return h.hexdigest()


def ingest(
    paths: list[str],
    db_path: str | None = None,
    *,
    tz: str = "UTC",
    tz_source: str = "given",
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
    progress: bool | None = None,
    con: duckdb.DuckDBPyConnection | None = None,
    redaction: RedactionConfig | None = None,
    wait_seconds: float = 0.0,
    on_wait=None,
) -> IngestSummary:
    """Load every file under `paths`; returns what happened to each.

    `tz` is the zone naive times are read in; `tz_source` says who chose it ("--tz",
    "$TRACE_AUDIT_TZ", "default", or "given" by a caller), stored per file in ingest_files.
    Personal data is redacted before anything is written (on by default; see
    `ingest/redact/`); pass `RedactionConfig(enabled=False)` to turn it off.
    """
    sources, skipped = expand(paths)
    summary = IngestSummary(skipped=skipped)
    decoder = Decoder(tz)  # raises ValueError on an unknown time zone, before anything is written
    own = con is None
    if own and all(s.problem for s in sources):
        # nothing readable (a mistyped path): say so per path and create no database
        decoder.close()
        summary.files = [FileResult(s.shown, "failed", message=s.problem) for s in sources]
        return summary
    if own:
        con = db.connect(db_path, wait_seconds=wait_seconds, on_wait=on_wait)
    con.execute("SET enable_progress_bar = false")  # DuckDB's own bar would write to stdout
    if own:
        con.execute(f"SET memory_limit = '{INGEST_MEMORY_LIMIT}'")
    try:
        redactor = Redactor.for_database(redaction or RedactionConfig(), db_path, con=con)
        for source in sources:
            summary.files.append(_ingest_one(con, decoder, source, max_record_bytes, progress, redactor, tz_source, tz))
    finally:
        decoder.close()
        if own:
            con.close()
        release(sources)
    return summary


class _HashingReader(io.RawIOBase):
    """Hashes the bytes of a file as the framing reads them (saves a second pass)."""

    def __init__(self, inner):
        self.inner = inner
        self.sha = hashlib.sha256()
        self.count = 0  # bytes hashed: the size stored is of the same bytes as the hash

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:  # type: ignore[override]
        n = self.inner.readinto(b)
        if n:
            self.sha.update(memoryview(b)[:n])
            self.count += n
        return n or 0

    def finish(self) -> str:
        """Hash the rest of the file (a reader may stop early) and return the digest."""
        for block in iter(lambda: self.inner.read(4 * 1024 * 1024), b""):
            self.sha.update(block)
            self.count += len(block)
        return self.sha.hexdigest()


def _ingest_one(con, decoder: Decoder, source: Source, max_record_bytes: int, progress: bool | None,
                redactor: Redactor | None = None, tz_source: str = "given", tz: str = "UTC") -> FileResult:
    if source.problem:
        return FileResult(source.shown, "failed", message=source.problem)
    try:
        size = os.path.getsize(source.path)
        # Same content means same size: only when a stored file has this size
        # can this one be a repeat, and only then is it hashed before reading.
        maybe_seen = con.execute("SELECT 1 FROM ingest_files WHERE size_bytes = ? LIMIT 1", [size]).fetchall()
        digest = sha256_of(source.path) if maybe_seen else ""
    except OSError as exc:
        return FileResult(source.shown, "failed", message=f"{source.shown}: cannot read: {exc.strerror or exc}")
    except duckdb.Error as exc:  # the connection was invalidated by an earlier file's fatal error (disk full)
        return FileResult(source.shown, "failed", message=f"{source.shown}: nothing from this file was stored: "
                                                          f"{_plain(exc, redactor)}")
    if digest:
        seen = con.execute(
            "SELECT path, ingested_at FROM ingest_files WHERE sha256 = ? ORDER BY ingested_at LIMIT 1", [digest]
        ).fetchall()
        if seen:
            return FileResult(source.shown, "already_loaded", digest,
                              message=f"same content as {seen[0][0]}, loaded {seen[0][1]:%Y-%m-%d %H:%M}Z; nothing to do")
    pending = digest or f"pending-{uuid.uuid4().hex}"  # stands in for the hash in ingest_errors until known
    result = FileResult(source.shown, "loaded", digest, counts={t: 0 for t in TABLES}, tz=tz,
                        tz_source=tz_source)
    formats: set[str] = set()
    raw_tables = {t for hook in AFTER_FILE for t in hook.raw_tables}
    raw_loaded: dict[str, list[pa.Table]] = {}
    # A big file's rows are staged in temp tables (which DuckDB may spill to
    # disk) and moved in one statement per table at the end: a transaction
    # holding millions of appended rows keeps them all in memory until commit.
    staged = size >= STAGE_MIN_BYTES
    stage = store.Stage(con) if staged else None
    bar = _progress(source.shown, size, progress)
    ledger = Ledger(source.shown, keep_keys=not staged)
    in_transaction = False
    try:
        if not staged:
            con.execute("BEGIN TRANSACTION")
            in_transaction = True
        # Tables holding no rows when the file starts need no delete per frame
        # (the join against the growing table was most of the upsert's cost):
        # rows are appended, and keys the file repeats are settled once at the end.
        fresh = store.empty_tables(con) if not staged else set()
        with open(source.path, "rb", buffering=0) as fh:
            hashing = _HashingReader(fh)
            # Framing, decoding and writing overlap (see frame_loop.py); rows are
            # redacted before anything is written, and written in file order.
            with redacted_frames(hashing, decoder, source.shown, max_record_bytes, redactor,
                                 result.redaction) as decoded_stream:
                for bytes_read, decoded in decoded_stream:
                    ledger.add(decoded)
                    formats.update(decoded.readers)
                    for table, rows in decoded.tables.items():
                        if stage:
                            stage.append(table, rows)
                        elif table in fresh:
                            result.counts[table] = result.counts.get(table, 0) + store.append(con, table, rows)
                        else:
                            result.counts[table] = result.counts.get(table, 0) + store.upsert(con, table, rows)
                        if table in raw_tables:
                            raw_loaded.setdefault(table, []).append(rows.select(list(KEYS[table])))
                        formats.update(store.sources_in(rows))  # rows a binary reader framed itself
                    if decoded.errors:
                        store.quarantine(con, source.shown, pending, decoded.errors,
                                    into=stage.errors_table if stage else "ingest_errors")
                        result.errors += len(decoded.errors)
                        for line, _raw, reason in decoded.errors[: max(0, 5 - len(result.first_errors))]:
                            result.first_errors.append((line, reason))
                    if bar:
                        bar[0].update(bar[1], completed=bytes_read)
            streamed = hashing.finish()
        if digest and streamed != digest:
            raise OSError(f"the file changed while it was being read (sha256 {digest[:12]}… then {streamed[:12]}…)")
        if hashing.count != size:  # it grew (or shrank) while read: what was loaded is not what is hashed
            raise OSError(f"the file changed while it was being read ({size:,} bytes at the start, "
                          f"{hashing.count:,} at the end); ingest it again once it is complete")
        digest = result.sha256 = streamed
        if stage:
            con.execute("BEGIN TRANSACTION")
            in_transaction = True
            for table in stage.tables:
                result.counts[table] = result.counts.get(table, 0) + store.upsert_from(con, table, stage.name(table))
            con.execute(f"INSERT INTO ingest_errors BY NAME SELECT * REPLACE (? AS sha256) FROM {stage.errors_table}",
                        [digest])
        elif result.errors and pending != digest:
            con.execute("UPDATE ingest_errors SET sha256 = ? WHERE sha256 = ?", [digest, pending])
        for table in sorted(fresh & {t for t, n in result.counts.items() if n}):
            result.counts[table] -= store.drop_repeated_keys(con, table)
        ledger.check(con, digest, stage)  # every record read is in a table or quarantined, else Unaccounted
        result.records = ledger.records
        for hook in AFTER_FILE:
            mine = {t: pa.concat_tables(raw_loaded[t]) for t in hook.raw_tables if t in raw_loaded}
            if mine:
                formats.add(hook.name)
                for table, n in hook.after_file(con, mine).items():
                    result.counts[table] = result.counts.get(table, 0) + n
        result.formats = sorted(formats)
        # A file whose every record was quarantined stored no time at all, so none was read as UTC:
        # a note naming it would send the user to re-load a file that holds no trace.
        stored = any(n for table, n in result.counts.items() if table != "ingest_errors")
        result.naive_times = stored and has_naive_times(source.path)
        con.execute(
            "INSERT INTO ingest_files (path, sha256, size_bytes, format, tasks, steps, messages, audit_logs, errors, "
            "ingested_at, tz, tz_source, naive_times) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [source.shown, digest, size, ",".join(result.formats), result.counts["tasks"], result.counts["steps"],
             result.counts["messages"], result.counts["audit_logs"], result.errors, datetime.now(timezone.utc),
             result.tz, result.tz_source, result.naive_times],
        )
        db.mark_changed(con)
        con.execute("COMMIT")
        in_transaction = False
    except BaseException as exc:
        # Whatever stopped this file (a bad block, a reader bug, Ctrl-C), its
        # rows go; the database is as it was before the file.
        if in_transaction:
            try:
                con.execute("ROLLBACK")
            except duckdb.Error:
                pass  # a fatal error (disk full at checkpoint) invalidated the connection: nothing was committed
        if db.is_interrupt(exc) and not isinstance(exc, KeyboardInterrupt):
            raise KeyboardInterrupt from exc  # Ctrl-C stops the run, it does not fail one file
        if isinstance(exc, Unaccounted):
            return FileResult(source.shown, "failed", digest, internal=True, records=ledger.records,
                              message=f"{source.shown}: nothing from this file was stored: {exc}")
        if not isinstance(exc, (duckdb.Error, OSError, EOFError, ValueError)):
            raise
        return FileResult(source.shown, "failed", digest,
                          message=f"{source.shown}: nothing from this file was stored: {_plain(exc, redactor)}")
    finally:
        if stage:
            stage.drop()
        if bar:
            bar[0].stop()
    return result


def _plain(exc: BaseException, redactor: Redactor | None = None) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if isinstance(exc, EOFError) or "compressed file ended" in text:
        return "the gzip stream is truncated (the file was cut short); re-copy it and ingest again"
    if "No space left" in str(exc):  # DuckDB puts the cause on a later line ("Original error: ...")
        return "the disk is full; free space and ingest again"
    # A conversion error may quote the value it failed on; the message is printed and logged.
    return redactor.redact_text(text) if redactor is not None else text


def _progress(shown: str, size: int, wanted: bool | None):
    if wanted is False or size < PROGRESS_MIN_BYTES:
        return None
    if wanted is None and not sys.stderr.isatty():
        return None
    from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn, TransferSpeedColumn

    bar = Progress("[bold]{task.description}", BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                   TimeRemainingColumn(), transient=True)
    task = bar.add_task(os.path.basename(shown), total=size)
    bar.start()
    return bar, task
