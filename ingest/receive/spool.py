"""The receiver's durable queue: acknowledged requests on disk until loaded.

A request is appended to an open segment file and fsynced BEFORE the HTTP
answer goes out, so a crash after `200 OK` loses nothing. Protobuf requests go
to `open-N.otlp.pb` (the Collector's length-prefixed stream: 4-byte big-endian
length, then the message), JSON requests to `open-N.otlp.jsonl` (one request
per line). Both are ordinary OTLP files: `trace-audit ingest` reads them too.

The drainer seals the open segments (renamed `ready-N...`), loads them with
the ordinary loader (one transaction per segment; a segment already loaded is
recognised by its sha256) and deletes them. On start, segments left `open-`
by a crash are sealed and loaded first. A segment the loader cannot store
(the warehouse's disk is full, the file is locked) stays `ready-` and is tried
again with backoff until it is stored: an acknowledged request is deleted only
once its rows are committed. (Earlier versions moved such segments to
`failed/`; they are put back in line on start.)
"""

from __future__ import annotations

import os
import re
import struct
import threading
from pathlib import Path

# Kinds: pb / jsonl (traces), logs.pb / logs.jsonl (the logs signal: a segment holds one signal).
_SEGMENT = re.compile(r"^(open|ready)-(\d+)\.otlp\.((?:logs\.)?(?:pb|jsonl))$")
# A segment is sealed once it reaches this size, so a backlog is several
# files loaded one transaction each, never one huge transaction. Each load
# pays a fixed cost (the turn rebuild, little overlap of its stages), so
# fewer, larger segments load faster: with 64 MiB instead of 16, a backlog of
# 300k spans loaded end to end at 26k spans/s instead of 20k. Memory: a segment
# is one transaction, whose rows DuckDB holds until it commits, so a load holds
# about one segment's spans at a time.
SEGMENT_BYTES = 64 * 1024 * 1024


class Spool:
    def __init__(self, directory: str | os.PathLike):
        self.dir = Path(directory)
        # Requests are spooled before redaction: only the owner may read them.
        self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self.dir, 0o700)
        self.lock = threading.Lock()
        self._open: dict[str, tuple[Path, object]] = {}
        self._requeue_failed()
        numbers = [int(m.group(2)) for m in map(_SEGMENT.match, os.listdir(self.dir)) if m]
        self._next = max(numbers, default=0) + 1
        self.seal()  # whatever a previous run left open is complete up to its last fsync

    def append(self, kind: str, *payloads: bytes) -> None:
        """Persist requests (kind 'pb' / 'jsonl', 'logs.pb' / 'logs.jsonl'); returns once they are on disk."""
        if kind.endswith("pb"):
            record = b"".join(struct.pack(">I", len(p)) + p for p in payloads)
        else:
            # Raw newlines cannot occur inside JSON strings (they must be escaped),
            # so outside them they are whitespace and may become spaces.
            record = b"".join(p.replace(b"\r", b" ").replace(b"\n", b" ") + b"\n" for p in payloads)
        with self.lock:
            fh = self._segment(kind)
            fh.write(record)
            fh.flush()
            os.fsync(fh.fileno())
            if fh.tell() >= SEGMENT_BYTES:
                self._seal_one(kind)

    def _seal_one(self, kind: str) -> None:
        path, fh = self._open.pop(kind)
        fh.close()
        os.replace(path, path.with_name(path.name.replace("open-", "ready-", 1)))
        _fsync_dir(self.dir)

    def _segment(self, kind: str):
        got = self._open.get(kind)
        if got is None:
            path = self.dir / f"open-{self._next:010d}.otlp.{kind}"
            self._next += 1
            fh = open(path, "ab")
            _fsync_dir(self.dir)
            got = self._open[kind] = (path, fh)
        return got[1]

    def seal(self) -> None:
        """Close the open segments; they become ready to load."""
        with self.lock:
            for path, fh in self._open.values():
                fh.close()
            self._open.clear()
            renamed = False
            for name in os.listdir(self.dir):
                m = _SEGMENT.match(name)
                if m and m.group(1) == "open":
                    os.replace(self.dir / name, self.dir / name.replace("open-", "ready-", 1))
                    renamed = True
            if renamed:
                _fsync_dir(self.dir)

    def ready(self) -> list[Path]:
        """Sealed segments, oldest first."""
        found = []
        for name in os.listdir(self.dir):
            m = _SEGMENT.match(name)
            if m and m.group(1) == "ready":
                found.append((int(m.group(2)), self.dir / name))
        return [p for _, p in sorted(found)]

    def _requeue_failed(self) -> None:
        """Segments an earlier version set aside in failed/ were acknowledged: back in line they go."""
        failed = self.dir / "failed"
        if not failed.is_dir():
            return
        for name in os.listdir(failed):
            m = _SEGMENT.match(name)
            if m:
                os.replace(failed / name, self.dir / f"ready-{m.group(2)}.otlp.{m.group(3)}")
        _fsync_dir(self.dir)

    def pending_bytes(self) -> int:
        total = 0
        for name in os.listdir(self.dir):
            if _SEGMENT.match(name):
                try:
                    total += os.stat(self.dir / name).st_size
                except FileNotFoundError:  # loaded and deleted meanwhile
                    pass
        return total

    def close(self) -> None:
        self.seal()


def backlog(directory: str | os.PathLike) -> tuple[int, int, int]:
    """(segments waiting, their bytes, segments set aside in failed/) of a spool folder, read
    without touching it (a Spool() would create and seal it): what `trace-audit stats` shows."""
    d = Path(directory)
    if not d.is_dir():
        return 0, 0, 0
    waiting = [d / n for n in os.listdir(d) if _SEGMENT.match(n)]
    failed = d / "failed"
    n_failed = sum(1 for _ in failed.glob("*.otlp.*")) if failed.is_dir() else 0
    return len(waiting), sum(p.stat().st_size for p in waiting if p.is_file()), n_failed


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
