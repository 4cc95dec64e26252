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
from typing import BinaryIO, Callable, Iterable, Iterator

import numpy as np
import pyarrow as pa

# Frame and the stream wrappers are the framing's API too (readers import Frame from here).
from .frame import RAW_KEEP_CHARS, RECORDS_SCHEMA, Frame, bad_utf8, cut_raw, cut_raw_bytes, too_big_reason  # noqa: F401
from .json_documents import document_frames
from .streams import GZIP_MAGIC, CountingReader, GunzipReader, open_decompressed, stream_problem  # noqa: F401

BLOCK_BYTES = 32 * 1024 * 1024
DEFAULT_MAX_RECORD_BYTES = 16 * 1024 * 1024
MAX_DOCUMENT_BYTES = 512 * 1024 * 1024
UTF8_BOM = b"\xef\xbb\xbf"
HEAD_BYTES = 64 * 1024

# A sniffer gets the first bytes of the (decompressed) input and returns
# `fn(stream, head, counter, max_bytes) -> Iterator[Frame]`, or None when the
# input is not its format. Tried in order before the JSON layouts.
Sniffer = Callable[[bytes], Callable[..., Iterator[Frame]] | None]


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
            frame.errors.append((int(lines[i]), cut_raw_bytes(block[s:s + RAW_KEEP_CHARS * 4]),
                                 too_big_reason(e - s - (1 if block[e - 1:e] == b"\n" else 0), max_bytes)))
    try:
        text = (binary if keep is None else binary.filter(pa.array(keep))).cast(pa.large_string())
    except pa.ArrowInvalid:
        # Some line is not UTF-8: find which, per line, in this block only.
        good = np.ones(n, bool) if keep is None else keep.copy()
        for i in np.flatnonzero(good):
            s, e = int(offsets[i]), int(offsets[i + 1])
            reason = bad_utf8(block[s:e])
            if reason:
                good[i] = False
                frame.errors.append((int(lines[i]), cut_raw_bytes(block[s:e]), reason))
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
            frame.errors.append((line, cut_raw_bytes(kept), too_big_reason(length, max_bytes)))
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
