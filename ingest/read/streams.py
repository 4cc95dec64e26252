"""Byte streams under the framing: counting what was read (for progress) and gunzipping
without losing what was decompressed when a gzip file turns out cut short or damaged."""

from __future__ import annotations

import io
import zlib
from typing import BinaryIO

GZIP_MAGIC = b"\x1f\x8b"
# Traces compress about 10:1; deflate tops out near 1000:1. Past the first
# GZIP_FREE_BYTES of output, a stream expanding more than this is a bomb.
MAX_GZIP_RATIO = 200
GZIP_FREE_BYTES = 64 * 1024 * 1024


class CountingReader(io.RawIOBase):
    """Wraps a binary stream and counts the bytes taken from it (for progress)."""

    def __init__(self, inner: BinaryIO):
        self.inner = inner
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:  # type: ignore[override]
        readinto = getattr(self.inner, "readinto", None)
        if readinto is not None:  # straight into the caller's buffer, no extra copy
            n = readinto(b) or 0
        else:
            data = self.inner.read(len(b))
            n = len(data)
            b[:n] = data
        self.count += n
        return n


class GunzipReader(io.RawIOBase):
    """Streams a gzip file (several members allowed) and, unlike `gzip.GzipFile`,
    does not throw away what it decompressed when the file turns out to be cut
    short or damaged: it stops there and says so in `problem`."""

    def __init__(self, inner: BinaryIO):
        self.inner = inner
        self.inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self.pending = b""
        self.done = False
        self.problem: str | None = None
        self.out_bytes = 0
        self.in_bytes = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:  # type: ignore[override]
        while not self.pending and not self.done:
            self._inflate_some(len(b))
        n = min(len(b), len(self.pending))
        b[:n] = self.pending[:n]
        self.pending = self.pending[n:]
        self.out_bytes += n
        if self.out_bytes > GZIP_FREE_BYTES and self.out_bytes > MAX_GZIP_RATIO * max(self.in_bytes, 1) \
                and not self.done:
            self.problem = (f"the gzip stream expands over {MAX_GZIP_RATIO}:1 (a decompression bomb?); "
                            f"reading stopped at {self.out_bytes // 1048576} MiB")
            self.done, self.pending = True, b""
        return n

    def _inflate_some(self, want: int) -> None:
        d = self.inflater
        if d.eof:
            # The member ended; another may follow (concatenated gzip), or padding.
            data = d.unused_data or self.inner.read(1024 * 1024)
            if not d.unused_data:
                self.in_bytes += len(data)
            if not data.strip(b"\x00"):
                self.done = True
                return
            self.inflater = d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif d.unconsumed_tail:
            data = d.unconsumed_tail
        else:
            data = self.inner.read(1024 * 1024)
            self.in_bytes += len(data)
            if not data:
                self.problem = "the gzip stream is truncated (the file was cut short)"
                self.done = True
                return
        try:
            self.pending = d.decompress(data, max(want, 64 * 1024))
        except zlib.error as exc:
            self.problem = f"the gzip data is damaged ({exc})"
            self.done = True


def open_decompressed(raw: BinaryIO) -> tuple[BinaryIO, CountingReader]:
    counter = CountingReader(raw)
    buffered = io.BufferedReader(counter, buffer_size=1024 * 1024)
    head = buffered.peek(2)[:2]
    if head == GZIP_MAGIC:
        return io.BufferedReader(GunzipReader(buffered), buffer_size=1024 * 1024), counter  # type: ignore[return-value]
    return buffered, counter


def stream_problem(stream: BinaryIO) -> str | None:
    """Why the (decompressed) stream ended early, if it did."""
    inner = getattr(stream, "raw", None)
    return getattr(inner, "problem", None)
