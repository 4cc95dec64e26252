"""Cut an input file into numbered JSON texts, without parsing them.

Handles JSON lines (streamed in blocks, constant memory), a JSON array or a
single JSON document per file, and gzip (recognised by its magic bytes, not
the name). Problems that stop a line from even being text (invalid UTF-8, a
line over the size limit, a gzip stream cut short) become quarantine entries
here; JSON validity and record shape are judged later, in bulk, by the decoder.

JSON lines are cut without a Python loop per line: numpy finds the newlines of
a whole block and the block's bytes become one Arrow string array in place
(each element keeps its trailing newline, which JSON treats as whitespace).
Blank lines are left in that array; the decoder ignores them.

Line numbers are 1-based physical lines of the (decompressed) file; an array
element's line is the line its first character stands on.

Binary formats (OTLP protobuf) plug in as sniffers passed to `frames`: a
function that looks at the first bytes and returns a frame generator, or None.
"""

from __future__ import annotations

import io
import json
import re
import zlib
from dataclasses import dataclass, field
from typing import BinaryIO, Callable, Iterable, Iterator

import numpy as np
import pyarrow as pa

from .array_resync import byte_range, next_element

BLOCK_BYTES = 32 * 1024 * 1024
DEFAULT_MAX_RECORD_BYTES = 16 * 1024 * 1024
RAW_KEEP_CHARS = 2000  # how much of a bad record is kept in ingest_errors
MAX_DOCUMENT_BYTES = 512 * 1024 * 1024
ARRAY_FRAME_RECORDS = 5000
GZIP_MAGIC = b"\x1f\x8b"
UTF8_BOM = b"\xef\xbb\xbf"
HEAD_BYTES = 64 * 1024
# Traces compress about 10:1; deflate tops out near 1000:1. Past the first
# GZIP_FREE_BYTES of output, a stream expanding more than this is a bomb.
MAX_GZIP_RATIO = 200
GZIP_FREE_BYTES = 64 * 1024 * 1024

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


# A sniffer gets the first bytes of the (decompressed) input and returns
# `fn(stream, head, counter, max_bytes) -> Iterator[Frame]`, or None when the
# input is not its format. Tried in order before the JSON layouts.
Sniffer = Callable[[bytes], Callable[..., Iterator[Frame]] | None]


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


def _cut(text: str) -> str:
    text = text.rstrip("\r\n")
    return text if len(text) <= RAW_KEEP_CHARS else text[:RAW_KEEP_CHARS] + "…"


def _cut_bytes(data: bytes) -> str:
    return _cut(data[: RAW_KEEP_CHARS * 4].decode("utf-8", "replace"))


def _too_big(length: int, max_bytes: int) -> str:
    return (f"record is {length / 1048576:.1f} MiB, over the {max_bytes / 1048576:g} MiB limit "
            "(raise --max-record-mb to load it)")


def _bad_utf8(piece: bytes) -> str | None:
    try:
        piece.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"invalid UTF-8 at byte {exc.start + 1} of the line (the file must be UTF-8)"
    return None


def _block_to_frame(block: bytes, first_line: int, frame: Frame, max_bytes: int) -> int:
    """Fill `frame` with the lines of `block`; returns how many lines it holds.

    `block` ends with a newline except at the end of the input.
    """
    a = np.frombuffer(block, np.uint8)
    ends = np.flatnonzero(a == 10) + 1
    offsets = np.empty(len(ends) + 2, np.int64)
    offsets[0] = 0
    offsets[1:len(ends) + 1] = ends
    n = len(ends)
    if not len(ends) or ends[-1] != len(block):
        offsets[n + 1] = len(block)  # a last line without a newline is still a line
        n += 1
    offsets = offsets[: n + 1]
    lines = np.arange(first_line, first_line + n, dtype=np.int64)
    binary = pa.LargeBinaryArray.from_buffers(pa.large_binary(), n, [None, pa.py_buffer(offsets), pa.py_buffer(block)])

    keep = None
    lengths = np.diff(offsets)
    # Empty lines ("\n", "\r\n") are no records. Where they are most of the
    # block (a file of blank lines, a gzip bomb of newlines) they are dropped
    # here: as records they would cost ~40 bytes of index each, in every
    # stage a frame passes through. A few stray ones stay (dropping them would
    # copy the block) and the decoder ignores them.
    first = a[offsets[:-1]]  # a last line without a newline ("T") is not empty
    empty = ((lengths == 1) & (first == 10)) | ((lengths == 2) & (first == 13) & (a[offsets[1:] - 1] == 10))
    if int(empty.sum()) * 2 > n:
        keep = ~empty
    if max_bytes and lengths.max(initial=0) > max_bytes + 2:  # +2: the newline (CRLF) is not the record
        too_big = lengths > max_bytes + 2
        keep = ~too_big if keep is None else keep & ~too_big
        for i in np.flatnonzero(too_big):
            s, e = int(offsets[i]), int(offsets[i + 1])
            frame.errors.append((int(lines[i]), _cut_bytes(block[s:s + RAW_KEEP_CHARS * 4]),
                                 _too_big(e - s - (1 if block[e - 1:e] == b"\n" else 0), max_bytes)))
    try:
        text = (binary if keep is None else binary.filter(pa.array(keep))).cast(pa.large_string())
    except pa.ArrowInvalid:
        # Some line is not UTF-8: find which, per line, in this block only.
        good = np.ones(n, bool) if keep is None else keep.copy()
        for i in np.flatnonzero(good):
            s, e = int(offsets[i]), int(offsets[i + 1])
            reason = _bad_utf8(block[s:e])
            if reason:
                good[i] = False
                frame.errors.append((int(lines[i]), _cut_bytes(block[s:e]), reason))
        keep = good
        text = binary.filter(pa.array(keep)).cast(pa.large_string())
    if keep is not None:
        lines = lines[keep]
    frame.batch = pa.Table.from_arrays([pa.array(lines), text], schema=RECORDS_SCHEMA)
    return n


MAX_FRAME_LINES = 1 << 20
DENSE_PIECE_BYTES = 1 << 20


def _dense_pieces(block: bytes) -> list[bytes]:
    """`block`, or, when it holds over MAX_FRAME_LINES lines, pieces of about
    DENSE_PIECE_BYTES each ending at a newline.

    Framing costs ~40 bytes of index per line, so a block of blank or tiny lines
    (a gzip bomb of newlines: 33M lines per block) would need over 1 GB at once.
    """
    if block.count(b"\n") <= MAX_FRAME_LINES:
        return [block]
    pieces, start, n = [], 0, len(block)
    while start < n:
        end = block.find(b"\n", min(start + DENSE_PIECE_BYTES, n) - 1) + 1 or n
        pieces.append(block[start:end])
        start = end
    return pieces


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
            # Still inside an over-long line: discard up to its end, keep memory flat.
            nl = chunk.find(b"\n")
            line, kept, length = oversize
            if nl < 0 and not eof:
                oversize = (line, kept, length + len(chunk))
                frame.bytes_read = counter.count
                yield frame
                continue
            length += nl if nl >= 0 else len(chunk)
            frame.errors.append((line, _cut_bytes(kept), _too_big(length, max_bytes)))
            oversize = None
            next_line = line + 1
            chunk = chunk[nl + 1:] if nl >= 0 else b""
        data = carry + chunk if carry else chunk
        carry = b""
        if eof:
            block = data
        else:
            cut = data.rfind(b"\n")
            if cut < 0:
                if len(data) > max_bytes:
                    oversize = (next_line, data[: RAW_KEEP_CHARS * 4], len(data))
                else:
                    carry = data
                frame.bytes_read = counter.count
                yield frame
                continue
            block, carry = data[: cut + 1], data[cut + 1:]
            if len(carry) > max_bytes:
                oversize = (next_line + block.count(b"\n"), carry[: RAW_KEEP_CHARS * 4], len(carry))
                carry = b""
        del data
        if block:
            *dense, block = _dense_pieces(block)
            for piece in dense:
                if not piece.strip():  # blank lines only (each piece ends with a newline): nothing to frame
                    next_line += piece.count(b"\n")
                    continue
                sub = Frame(bytes_read=counter.count)
                next_line += _block_to_frame(piece, next_line, sub, max_bytes)
                yield sub
            next_line += _block_to_frame(block, next_line, frame, max_bytes)
        if eof:
            problem = stream_problem(stream)
            if problem:
                frame.errors.append((next_line, "", f"{problem} after line {next_line - 1}; the lines before "
                                                    "were read, the rest of the file is missing (re-copy it)"))
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


_LONE_SURROGATE = re.compile("[\udc80-\udcff]")


def _first_column(text: str, start: int) -> int | None:
    """The first element's column when it starts a line (a pretty array), else None (one line)."""
    line_start = text.rfind("\n", 0, start) + 1
    return start - line_start if not text[line_start:start].strip() else None


def document_frames(text: str, max_bytes: int, lossy: bool = False) -> Iterator[Frame]:
    """A JSON array (each element a record) or one JSON document (one record).

    `lossy`: the text was decoded with surrogateescape because some bytes are
    not UTF-8; elements holding such bytes are quarantined, the others load.
    """
    decoder = json.JSONDecoder()
    n = len(text)
    i = 0
    while i < n and text[i].isspace():
        i += 1
    cache = [0, 1]
    if i >= n:
        return
    frame = Frame()

    def take(line: int, piece: str) -> None:
        if lossy and _LONE_SURROGATE.search(piece):
            bad = piece.encode("utf-8", "surrogateescape")
            frame.errors.append((line, _cut(bad.decode("utf-8", "replace")),
                                 "invalid UTF-8 in this record (the file must be UTF-8)"))
        elif len(piece) > max_bytes and len(piece.encode("utf-8", "surrogateescape")) > max_bytes:
            frame.errors.append((line, _cut(piece), _too_big(len(piece.encode("utf-8", "surrogateescape")), max_bytes)))
        else:
            frame.lines.append(line)
            frame.raws.append(piece)

    if text[i] != "[":
        take(_line_of(text, i, cache), text[i:].rstrip())
        yield frame
        return
    i += 1
    first_column: int | None | str = "unknown"  # where elements start, when the array is one element a line
    while True:
        while i < n and (text[i].isspace() or text[i] == ","):
            i += 1
        if i >= n:
            frame.errors.append((_line_of(text, n, cache), "",
                                 "the JSON array is not closed (file truncated?); the elements before were read"))
            break
        if text[i] == "]":
            rest = text[i + 1:]
            if rest.strip():
                at = i + 1 + (len(rest) - len(rest.lstrip()))
                frame.errors.append((_line_of(text, at, cache), _cut(text[at:at + RAW_KEEP_CHARS]),
                                     "text after the end of the JSON array was not read; put one JSON document "
                                     "in a file, or write JSON lines"))
            break
        start = i
        try:
            _, end = decoder.raw_decode(text, start)
        except RecursionError:
            frame.errors.append((_line_of(text, start, cache), _cut(text[start:start + RAW_KEEP_CHARS]),
                                 "array element nested too deeply to read; the rest of the array could not be read"))
            break
        except json.JSONDecodeError as exc:
            line = _line_of(text, start, cache)
            if first_column == "unknown":
                first_column = _first_column(text, start)
            resume = next_element(text, start, decoder, first_column)
            stop = resume if resume is not None else n
            frame.errors.append((line, _cut(text[start:min(stop, start + RAW_KEEP_CHARS * 2)]),
                                 f"invalid JSON in array element: {exc.msg} (line {exc.lineno}); "
                                 f"{byte_range(text, start, stop)} could not be read"
                                 + ("; reading went on at the next element" if resume is not None
                                    else "; no readable element followed")))
            if resume is None:
                break
            i = resume
            continue
        if first_column == "unknown":
            first_column = _first_column(text, start)
        take(_line_of(text, start, cache), text[start:end])
        i = end
        if len(frame.raws) >= ARRAY_FRAME_RECORDS:
            yield frame
            frame = Frame()
    yield frame


_BINARY_BYTE = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _looks_like_json_text(head: bytes) -> bool:
    """Text (JSON lines, possibly with junk) rather than a binary format.

    A leading newline (0x0A) must not be taken for the first byte of a
    protobuf message: JSON lines may start with blank lines or with a junk
    line; binary messages hold control bytes that text does not.
    """
    head = head.removeprefix(UTF8_BOM)
    if head.lstrip()[:1] in (b"", b"{", b"["):
        return True
    return _BINARY_BYTE.search(head) is None


def _looks_like_one_document(head: bytes) -> bool:
    """True when the file is one JSON document (an array of records or a pretty-printed
    object) rather than JSON lines."""
    stripped = head.lstrip()
    if not stripped.startswith((b"[", b"{")):
        return False
    first_line, _, rest = stripped.partition(b"\n")
    try:
        json.loads(first_line)
    except RecursionError:
        # Too deeply nested for Python's parser: judge it as a whole value (the
        # decoder quarantines it, line by line, like any other bad record).
        return stripped.startswith(b"[") and not rest.strip()
    except ValueError:
        # The first line is not a whole value: a document spread over lines
        # (a '{' line that is just broken JSON lines is caught later).
        return stripped.startswith(b"[") or b"\n" in stripped
    # A whole value on the first line is JSON lines, except a one-line array
    # with nothing after it (`json.dump(records, f)`).
    return stripped.startswith(b"[") and not rest.strip()


def frames(raw: BinaryIO, max_bytes: int = DEFAULT_MAX_RECORD_BYTES,
           sniffers: Iterable[Sniffer] = ()) -> Iterator[Frame]:
    """Frames of an input stream, whichever of the layouts it uses."""
    stream, counter = open_decompressed(raw)
    head = stream.read(min(HEAD_BYTES, BLOCK_BYTES))
    if not _looks_like_json_text(head):
        for sniff in sniffers:
            reader = sniff(head)
            if reader is not None:
                yield from reader(stream, head, counter, max_bytes)
                return
    if head.startswith(UTF8_BOM):
        head = head[3:]
    if _looks_like_one_document(head):
        yield from _document_file(stream, head, counter, max_bytes)
        return
    yield from jsonl_frames(stream, counter, max_bytes, head=head)


def _document_file(stream: BinaryIO, head: bytes, counter: CountingReader, max_bytes: int) -> Iterator[Frame]:
    rest = stream.read(MAX_DOCUMENT_BYTES)
    data = head + rest
    if stream.read(1):
        f = Frame(bytes_read=counter.count)
        f.errors.append((1, "", f"a single JSON document over {MAX_DOCUMENT_BYTES // 1048576} MiB; "
                                "write it as JSON lines instead"))
        yield f
        return
    lossy = False
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text, lossy = data.decode("utf-8", "surrogateescape"), True
    # A file whose first line happens to start with '{' but that is really
    # JSON lines with a broken first line falls back to the line reader.
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            _, end = json.JSONDecoder().raw_decode(stripped)
        except json.JSONDecodeError:
            end = -1
        except RecursionError:  # too deep to find its end: one record, quarantined by its reader
            end = len(stripped.rstrip())
        if end < 0 or stripped[end:].strip():
            yield from jsonl_frames(io.BytesIO(b""), counter, max_bytes, head=data)
            return
    problem = stream_problem(stream)
    for f in document_frames(text, max_bytes, lossy):
        f.bytes_read = counter.count
        if problem:
            f.errors.append((text.count("\n") + 1, "", f"{problem}; the records before were read"))
            problem = None
        yield f
