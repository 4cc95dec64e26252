"""framing.frames on its own: line numbers, block edges, layouts, sniffers."""

from __future__ import annotations

import gzip
import io
import json

import pytest

from trace_audit.ingest.read import framing


def framed(data: bytes, **kw) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(line, text) of every record and (line, reason) of every framing error; blank lines dropped."""
    records, errors = [], []
    for f in framing.frames(io.BytesIO(data), **kw):
        table = f.records()
        if table is not None:
            for ln, raw in zip(table.column("line").to_pylist(), table.column("raw").to_pylist()):
                if raw.strip(" \t\r\n"):
                    records.append((ln, raw.rstrip("\r\n")))
        errors += [(ln, reason) for ln, _raw, reason in f.errors]
    return records, errors


@pytest.mark.parametrize("block", [7, 64, 1000, framing.BLOCK_BYTES])
def test_lines_and_numbers_survive_any_block_size(monkeypatch, block):
    monkeypatch.setattr(framing, "BLOCK_BYTES", block)
    lines = [json.dumps({"i": i, "pad": "é" * (i % 13)}, ensure_ascii=False) for i in range(200)]
    lines[50] = ""
    lines[51] = "   "
    data = ("\n".join(lines) + "\n").encode()
    records, errors = framed(data, max_bytes=1 << 20)
    assert errors == []
    assert records == [(i + 1, text) for i, text in enumerate(lines) if text.strip()]


def test_last_line_without_newline_and_crlf():
    records, _ = framed(b'{"a": 1}\r\n{"a": 2}\r\n{"a": 3}')
    assert records == [(1, '{"a": 1}'), (2, '{"a": 2}'), (3, '{"a": 3}')]


@pytest.mark.parametrize("data, expected", [
    (b"T", [(1, "T")]),                            # one character, no newline: a record, not an empty line
    (b"\n\n\nT", [(4, "T")]),                      # mostly empty lines (dropped early), numbers kept
    (b"\r\n\r\n\r\n{}\r", [(4, "{}\r")]),
    (b"\n" * 5000 + b'{"a": 1}\n' + b"\r\n" * 5000 + b"x", [(5001, '{"a": 1}'), (10002, "x")]),
])
def test_empty_lines_are_dropped_but_short_records_and_line_numbers_are_not(data, expected):
    records = []
    for f in framing.frames(io.BytesIO(data)):
        table = f.records()
        if table is not None:
            # Every case is mostly empty lines: framing drops them all (none reach the decoder).
            records += [(ln, raw.rstrip("\n")) for ln, raw in zip(table.column("line").to_pylist(),
                                                                  table.column("raw").to_pylist())]
    assert records == expected


def test_over_long_line_across_blocks(monkeypatch):
    monkeypatch.setattr(framing, "BLOCK_BYTES", 16)
    data = b'{"a": 1}\n' + b'{"b": "' + b"x" * 100 + b'"}\n{"c": 3}\n'
    records, errors = framed(data, max_bytes=32)
    assert records == [(1, '{"a": 1}'), (3, '{"c": 3}')]
    assert [ln for ln, _ in errors] == [2] and "over the" in errors[0][1]


def test_invalid_utf8_is_per_line():
    records, errors = framed(b'{"a": 1}\n{"b": "\xff"}\n{"c": 3}\n')
    assert [ln for ln, _ in records] == [1, 3]
    assert errors == [(2, "invalid UTF-8 at byte 8 of the line (the file must be UTF-8)")]


def test_bom_is_skipped():
    records, _ = framed(b'\xef\xbb\xbf{"a": 1}\n')
    assert records == [(1, '{"a": 1}')]


def test_gzip_members_and_truncation():
    whole = gzip.compress(b'{"a": 1}\n') + gzip.compress(b'{"a": 2}\n')
    assert framed(whole)[0] == [(1, '{"a": 1}'), (2, '{"a": 2}')]
    big = gzip.compress(b"".join(b'{"n": %d}\n' % i for i in range(50000)))
    records, errors = framed(big[: len(big) // 2])
    assert records[:3] == [(1, '{"n": 0}'), (2, '{"n": 1}'), (3, '{"n": 2}')]
    assert len(errors) == 1 and "gzip stream is truncated" in errors[0][1]


def test_array_elements_carry_their_line():
    data = b'[\n  {"a": 1},\n  {"a": 2}, {"a": 3}\n]\n'
    records, errors = framed(data)
    assert records == [(2, '{"a": 1}'), (3, '{"a": 2}'), (3, '{"a": 3}')] and errors == []


def test_sniffers_see_binary_but_never_text():
    seen = []

    def sniff(head):
        seen.append(head)
        return None

    for data in (b"\n\n" + b'{"a": 1}\n', b"\n0\n0\n", b"just words\n"):
        list(framing.frames(io.BytesIO(data), sniffers=[sniff]))
    assert seen == []
    list(framing.frames(io.BytesIO(b"\x0a\x05\x0a\x03abc"), sniffers=[sniff]))
    assert seen == [b"\x0a\x05\x0a\x03abc"]
