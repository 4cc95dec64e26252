"""Does a file hold times without a UTC offset? A sniff of its first few megabytes.

Naive times (`"2026-11-20 08:00:00"`, MySQL dumps, many chat logs) are read in `--tz`, and with
no --tz and no $TRACE_AUDIT_TZ in UTC. A Beijing-time dump read as UTC hides eight hours of stuck
tasks and nothing fails, so the loader records per file whether it saw such times and in which
zone they were read, and `ingest` and the dashboard say so. A sniff, not a parse: a date-time
string of ISO shape that ends right after its seconds (or minutes) with a quote, comma or line end
has no offset; one followed by Z or +hh:mm has one. Epoch numbers and OTLP nanoseconds are UTC by
definition and never match."""

from __future__ import annotations

import gzip
import re

SNIFF_BYTES = 4 * 1024 * 1024
_NAIVE = re.compile(rb"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?=[\"',\r\n\t]|$)")


def sniff(data: bytes) -> bool:
    """True when `data` holds at least one date-time with no offset."""
    return _NAIVE.search(data) is not None


def has_naive_times(path: str, limit: int = SNIFF_BYTES) -> bool:
    with open(path, "rb") as fh:
        head = fh.read(2)
        fh.seek(0)
        if head == b"\x1f\x8b":
            with gzip.open(fh) as gz:
                try:
                    return sniff(gz.read(limit))
                except (OSError, EOFError):  # a damaged archive: the reader reports it
                    return False
        return sniff(fh.read(limit))
