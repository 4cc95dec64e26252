"""What a prefilter may be written in: RE2 (Arrow's kernels over columns) read alike by Python's `re`
(the gates over single texts), and the small pieces compile_rules joins prefilters with."""

from __future__ import annotations

import re
import re._parser as _sre_parse  # Python's regex parser: pattern widths, and how Python reads a prefilter
import warnings

import pyarrow as pa
import pyarrow.compute as pc

NEVER = r"\b\B"  # matches nothing, in RE2 and in Python
ESCAPED_ASCII = r"\\u00[0-7][0-9a-fA-F]"  # RE2: a \u escape of an ASCII character in JSON text
# RE2 syntax Python reads differently or not at all (\pN, \z, \x{..}, [[:digit:]],
# `{,n}` which RE2 takes literally, the U flag): not rewritten. Not after an escaped
# backslash (`C:\\pagefile` is a backslash and "pagefile" in both).
RE2_ONLY = re.compile(r"(?<!\\)(?:\\\\)*(?:\\[pPQCz]|\\x\{|\{,|\(\?[a-zA-Z-]*U|\[:\^?[a-z]+:\])")


def min_width(pattern: str) -> int:
    return int(_sre_parse.parse(pattern, re.ASCII).getwidth()[0])


def scoped(pattern: str) -> str:
    # RE2 applies a leading (?i) to the rest of the whole expression; keep it
    # inside its own alternative once the prefilters are joined.
    if pattern.startswith("(?i)"):
        return "(?i:" + pattern[4:] + ")"
    return "(?:" + pattern + ")"


def name_regex(name: str) -> str:
    return "".join(r"[_.\- ]?" if ch == "_" else re.escape(ch) for ch in name)


def check_re2(pattern: str, what: str = "prefilter") -> None:
    try:
        pc.match_substring_regex(pa.array([""], pa.string()), pattern)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise ValueError(
            f"{what} {pattern!r} is not valid RE2 (no look-around or back-references): {exc}"
        ) from exc


def read_as_python(pattern: str):
    """`pattern` parsed as Python's `re` reads it (ASCII), its warnings raised as errors:
    they mark syntax RE2 reads another way ("possible nested set" for `[[:space:]]`)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return _sre_parse.parse(pattern, re.ASCII)


def check_read_alike(pattern: str, what: str = "prefilter") -> None:
    """A configured prefilter runs in RE2 (Arrow) over columns and in Python's `re`
    over single texts (the gates), so both must read it alike: syntax only RE2
    knows (`[[:space:]]`, `\\pN`, `\\z`) would silently miss in the Python gates, and
    `{,n}`, which RE2 takes literally but Python as a repeat, would miss in the columns."""
    found = RE2_ONLY.search(pattern)
    try:
        read_as_python(pattern)
        problem = f"{found.group(0)!r} is read one way by RE2 and another by Python's re" if found else None
    except (re.error, FutureWarning, DeprecationWarning) as exc:
        problem = str(exc)
    if problem:
        raise ValueError(
            f"{what} {pattern!r} uses syntax that Python's re reads differently from RE2 ({problem}); "
            "write it in syntax both read alike, e.g. \\s for [[:space:]], \\d for [[:digit:]] or \\pN, "
            "{0,n} for {,n}"
        )
