"""Cut an input file into numbered JSON texts, without parsing them.

Handles JSON lines (streamed in blocks, constant memory), a JSON array or a
single JSON document per file, and gzip (recognised by its magic bytes, not
the name). Problems that stop a line from even being text (invalid UTF-8, a
line over the size limit) become quarantine entries here; JSON validity and
record shape are judged later, in bulk, by the decoder.

Line numbers are 1-based physical lines of the (decompressed) file; an array
element's line is the line its first character stands on.
"""

from __future__ import annotations

import gzip
import io
import json
from dataclasses import dataclass, field
from typing import BinaryIO, Iterator

BLOCK_BYTES = 16 * 1024 * 1024
DEFAULT_MAX_RECORD_BYTES = 16 * 1024 * 1024
RAW_KEEP_CHARS = 2000  # how much of a bad record is kept in ingest_errors
MAX_DOCUMENT_BYTES = 512 * 1024 * 1024
GZIP_MAGIC = b"\x1f\x8b"


@dataclass
class Frame:
    """A batch of records from one file: parallel lists of line numbers and texts."""

    lines: list[int] = field(default_factory=list)
    raws: list[str] = field(default_factory=list)
    errors: list[tuple[int, str, str]] = field(default_factory=list)  # (line, raw, reason)
    bytes_read: int = 0  # of the (compressed) input, for progress


class CountingReader(io.RawIOBase):
    """Wraps a binary stream and counts the bytes taken from it (for progress)."""

    def __init__(self, inner: BinaryIO):
        self.inner = inner
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:  # type: ignore[override]
        data = self.inner.read(len(b))
        n = len(data)
        b[:n] = data
        self.count += n
        return n


def open_decompressed(raw: BinaryIO) -> tuple[BinaryIO, CountingReader]:
    counter = CountingReader(raw)
    buffered = io.BufferedReader(counter, buffer_size=1024 * 1024)
    head = buffered.peek(2)[:2]
    if head == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=buffered, mode="rb"), counter  # type: ignore[return-value]
    return buffered, counter


def _cut(text: str) -> str:
    return text if len(text) <= RAW_KEEP_CHARS else text[:RAW_KEEP_CHARS] + "…"


def _decode_lines_slowly(block: bytes, first_line: int, frame: Frame, max_bytes: int) -> None:
    """Per-line path for a block that is not valid UTF-8 as a whole."""
    for i, piece in enumerate(block.split(b"\n")):
        line = first_line + i
        if not piece.strip():
            continue
        if len(piece) > max_bytes:
            frame.errors.append((line, _cut(piece[:RAW_KEEP_CHARS].decode("utf-8", "replace")),
                                 f"record is {len(piece) / 1048576:.1f} MiB, over the {max_bytes // 1048576} MiB limit (raise --max-record-mb)"))
            continue
        try:
            frame.lines.append(line)
            frame.raws.append(piece.decode("utf-8"))
        except UnicodeDecodeError as exc:
            frame.lines.pop()
            frame.errors.append((line, _cut(piece.decode("utf-8", "replace")),
                                 f"invalid UTF-8 at byte {exc.start} of the line (the file must be UTF-8)"))


def jsonl_frames(stream: BinaryIO, counter: CountingReader, max_bytes: int,
                 head: bytes = b"") -> Iterator[Frame]:
    """JSON lines, one Frame per block of about BLOCK_BYTES."""
    next_line = 1
    carry = head
    oversize: tuple[int, bytes, int] | None = None  # (line, kept prefix, length) of a line being skipped
    while True:
        chunk = stream.read(BLOCK_BYTES)
        eof = not chunk
        frame = Frame()
        if oversize is not None:
            # Still inside an over-long line: discard up to its end.
            nl = chunk.find(b"\n")
            line, kept, length = oversize
            if nl < 0 and not eof:
                oversize = (line, kept, length + len(chunk))
                frame.bytes_read = counter.count
                yield frame
                continue
            length += (nl if nl >= 0 else len(chunk))
            frame.errors.append((line, _cut(kept.decode("utf-8", "replace")),
                                 f"record is {length / 1048576:.1f} MiB, over the {max_bytes // 1048576} MiB limit (raise --max-record-mb)"))
            oversize = None
            next_line = line + 1
            chunk = chunk[nl + 1:] if nl >= 0 else b""
        data = carry + chunk
        if eof:
            block, carry = data, b""
        else:
            cut = data.rfind(b"\n")
            if cut < 0:
                if len(data) > max_bytes:
                    oversize = (next_line, data[:RAW_KEEP_CHARS], len(data))
                    carry = b""
                else:
                    carry = data
                frame.bytes_read = counter.count
                yield frame
                continue
            block, carry = data[: cut + 1], data[cut + 1:]
            if len(carry) > max_bytes:
                oversize = (next_line + block.count(b"\n"), carry[:RAW_KEEP_CHARS], len(carry))
                carry = b""
        if block:
            try:
                text = block.decode("utf-8")
            except UnicodeDecodeError:
                _decode_lines_slowly(block, next_line, frame, max_bytes)
            else:
                pieces = text.split("\n")
                for i, piece in enumerate(pieces):
                    if len(piece) > 64 and len(piece) * 4 > max_bytes and len(piece.encode("utf-8")) > max_bytes:
                        frame.errors.append((next_line + i, _cut(piece),
                                             f"record is {len(piece.encode()) / 1048576:.1f} MiB, over the {max_bytes // 1048576} MiB limit (raise --max-record-mb)"))
                        pieces[i] = ""
                nonblank = [(next_line + i, p) for i, p in enumerate(pieces) if p and not p.isspace()]
                frame.lines = [ln for ln, _ in nonblank]
                frame.raws = [p for _, p in nonblank]
            next_line += block.count(b"\n")
            if eof and not block.endswith(b"\n"):
                pass  # a last line without newline is still a line
        frame.bytes_read = counter.count
        yield frame
        if eof:
            return


def _line_of(text: str, pos: int, cache: list[int]) -> int:
    # cache = [last_pos, last_line]; positions only grow while walking an array.
    last_pos, last_line = cache
    line = last_line + text.count("\n", last_pos, pos)
    cache[0], cache[1] = pos, line
    return line


def document_frames(text: str, max_bytes: int) -> Iterator[Frame]:
    """A JSON array (each element a record) or one JSON document (one record)."""
    decoder = json.JSONDecoder()
    n = len(text)
    i = 0
    while i < n and text[i].isspace():
        i += 1
    cache = [0, 1]
    if i >= n:
        return
    if text[i] != "[":
        yield Frame(lines=[_line_of(text, i, cache)], raws=[text[i:].rstrip()])
        return
    frame = Frame()
    i += 1
    while True:
        while i < n and (text[i].isspace() or text[i] == ","):
            i += 1
        if i >= n:
            frame.errors.append((_line_of(text, n, cache), "", "JSON array is not closed (file truncated?)"))
            break
        if text[i] == "]":
            break
        start = i
        try:
            _, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError as exc:
            line = _line_of(text, start, cache)
            rest = text[start:]
            frame.errors.append((line, _cut(rest),
                                 f"invalid JSON in array element: {exc.msg} (line {exc.lineno + line - 1}); "
                                 "the rest of the array could not be read"))
            break
        piece = text[start:end]
        line = _line_of(text, start, cache)
        if len(piece) > max_bytes:
            frame.errors.append((line, _cut(piece), f"record is {len(piece) / 1048576:.1f} MiB, over the limit"))
        else:
            frame.lines.append(line)
            frame.raws.append(piece)
        i = end
        if len(frame.raws) >= 5000:
            yield frame
            frame = Frame()
    yield frame


def _looks_like_one_document(head: bytes) -> bool:
    """True when the file starts like a pretty-printed JSON document, not JSON lines."""
    stripped = head.lstrip()
    if stripped.startswith(b"["):
        return True
    if not stripped.startswith(b"{"):
        return False
    first_line = stripped.split(b"\n", 1)[0]
    try:
        json.loads(first_line)
    except ValueError:
        return b"\n" in stripped  # a '{' line that is not a whole record: pretty-printed
    return False


def frames(raw: BinaryIO, max_bytes: int = DEFAULT_MAX_RECORD_BYTES) -> Iterator[Frame]:
    """Frames of an input stream, whichever of the JSON layouts it uses."""
    stream, counter = open_decompressed(raw)
    head = stream.read(64 * 1024)
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    if _looks_like_one_document(head):
        rest = stream.read(MAX_DOCUMENT_BYTES)
        data = head + rest
        if stream.read(1):
            f = Frame(bytes_read=counter.count)
            f.errors.append((1, "", f"a single JSON document over {MAX_DOCUMENT_BYTES // 1048576} MiB; write it as JSON lines instead"))
            yield f
            return
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            f = Frame(bytes_read=counter.count)
            f.errors.append((line, _cut(data[:RAW_KEEP_CHARS].decode("utf-8", "replace")),
                             f"invalid UTF-8 at line {line} of a JSON document (the file must be UTF-8)"))
            yield f
            return
        # A document whose first line happens to start with '{' but that is really
        # JSON lines with a broken first line falls back to the line reader.
        stripped = text.lstrip()
        if stripped.startswith("{"):
            try:
                _, end = json.JSONDecoder().raw_decode(stripped)
            except json.JSONDecodeError:
                end = -1
            if end < 0 or stripped[end:].strip():
                yield from jsonl_frames(io.BytesIO(b""), counter, max_bytes, head=data)
                return
        for f in document_frames(text, max_bytes):
            f.bytes_read = counter.count
            yield f
        return
    yield from jsonl_frames(stream, counter, max_bytes, head=head)
