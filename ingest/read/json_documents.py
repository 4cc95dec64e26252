"""A JSON array (each element a record) or one JSON document (one record), cut into frames."""

from __future__ import annotations

import json
import re
from typing import Iterator

from .array_resync import byte_range, next_element
from .frame import RAW_KEEP_CHARS, Frame, cut_raw, cut_raw_bytes, too_big_reason

ARRAY_FRAME_RECORDS = 5000


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
            frame.errors.append((line, cut_raw(bad.decode("utf-8", "replace")),
                                 "invalid UTF-8 in this record (the file must be UTF-8)"))
        elif len(piece) > max_bytes and len(piece.encode("utf-8", "surrogateescape")) > max_bytes:
            frame.errors.append((line, cut_raw(piece), too_big_reason(len(piece.encode("utf-8", "surrogateescape")), max_bytes)))
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
                frame.errors.append((_line_of(text, at, cache), cut_raw(text[at:at + RAW_KEEP_CHARS]),
                                     "text after the end of the JSON array was not read; put one JSON document "
                                     "in a file, or write JSON lines"))
            break
        start = i
        try:
            _, end = decoder.raw_decode(text, start)
        except RecursionError:
            frame.errors.append((_line_of(text, start, cache), cut_raw(text[start:start + RAW_KEEP_CHARS]),
                                 "array element nested too deeply to read; the rest of the array could not be read"))
            break
        except json.JSONDecodeError as exc:
            line = _line_of(text, start, cache)
            if first_column == "unknown":
                first_column = _first_column(text, start)
            resume = next_element(text, start, decoder, first_column)
            stop = resume if resume is not None else n
            frame.errors.append((line, cut_raw(text[start:min(stop, start + RAW_KEEP_CHARS * 2)]),
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
