"""The drainer: loads the spool's sealed segments into the warehouse, and retries what failed.

A segment is deleted only once the loader reports it stored (or already stored). One that
cannot be stored (disk full, a lock held too long) stays in line and the next attempt waits
2, 4, 8 ... drain intervals, at most `max_backoff`; `stats.failed_drains` counts the failures in
a row, which the receiver reads to answer 503 once the spool passes its bound.
"""

from __future__ import annotations

import logging
import time

import duckdb

log = logging.getLogger("trace_audit.otlp")


def loop(r) -> None:
    """Until the receiver stops: drain every interval, or later while loads fail."""
    retry_at = 0.0
    while not r._stop.wait(r.config.drain_interval):
        if time.monotonic() < retry_at:
            continue
        try:
            once(r)
        except Exception as exc:  # noqa: BLE001 - the drainer must outlive one bad batch
            log.exception("drain failed: %s", exc)
            _failed(r, str(exc))
        if r.stats.failed_drains:
            delay = min(r.config.max_backoff, r.config.drain_interval * 2 ** r.stats.failed_drains)
            retry_at = time.monotonic() + delay
        else:
            retry_at = 0.0


def _failed(r, message: str) -> None:
    with r.stats.lock:
        r.stats.failed_drains += 1
        r.stats.last_error = message


def once(r, wait_seconds: float = 2.0) -> int:
    """Seal the open segments and load every ready one; returns spans loaded."""
    from ..load.loader import ingest
    from ...queries.warehouse import db

    with r._drain_lock:
        r.spool.seal()
        ready = r.spool.ready()
        if not ready:
            return 0
        try:
            con = db.connect(r.config.db_path, wait_seconds=wait_seconds)
        except db.DatabaseBusy as exc:
            log.warning("warehouse busy, will retry: %s", exc)
            r.stats.last_error = str(exc)
            return 0
        except (OSError, duckdb.Error, db.DatabaseError) as exc:  # cannot even open it (disk full while it recovers)
            log.error("cannot open the warehouse, will retry: %s", exc)
            _failed(r, str(exc))
            return 0
        loaded, logs_loaded = 0, 0
        failed: list[str] = []
        started = time.monotonic()
        try:  # redaction as configured for ingest (serve-otlp --config)
            summary = ingest([str(p) for p in ready], con=con, tz=r.config.tz, progress=False,
                             redaction=r.config.redaction)
        finally:
            con.close()
        for path, result in zip(ready, summary.files):
            if result.status in ("loaded", "already_loaded"):
                loaded += result.counts.get("otel_spans", 0)
                logs_loaded += result.counts.get("otel_logs", 0)
                path.unlink()
            else:  # kept where it is, and tried again: it was acknowledged
                failed.append(result.message or "not stored")
                log.error("%s could not be stored, will retry: %s", path.name, result.message)
        with r.stats.lock:
            r.stats.spans_loaded += loaded
            r.stats.logs_loaded += logs_loaded
            r.stats.drains += 1
            if failed:
                r.stats.failed_drains += 1
                r.stats.last_error = failed[0]
            else:
                r.stats.failed_drains = 0
        log.info("loaded %d spans and %d log records from %d spool segment(s) in %.2fs", loaded, logs_loaded,
                 len(ready), time.monotonic() - started)
        return loaded
