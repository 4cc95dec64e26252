"""What the CLI prints is text, never terminal commands or spreadsheet formulas from the data.

Trace data is written by agents and users: an ESC sequence in a tool's error or a reply can
retitle the terminal, clear it or write the clipboard (OSC 52) when `explain` or `findings`
prints it. `safe` shows every control character (C0 but newline and tab, DEL, C1) and the
bidirectional overrides as a visible `\\uXXXX` escape (valid inside JSON strings too, so
--json output stays JSON); `SafeWriter` applies it to everything a command writes to stdout,
and the few stderr lines that carry data call `safe` themselves (stderr also carries the
progress bar's own escapes).

`csv_cell` defuses formulas as OWASP's CSV-injection advice says: a cell starting with
= + - @, a tab or a carriage return gets a leading apostrophe, so a spreadsheet shows it as text.
"""

from __future__ import annotations

import io

_CONTROLS = [c for c in range(0x20) if c not in (0x09, 0x0A)] + list(range(0x7F, 0xA0)) + \
    [0x061C, 0x200E, 0x200F] + list(range(0x202A, 0x202F)) + list(range(0x2066, 0x206A))
_TABLE = {c: f"\\u{c:04x}" for c in _CONTROLS}
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe(text: str) -> str:
    return text.translate(_TABLE)


def csv_cell(value):
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


class SafeWriter(io.TextIOBase):
    """A text stream that writes `safe(s)` to the stream it wraps."""

    def __init__(self, inner):
        self.inner = inner

    def write(self, s: str) -> int:
        self.inner.write(s.translate(_TABLE))
        return len(s)

    def flush(self) -> None:
        self.inner.flush()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def fileno(self) -> int:
        return self.inner.fileno()

    @property
    def encoding(self):
        return self.inner.encoding

    def __getattr__(self, name):
        return getattr(self.inner, name)
