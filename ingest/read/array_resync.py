"""After an unreadable element of a JSON array of records, where the next readable one starts.

A syntax error inside one element used to end the read of the whole array: of 10,000
elements, one loaded, one was quarantined and 9,998 were in neither table. Here the reader
looks for the next element boundary: a `{` that follows a `,` (only whitespace between), at
the column the array's first element started at when the array is laid out one element a line,
whose object reads whole and is followed by `,` or `]`. The text between is one quarantined
span, reported with its byte range. Objects nested inside the broken element could look like
an element; the column rule rules most of them out in pretty-printed arrays, and anything read
wrongly past the break is still stored or quarantined, never dropped.
"""

from __future__ import annotations

import json


def column(text: str, pos: int) -> int:
    return pos - (text.rfind("\n", 0, pos) + 1)


def next_element(text: str, bad_start: int, decoder: json.JSONDecoder, first_column: int | None) -> int | None:
    """Start of the next element that reads whole after the unreadable one at `bad_start`, or None."""
    n = len(text)
    pos = bad_start + 1
    while True:
        p = text.find("{", pos)
        if p < 0:
            return None
        pos = p + 1
        j = p - 1
        while j > bad_start and text[j].isspace():
            j -= 1
        if j <= bad_start or text[j] != ",":
            continue
        if first_column is not None and column(text, p) != first_column:
            continue
        try:
            _, end = decoder.raw_decode(text, p)
        except (json.JSONDecodeError, RecursionError):
            continue
        while end < n and text[end].isspace():
            end += 1
        if end >= n or text[end] in ",]":
            return p


def byte_range(text: str, start: int, end: int) -> str:
    """'bytes A-B' of text[start:end] in the UTF-8 file (for the quarantine reason)."""
    a = len(text[:start].encode("utf-8", "surrogateescape"))
    b = a + len(text[start:end].encode("utf-8", "surrogateescape"))
    return f"bytes {a}-{b}"
