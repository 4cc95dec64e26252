r"""Prefilters for raw JSON text: each RE2 prefilter rewritten to accept JSON escapes.

A string value in a JSON column holds its characters escaped: a tab is `\t`,
a slash may be `\/`, a quote is `\"`, and JSON held inside a JSON string
doubles the backslashes at every level (`\\t`, `\\\"`). The prefilters are
written for decoded text, so run as they are over the JSON text they would
miss `Bearer\tabc`. Rather than rewrite the whole column into an unescaped
copy (two regex replacements over every byte), each prefilter is rewritten
once: wherever it accepts a character that an escape decodes to, it also
accepts that escape, with any number of backslashes. The result, run on the
raw text, matches wherever the prefilter matches the unescaped view (and
sometimes more, which only sends a row to the precise path).
"""

from __future__ import annotations

import re
import re._constants as _sre  # Python's regex parser's opcodes: the rewrite walks its parse tree
from typing import Callable

from .prefilter_syntax import RE2_ONLY, read_as_python


class _NotTolerable(ValueError):
    """A prefilter in syntax the rewrite does not handle; its column keeps the unescaped view."""


# (decoded characters, the RE2 that matches their escapes at any nesting depth).
# The view maps \n \t \r \b \f to a space, so a space-accepting item takes them too.
# A backslash in a value is itself escaped (`\\`, doubled again at every nesting level).
_JSON_ESCAPES = ((" \t\n\r\b\f", r"\\+[nrtbf]"), ("/", r"\\+/"), ('"', r'\\+"'), ("\\", r"\\+"))
_CATEGORIES = {
    _sre.CATEGORY_DIGIT: r"\d", _sre.CATEGORY_NOT_DIGIT: r"\D",
    _sre.CATEGORY_SPACE: r"\s", _sre.CATEGORY_NOT_SPACE: r"\S",
    _sre.CATEGORY_WORD: r"\w", _sre.CATEGORY_NOT_WORD: r"\W",
}
# Word boundaries are dropped: `\nfoo` has none before `foo` although its view
# ` foo` has. Dropping an assertion only widens the match.
_ANCHORS = {
    _sre.AT_BEGINNING: "^", _sre.AT_BEGINNING_STRING: r"\A", _sre.AT_END: "$", _sre.AT_END_STRING: r"\z",
    _sre.AT_BOUNDARY: "", _sre.AT_NON_BOUNDARY: "",
}
_FLAG_LETTERS = ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s"))


def escape_tolerant(prefilter: str) -> str:
    r"""`prefilter` (RE2) rewritten to run on JSON text: it also accepts escapes of the characters it accepts.

    `(?i)bearer[\t ]+x` becomes, in effect, `(?i:bearer(?:[\t ]|\\+[nrtbf])+x)`.
    Raises _NotTolerable for syntax it does not handle.
    """
    if RE2_ONLY.search(prefilter):
        raise _NotTolerable("RE2-only syntax")
    try:
        parsed = read_as_python(prefilter)
    except (re.error, Warning, RecursionError) as exc:
        raise _NotTolerable(str(exc)) from None
    flags = parsed.state.flags
    return _with_flags(flags, 0, _emit(parsed.data, bool(flags & re.IGNORECASE)))


def tolerant_or_none(prefilter: str) -> str | None:
    try:
        return escape_tolerant(prefilter)
    except _NotTolerable:
        return None


def _with_flags(on: int, off: int, body: str) -> str:
    plus = "".join(c for f, c in _FLAG_LETTERS if on & f)
    minus = "".join(c for f, c in _FLAG_LETTERS if off & f)
    return "(?" + plus + ("-" + minus if minus else "") + ":" + body + ")"


def _emit(items, icase: bool) -> str:
    out = []
    for op, av in items:
        if op in (_sre.LITERAL, _sre.NOT_LITERAL, _sre.ANY, _sre.IN, _sre.CATEGORY):
            text, accepts = _one_char(op, av)
            escapes = [esc for chars, esc in _JSON_ESCAPES if any(accepts(c) for c in chars)]
            escapes += _unicode_escapes(op, av, icase)
            out.append("(?:" + "|".join([text, *escapes]) + ")" if escapes else text)
        elif op is _sre.BRANCH:
            out.append("(?:" + "|".join(_emit(b, icase) for b in av[1]) + ")")
        elif op is _sre.SUBPATTERN:
            _group, on, off, body = av
            inner = (icase or bool(on & re.IGNORECASE)) and not off & re.IGNORECASE
            out.append(_with_flags(on, off, _emit(body, inner)))
        elif op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT):  # laziness does not change whether it matches
            lo, hi, body = av
            out.append("(?:" + _emit(body, icase) + "){%d,%s}" % (lo, "" if hi is _sre.MAXREPEAT else hi))
        elif op is _sre.AT and av in _ANCHORS:
            out.append(_ANCHORS[av])
        else:  # back-references, look-around, atomic groups: not RE2 anyway
            raise _NotTolerable(f"unsupported regex element {op}")
    return "".join(out)


def _one_char(op, av) -> tuple[str, Callable[[str], bool]]:
    """RE2 text for a one-character item and a test of which characters it accepts."""
    if op is _sre.LITERAL:
        return _re2_char(av), lambda ch: ord(ch) == av
    if op is _sre.NOT_LITERAL:
        return "[^" + _re2_char(av) + "]", lambda ch: ord(ch) != av
    if op is _sre.ANY:
        return ".", lambda ch: True  # claims '\n' too without (?s): harmless widening
    if op is _sre.CATEGORY:
        return _CATEGORIES[av], lambda ch: _in_category(av, ch)
    parts = []
    for iop, iav in av:  # op is IN: a character class
        if iop is _sre.NEGATE:
            parts.append("^")
        elif iop is _sre.LITERAL:
            parts.append(_re2_char(iav))
        elif iop is _sre.RANGE:
            parts.append(_re2_char(iav[0]) + "-" + _re2_char(iav[1]))
        elif iop is _sre.CATEGORY:
            parts.append(_CATEGORIES[iav])
        else:
            raise _NotTolerable(f"unsupported class element {iop}")
    return "[" + "".join(parts) + "]", lambda ch: _in_class(av, ch)


# Producers that write ASCII-only JSON (Python's json.dumps by default) spell every
# other character `\uXXXX`, astral ones as a surrogate pair. (\u-escaped ASCII is
# caught separately, by _ESCAPED_ASCII, which sends the row to every rule.)
_ANY_UNICODE_ESCAPE = r"(?:\\+u[0-9a-fA-F]{4}){1,2}"


def _unicode_escapes(op, av, icase: bool) -> list[str]:
    """RE2 for the `\\u` escapes of the non-ASCII characters a one-character item accepts."""
    if op is _sre.LITERAL:
        if av < 0x80:
            return []
        if icase:  # its other cases have other codes
            return [_ANY_UNICODE_ESCAPE]
        if av > 0xFFFF:
            high, low = divmod(av - 0x10000, 0x400)
            return [_u_escape(0xD800 + high) + _u_escape(0xDC00 + low)]
        return [_u_escape(av)]
    if op is _sre.IN:
        negated = any(iop is _sre.NEGATE for iop, _iav in av)
        wide = any((iop is _sre.LITERAL and iav >= 0x80) or (iop is _sre.RANGE and iav[1] >= 0x80)
                   or (iop is _sre.CATEGORY and _CATEGORIES[iav].isupper()) for iop, iav in av)
        return [_ANY_UNICODE_ESCAPE] if negated or wide else []
    if op is _sre.CATEGORY:  # RE2's \d \s \w are ASCII; \D \S \W take everything else
        return [_ANY_UNICODE_ESCAPE] if _CATEGORIES[av].isupper() else []
    return [_ANY_UNICODE_ESCAPE]  # NOT_LITERAL, ANY


def _u_escape(code: int) -> str:
    return r"\\+u" + "".join(d if d.isdigit() else f"[{d}{d.upper()}]" for d in f"{code:04x}")


def _re2_char(code: int) -> str:
    ch = chr(code)
    return ch if ch.isascii() and (ch.isalnum() or ch == "_") else "\\x{%x}" % code


def _in_category(category, ch: str) -> bool:
    # RE2's \s is [\t\n\f\r ]; Python's also has \v. Only the characters of _JSON_ESCAPES are ever asked.
    return re.fullmatch(_CATEGORIES[category], ch, re.ASCII) is not None


def _in_class(items, ch: str) -> bool:
    negated = False
    hit = False
    for op, av in items:
        if op is _sre.NEGATE:
            negated = True
        elif op is _sre.LITERAL:
            hit = hit or ord(ch) == av
        elif op is _sre.RANGE:
            hit = hit or av[0] <= ord(ch) <= av[1]
        elif op is _sre.CATEGORY:
            hit = hit or _in_category(av, ch)
    return hit != negated
