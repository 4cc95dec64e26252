"""Redaction at ingest: personal data and secrets are replaced before anything is written.

The loader hands every decoded batch (Arrow tables in warehouse shape) through
`Redactor.redact_decoded` before its upsert; the warehouse never holds the
originals. Two kinds of rule (defaults in `redaction_rules.toml`):

- by field name, at any depth of the JSON columns (args, result, metadata,
  plan; OTel attributes live in metadata): the value of a key such as
  `password` or `X-Api-Key` is replaced whole;
- by value pattern, in the free-text columns and in every string inside the
  JSON columns: only the matched span (an email, a phone number, a
  Luhn-checked card number, a bearer token, ...) is replaced, so the words
  around it, and with them the rules' verdicts, stay as they were.

A replacement is a keyed token, `«email:3f9a1c2b4d5e»`: HMAC-SHA256 of the
canonical value (emails lower-cased, phone numbers reduced to digits) under a
per-deployment key, so the same value becomes the same token in every table
and joins on it still work. `pseudonymise_user_id` turns user_id columns into
`«user:...»` tokens with the same hash.

Speed: the regular expressions run vectorised over whole Arrow columns
(pyarrow.compute, RE2) as a cheap superset test ("prefilter"); only the rows
it flags reach Python, where the precise pattern, the Luhn check and the JSON
walk run. Over JSON columns the prefilters run on the stored text itself, in
a form rewritten once to accept JSON escapes (`escape_tolerant`). Ids, tool
names, statuses, verified, attempts and timestamps are never touched.
"""

from __future__ import annotations

import hmac
import json
import os
import re
import re._constants as _sre  # Python's regex parser: pattern widths, and the RE2 prefilters (escape_tolerant)
import re._parser as _sre_parse
import secrets
import stat
import tomllib
import warnings
from dataclasses import dataclass, field, replace
from datetime import date
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Literal

import pyarrow as pa
import pyarrow.compute as pc
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator

KEY_ENV = "TRACE_AUDIT_REDACTION_KEY"
MIN_KEY_CHARS = 16

# Columns redaction may change. Everything else (ids, tool, status, verified,
# attempts, times, model, versions) is left alone so rule verdicts cannot move.
TEXT_COLUMNS: dict[str, tuple[str, ...]] = {
    "tasks": ("goal", "final_answer"),
    "steps": ("reason", "error", "detail"),
    "messages": ("content",),
    "audit_logs": ("detail",),
    "otel_spans": ("status_message",),
}
JSON_COLUMNS: dict[str, tuple[str, ...]] = {
    "tasks": ("plan", "metadata"),
    "steps": ("args", "result", "metadata"),
    "messages": ("metadata",),
    "audit_logs": ("metadata",),
    # Raw OTLP spans: tasks/steps/messages are later derived from these stored
    # rows, so redacting them here covers everything derived from them.
    "otel_spans": ("attributes", "resource", "events"),
}
USER_ID_COLUMNS: dict[str, tuple[str, ...]] = {
    "tasks": ("user_id",),
    "messages": ("user_id",),
    "audit_logs": ("user_id",),
}
# JSON keys that carry a user id: `user_id`, `userId`, OTel `user.id`, `enduser.id`,
# `gen_ai.user.id`, `traceloop.association.properties.user_id` (normalised forms).
USER_ID_KEYS = frozenset({"user_id", "userid", "enduser_id"})


def is_user_id_key(key: str) -> bool:
    n = normalise_key(key)
    return n in USER_ID_KEYS or n.endswith("_user_id")


_NEVER = r"\b\B"  # matches nothing, in RE2 and in Python
_ESCAPED_ASCII = r"\\u00[0-7][0-9a-fA-F]"  # RE2: a \u escape of an ASCII character in JSON text
TOKEN_RE = re.compile(r"«[a-z0-9_]+:[0-9a-f]{8,64}»")
_TOKEN_SPLIT = re.compile(r"(«[a-z0-9_]+:[0-9a-f]{8,64}»)")


class RedactionConfigError(ValueError):
    """A `[redaction]` section that cannot be used; the message says what to change."""


class RedactionKeyError(ValueError):
    """The HMAC key could not be obtained; the message says what to do."""


# ---------------------------------------------------------------------------
# Configuration
# ---------------------------------------------------------------------------


class PatternRule(BaseModel):
    """One value-pattern rule (see `redaction_rules.toml` for the meaning of each field)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[a-z][a-z0-9_]{0,31}$")
    pattern: str
    prefilter: str | None = None
    check: Literal["luhn", "cn_id"] | None = None
    normalise: Literal["lower", "upper", "digits", "cn_mobile", "phone"] | None = None

    @field_validator("pattern")
    @classmethod
    def _python_regex(cls, v: str) -> str:
        try:
            re.compile(v, re.ASCII)
        except re.error as exc:
            raise ValueError(f"pattern is not a valid regular expression: {exc}") from exc
        return v

    @field_validator("prefilter")
    @classmethod
    def _re2_regex(cls, v: str | None) -> str | None:
        if v is not None:
            _check_re2(v)
            _check_read_alike(v)
        return v

    @model_validator(mode="after")
    def _pattern_as_prefilter(self) -> "PatternRule":
        # Without a prefilter the pattern is the prefilter (compile_rules), so RE2 and the
        # Python gates must both read it too.
        if self.prefilter is None:
            what = "pattern (the prefilter, as none is given)"
            _check_re2(self.pattern, what)
            _check_read_alike(self.pattern, what)
        return self


class RedactionConfig(BaseModel):
    """The `[redaction]` section of trace-audit.toml."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True
    key: SecretStr | None = None  # prefer the TRACE_AUDIT_REDACTION_KEY environment variable
    pseudonymise_user_id: bool = False
    token_length: int = Field(12, ge=8, le=32)
    extra_field_names: tuple[str, ...] = ()
    keep_field_names: tuple[str, ...] = ()
    disable_rules: tuple[str, ...] = ()
    extra_patterns: tuple[PatternRule, ...] = ()

    @field_validator("extra_field_names", "keep_field_names")
    @classmethod
    def _plain_names(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        bad = [n for n in v if not re.fullmatch(r"[a-z0-9_]+", normalise_key(n))]
        if bad:
            raise ValueError(f"field names may use letters, digits, '_', '-', '.' and spaces only: {bad}")
        return v

    @field_validator("key")
    @classmethod
    def _long_enough(cls, v: SecretStr | None) -> SecretStr | None:
        if v is not None and len(v.get_secret_value()) < MIN_KEY_CHARS:
            raise ValueError(f"key must be at least {MIN_KEY_CHARS} characters (use e.g. `openssl rand -hex 32`)")
        return v

    @model_validator(mode="after")
    def _known_rule_names(self) -> "RedactionConfig":
        defaults = default_rules()
        known = {r.name for r in defaults.patterns} | {r.name for r in self.extra_patterns}
        unknown = [n for n in self.disable_rules if n not in known]
        if unknown:
            raise ValueError(f"disable_rules names unknown rule(s) {unknown}; known rules: {sorted(known)}")
        clash = [r.name for r in self.extra_patterns if r.name in {d.name for d in defaults.patterns}]
        if clash:
            raise ValueError(f"extra_patterns {clash} reuse built-in rule names; pick new names")
        return self


def load_redaction_config(section: dict[str, Any] | None, where: str = "trace-audit.toml") -> RedactionConfig:
    """Validate a parsed `[redaction]` table; errors name the key and what to write instead."""
    try:
        return RedactionConfig.model_validate(section or {})
    except ValidationError as exc:
        raise RedactionConfigError(_explain(exc, where)) from None


def _explain(exc: ValidationError, where: str) -> str:
    lines = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(section)"
        model = PatternRule if err["loc"][:1] == ("extra_patterns",) else RedactionConfig
        known = ", ".join(model.model_fields)
        if err["type"] == "extra_forbidden":
            lines.append(f"{where} [redaction]: unknown key {loc!r} (known keys: {known})")
        else:
            msg = err["msg"].removeprefix("Value error, ")
            lines.append(f"{where} [redaction].{loc}: {msg}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Rules: the shipped defaults merged with the config, compiled once
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DefaultRules:
    field_names: tuple[str, ...]
    patterns: tuple[PatternRule, ...]


@lru_cache(maxsize=1)
def default_rules() -> DefaultRules:
    text = resources.files("trace_audit.ingest.redact").joinpath("redaction_rules.toml").read_text("utf-8")
    data = tomllib.loads(text)
    return DefaultRules(
        field_names=tuple(data["field_names"]["names"]),
        patterns=tuple(PatternRule.model_validate(p) for p in data["patterns"]),
    )


def normalise_key(name: str) -> str:
    """`X-Api-Key` -> `x_api_key`; `http.request.header.authorization` -> `http_request_header_authorization`."""
    return re.sub(r"[-. ]", "_", name.strip().lower())


@dataclass(frozen=True)
class CompiledRule:
    name: str
    regex: re.Pattern
    prefilter: str            # RE2, scoped so it can be joined with the others
    min_len: int              # the shortest text the pattern can match
    check: Callable[[str], bool] | None
    canonical: Callable[[str], str]
    value_group: bool
    # `prefilter` made tolerant of JSON escapes, for the raw text of JSON columns
    # (see escape_tolerant); None when its syntax could not be rewritten.
    json_raw_prefilter: str | None = None


@dataclass(frozen=True)
class CompiledRules:
    field_names: frozenset[str]
    rules: tuple[CompiledRule, ...]
    text_prefilter: str       # RE2: a row that does not match it has nothing to redact
    json_prefilter: str       # RE2, over the unescaped view of JSON text: adds sensitive keys and escaped ASCII
    key_regex: re.Pattern     # over a normalised key: `(?:^|_)(name)$`
    text_gate: re.Pattern     # text_prefilter compiled for Python: skips short strings in one search
    # json_prefilter made tolerant of JSON escapes, run on the raw JSON text; None
    # when some rule's prefilter could not be rewritten or the whole outgrew RE2's
    # limits: then the unescaped view is used with json_prefilter (see Redactor._gates).
    json_raw_prefilter: str | None = None

    def sensitive_key(self, key: str) -> str | None:
        """The listed name `key` matches (exactly or as a `_name` suffix), or None."""
        return _sensitive_key(self.key_regex, key)


@lru_cache(maxsize=1 << 14)
def _sensitive_key(key_regex: re.Pattern, key: str) -> str | None:
    # JSON keys repeat endlessly across rows; the answer per key is cached.
    m = key_regex.search(normalise_key(key))
    return m.group(1) if m else None


@lru_cache(maxsize=16)
def compile_rules(config: RedactionConfig) -> CompiledRules:
    defaults = default_rules()
    keep = {normalise_key(k) for k in config.keep_field_names}
    names = frozenset(normalise_key(n) for n in (*defaults.field_names, *config.extra_field_names)) - keep
    specs = [r for r in (*defaults.patterns, *config.extra_patterns) if r.name not in config.disable_rules]
    compiled = []
    for spec in specs:
        regex = re.compile(spec.pattern, re.ASCII)  # \s, \b, \d and (?i) as in RE2
        compiled.append(CompiledRule(
            name=spec.name,
            regex=regex,
            prefilter=_scoped(spec.prefilter or spec.pattern),
            min_len=_min_width(spec.pattern),
            check=_CHECKS.get(spec.check) if spec.check else None,
            canonical=_NORMALISERS[spec.normalise or "none"],
            value_group="value" in regex.groupindex,
            json_raw_prefilter=_tolerant_or_none(spec.prefilter or spec.pattern),
        ))
    value_filters = [r.prefilter for r in compiled]
    # A key is a candidate when the JSON text has a listed name right before the
    # closing quote (possibly escaped, for JSON held inside a JSON string) and a colon.
    key_words = sorted({_name_regex(n) for n in names})
    key_filter = []
    if key_words:
        key_filter.append(r'(?i:(?:' + "|".join(key_words) + r')\\*"\s*:)')
    if config.pseudonymise_user_id:
        key_filter.append(r'(?i:(?:user[_.\- ]?id)\\*"\s*:)')
    # \u-escaped ASCII could hide an '@' or a key name from the text filter.
    escaped_ascii = [_ESCAPED_ASCII]
    text_prefilter = "|".join(value_filters) or _NEVER
    json_prefilter = "|".join(value_filters + key_filter + escaped_ascii)
    for p in (text_prefilter, json_prefilter):
        _check_re2(p)
    tolerant = [r.json_raw_prefilter for r in compiled] + [_tolerant_or_none(k) for k in key_filter]
    json_raw_prefilter = None
    if None not in tolerant:
        json_raw_prefilter = "|".join(tolerant + escaped_ascii)
        try:
            _check_re2(json_raw_prefilter)
        except ValueError:  # e.g. grown past RE2's program size: keep the unescaped view
            json_raw_prefilter = None
    # Longest names first so `x_api_key` reports api_key, not key-like shorter names.
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) or _NEVER
    key_regex = re.compile(rf"(?:^|_)({alternatives})$")
    text_gate = re.compile(text_prefilter, re.ASCII)
    return CompiledRules(names, tuple(compiled), text_prefilter, json_prefilter, key_regex, text_gate,
                         json_raw_prefilter)


def _min_width(pattern: str) -> int:
    return int(_sre_parse.parse(pattern, re.ASCII).getwidth()[0])


@lru_cache(maxsize=256)
def _gate(rules: "tuple[CompiledRule, ...]") -> tuple[re.Pattern, int]:
    """One Python search that says whether any of `rules` can match, and the shortest possible match."""
    if not rules:
        return re.compile(_NEVER), 1 << 30
    return re.compile("|".join(r.prefilter for r in rules), re.ASCII), min(r.min_len for r in rules)


def _scoped(pattern: str) -> str:
    # RE2 applies a leading (?i) to the rest of the whole expression; keep it
    # inside its own alternative once the prefilters are joined.
    if pattern.startswith("(?i)"):
        return "(?i:" + pattern[4:] + ")"
    return "(?:" + pattern + ")"


def _name_regex(name: str) -> str:
    return "".join(r"[_.\- ]?" if ch == "_" else re.escape(ch) for ch in name)


def _check_re2(pattern: str, what: str = "prefilter") -> None:
    try:
        pc.match_substring_regex(pa.array([""], pa.string()), pattern)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise ValueError(
            f"{what} {pattern!r} is not valid RE2 (no look-around or back-references): {exc}"
        ) from exc


def _read_as_python(pattern: str):
    """`pattern` parsed as Python's `re` reads it (ASCII), its warnings raised as errors:
    they mark syntax RE2 reads another way ("possible nested set" for `[[:space:]]`)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return _sre_parse.parse(pattern, re.ASCII)


def _check_read_alike(pattern: str, what: str = "prefilter") -> None:
    """A configured prefilter runs in RE2 (Arrow) over columns and in Python's `re`
    over single texts (the gates), so both must read it alike: syntax only RE2
    knows (`[[:space:]]`, `\\pN`, `\\z`) would silently miss in the Python gates, and
    `{,n}`, which RE2 takes literally but Python as a repeat, would miss in the columns."""
    found = _RE2_ONLY.search(pattern)
    try:
        _read_as_python(pattern)
        problem = f"{found.group(0)!r} is read one way by RE2 and another by Python's re" if found else None
    except (re.error, FutureWarning, DeprecationWarning) as exc:
        problem = str(exc)
    if problem:
        raise ValueError(
            f"{what} {pattern!r} uses syntax that Python's re reads differently from RE2 ({problem}); "
            "write it in syntax both read alike, e.g. \\s for [[:space:]], \\d for [[:digit:]] or \\pN, "
            "{0,n} for {,n}"
        )


# --- prefilters for raw JSON text ------------------------------------------------
#
# A string value in a JSON column holds its characters escaped: a tab is `\t`,
# a slash may be `\/`, a quote is `\"`, and JSON held inside a JSON string
# doubles the backslashes at every level (`\\t`, `\\\"`). The prefilters are
# written for decoded text, so run as they are over the JSON text they would
# miss `Bearer\tabc`. Rather than rewrite the whole column into an unescaped
# copy (two regex replacements over every byte), each prefilter is rewritten
# once: wherever it accepts a character that an escape decodes to, it also
# accepts that escape, with any number of backslashes. The result, run on the
# raw text, matches wherever the prefilter matches the unescaped view (and
# sometimes more, which only sends a row to the precise path).


class _NotTolerable(ValueError):
    """A prefilter in syntax the rewrite does not handle; its column keeps the unescaped view."""


# (decoded characters, the RE2 that matches their escapes at any nesting depth).
# The view maps \n \t \r \b \f to a space, so a space-accepting item takes them too.
# A backslash in a value is itself escaped (`\\`, doubled again at every nesting level).
_JSON_ESCAPES = ((" \t\n\r\b\f", r"\\+[nrtbf]"), ("/", r"\\+/"), ('"', r'\\+"'), ("\\", r"\\+"))
# RE2 syntax Python reads differently or not at all (\pN, \z, \x{..}, [[:digit:]],
# `{,n}` which RE2 takes literally, the U flag): not rewritten. Not after an escaped
# backslash (`C:\\pagefile` is a backslash and "pagefile" in both).
_RE2_ONLY = re.compile(r"(?<!\\)(?:\\\\)*(?:\\[pPQCz]|\\x\{|\{,|\(\?[a-zA-Z-]*U|\[:\^?[a-z]+:\])")
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
    if _RE2_ONLY.search(prefilter):
        raise _NotTolerable("RE2-only syntax")
    try:
        parsed = _read_as_python(prefilter)
    except (re.error, Warning, RecursionError) as exc:
        raise _NotTolerable(str(exc)) from None
    flags = parsed.state.flags
    return _with_flags(flags, 0, _emit(parsed.data, bool(flags & re.IGNORECASE)))


def _tolerant_or_none(prefilter: str) -> str | None:
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


# --- checks and canonical forms -----------------------------------------------


def luhn_ok(text: str) -> bool:
    """Card number check: 13-19 digits, an issuer prefix, and the Luhn checksum."""
    digits = [int(c) for c in text if c.isdigit()]
    if not 13 <= len(digits) <= 19:
        return False
    if digits[0] == 2 and not 2221 <= int("".join(map(str, digits[:4]))) <= 2720:
        return False  # only the Mastercard 2-series starts with 2
    if len(set(digits)) == 1:
        return False  # 4444 4444 4444 4444 and the like are placeholders
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


_CN_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)


def cn_id_ok(text: str) -> bool:
    """Mainland resident id: a real birth date and the ISO 7064 MOD 11-2 check character."""
    t = text.upper()
    if len(t) != 18 or not t[:17].isdigit():
        return False
    try:
        date(int(t[6:10]), int(t[10:12]), int(t[12:14]))
    except ValueError:
        return False
    total = sum(int(c) * w for c, w in zip(t[:17], _CN_ID_WEIGHTS))
    return "10X98765432"[total % 11] == t[17]


_CHECKS: dict[str, Callable[[str], bool]] = {"luhn": luhn_ok, "cn_id": cn_id_ok}


_NON_DIGITS = re.compile(r"[^0-9]")


def _digits(text: str) -> str:
    return _NON_DIGITS.sub("", text)


def _cn_mobile(text: str) -> str:
    d = _digits(text)
    return d[-11:]  # +86 / 0086 and separators do not make a different number


def _phone(text: str) -> str:
    return "+" + _digits(text)


_NORMALISERS: dict[str, Callable[[str], str]] = {
    "none": lambda s: s,
    "lower": str.lower,
    "upper": str.upper,
    "digits": _digits,
    "cn_mobile": _cn_mobile,
    "phone": _phone,
}


# ---------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------


@dataclass
class RedactionReport:
    """How many values were redacted, per column (`table.column`) and rule."""

    by_column: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def counts(self) -> dict[str, int]:
        """Values redacted per rule, all columns together."""
        out: dict[str, int] = {}
        for rules in self.by_column.values():
            for rule, n in rules.items():
                out[rule] = out.get(rule, 0) + n
        return out

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def add(self, column: str, rule: str, n: int = 1) -> None:
        col = self.by_column.setdefault(column, {})
        col[rule] = col.get(rule, 0) + n

    def merge(self, other: "RedactionReport") -> "RedactionReport":
        for column, rules in other.by_column.items():
            for rule, n in rules.items():
                self.add(column, rule, n)
        return self

    def summary(self) -> str:
        """One line for the ingest summary: `redacted 12 values: 7 email, 3 phone_cn, 2 field:password`."""
        counts = self.counts
        if not counts:
            return "redacted nothing"
        parts = ", ".join(f"{n:,} {rule}" for rule, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
        return f"redacted {self.total:,} values: {parts}"

    def table(self) -> str:
        """The dry-run listing: one line per column and rule, for tuning the rules."""
        if not self.by_column:
            return "nothing would be redacted"
        rows = [(c, r, n) for c, rules in sorted(self.by_column.items()) for r, n in sorted(rules.items())]
        width = max(len(c) for c, _r, _n in rows)
        rwidth = max(len(r) for _c, r, _n in rows)
        lines = [f"{'column':<{width}}  {'rule':<{rwidth}}  {'values':>8}"]
        lines += [f"{c:<{width}}  {r:<{rwidth}}  {n:>8,}" for c, r, n in rows]
        lines.append(self.summary())
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        return {"total": self.total, "by_rule": dict(sorted(self.counts.items())),
                "by_column": {c: dict(sorted(r.items())) for c, r in sorted(self.by_column.items())}}


# ---------------------------------------------------------------------------
# The redactor
# ---------------------------------------------------------------------------


class _Num(str):
    """A JSON number kept as its source text (the fallback for numbers beyond float range)."""


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


# Built once: json.loads/dumps with options construct a new coder on every call.
_JSON_IN = json.JSONDecoder(parse_constant=_no_constant)
_JSON_OUT = json.JSONEncoder(ensure_ascii=False, allow_nan=False)
_UNSEEN = object()


class _Counter:
    """Where hits are counted while one value is rewritten, and which rules can match in it.

    `rules` narrows the value rules to those whose RE2 prefilter matched the
    row (computed vectorised per column), so a row with an email does not pay
    for ten other regular expressions. None means all rules.
    """

    __slots__ = ("report", "column", "rules", "gate", "min_len", "_counts")

    def __init__(self, report: RedactionReport, column: str, rules: "tuple[CompiledRule, ...] | None" = None):
        self.report = report
        self.column = column
        self.rules = rules
        self.gate, self.min_len = _gate(rules) if rules is not None else (None, 0)
        self._counts: dict[str, int] | None = None

    def hit(self, rule: str) -> None:
        counts = self._counts
        if counts is None:  # the column shows up in the report only once something was redacted
            counts = self._counts = self.report.by_column.setdefault(self.column, {})
        counts[rule] = counts.get(rule, 0) + 1


class Redactor:
    """Compiled rules plus the key. Build one per ingest run and reuse it for every batch."""

    def __init__(self, config: RedactionConfig, key: bytes):
        if not key:
            raise RedactionKeyError("the redaction key is empty")
        self.config = config
        self.rules = compile_rules(config)
        self._key = key
        self._n = config.token_length
        self._hash = lru_cache(maxsize=1 << 16)(self._hash_uncached)
        self._key_cache: dict[str, str | None] = {}  # JSON key -> listed name it matches (keys repeat a lot)

    @classmethod
    def for_database(cls, config: RedactionConfig, db_path: str | os.PathLike | None, con=None) -> "Redactor | None":
        """The redactor the loader uses for the warehouse at `db_path`; None when redaction is off.

        Given only an open connection (`con`), the key file goes next to that
        connection's database file, wherever it is.
        """
        if not config.enabled:
            return None
        if db_path is None and con is not None:
            row = con.execute(
                "SELECT path FROM duckdb_databases() WHERE database_name = current_database()").fetchall()
            db_path = (row[0][0] if row else None) or ":memory:"
        return cls(config, resolve_key(config, db_path))

    # --- tokens ---------------------------------------------------------------

    def _hash_uncached(self, canonical: str) -> str:
        return hmac.digest(self._key, canonical.encode("utf-8", "surrogatepass"), "sha256").hex()[: self._n]

    def token(self, label: str, canonical: str) -> str:
        return f"«{label}:{self._hash(canonical)}»"

    def pseudonym(self, user_id: str) -> str:
        """The `«user:...»` token for a user id (ids already tokenised are kept)."""
        if TOKEN_RE.fullmatch(user_id):
            return user_id
        return self.token("user", user_id)

    # --- strings ----------------------------------------------------------------

    def redact_text(self, text: str, counter: _Counter | None = None) -> str:
        """Replace every value-pattern match in `text`; tokens already in it are never matched again."""
        if counter is not None and counter.rules is not None:
            rules = counter.rules  # already narrowed to this row's few candidate rules
            # JSON leaves are mostly short keys and plain values: one length test or one search.
            if len(text) < counter.min_len or counter.gate.search(text) is None:
                return text
        else:
            rules = self.rules.rules
            if self.rules.text_gate.search(text) is None:
                return text
        pieces = _TOKEN_SPLIT.split(text) if "«" in text else [text]  # odd indexes are tokens
        for rule in rules:
            changed = False
            for i in range(0, len(pieces), 2):
                piece = pieces[i]
                if piece:
                    new = rule.regex.sub(lambda m, r=rule: self._replace(m, r, counter), piece)
                    if new != piece:
                        pieces[i] = new
                        changed = True
            if changed:
                pieces = _TOKEN_SPLIT.split("".join(pieces))
        return "".join(pieces)

    def _replace(self, m: re.Match, rule: CompiledRule, counter: _Counter | None) -> str:
        whole = m.group(0)
        secret = m.group("value") if rule.value_group else whole
        if secret is None or (rule.check is not None and not rule.check(secret)):
            return whole
        if counter is not None:
            counter.hit(rule.name)
        tok = self.token(rule.name, rule.canonical(secret))
        if not rule.value_group:
            return tok
        start, end = m.span("value")
        base = m.start(0)
        return whole[: start - base] + tok + whole[end - base:]

    # --- JSON ---------------------------------------------------------------------

    def redact_json_text(self, text: str, counter: _Counter | None = None) -> str:
        """Redact one JSON document held as text; returns the text unchanged when nothing matched."""
        try:
            value = _JSON_IN.decode(text)
            new, changed = self._walk(value, counter)
            if not changed:
                return text
            try:
                return _JSON_OUT.encode(new)
            except ValueError:
                # A number beyond float range (1e400) would come back as Infinity:
                # redo this one document keeping every number as its source text.
                return _dump(self._walk(json.loads(text, parse_float=_Num, parse_int=_Num), None)[0])
        except RecursionError:
            # Deeper than Python's parser goes (hostile input): keep nothing of it.
            if counter is not None:
                counter.hit("unparseable_json")
            return json.dumps(self.token("unparseable_json", text), ensure_ascii=False)
        except ValueError:
            return self.redact_text(text, counter)  # not JSON after all: treat as text

    def _walk(self, value: Any, counter: _Counter | None) -> tuple[Any, bool]:
        if isinstance(value, _Num):
            return self._walk_number(value, counter)
        if isinstance(value, str):
            return self._walk_string(value, counter)
        if isinstance(value, dict):
            changed = False
            out = {}
            key_cache = self._key_cache
            for k, v in value.items():
                nk, ck = self._walk_string(k, counter, nested_json=False)
                hit = key_cache.get(k, _UNSEEN)
                if hit is _UNSEEN:
                    if len(key_cache) > 100_000:  # keys made up per record must not grow it forever
                        key_cache.clear()
                    hit = key_cache[k] = self.rules.sensitive_key(k)
                if hit is not None and v is not None and v != "":
                    if counter is not None:
                        counter.hit(f"field:{hit}")
                    canonical = v if isinstance(v, str) else _dump(v)
                    out[nk] = self.token(hit, canonical)
                    changed = True
                    continue
                if (self.config.pseudonymise_user_id and isinstance(v, (str, int)) and not isinstance(v, bool)
                        and v != "" and is_user_id_key(k)):
                    p = self.pseudonym(str(v))
                    if p != v:
                        if counter is not None:
                            counter.hit("user_id")
                        out[nk] = p
                        changed = True
                        continue
                nv, cv = self._walk(v, counter)
                out[nk] = nv
                changed |= ck or cv
            return out, changed
        if isinstance(value, list):
            changed = False
            out = []
            for item in value:
                new, c = self._walk(item, counter)
                out.append(new)
                changed |= c
            return out, changed
        if isinstance(value, int) and not isinstance(value, bool) and value >= 10_000_000_000:
            return self._walk_number(str(value), counter, value)
        return value, False  # float, bool, None, small int

    def _walk_number(self, digits: str, counter: _Counter | None, original: Any = None) -> tuple[Any, bool]:
        # A phone or card stored as a JSON number becomes a string token.
        if len(digits) >= 11 and digits.isdigit():
            red = self.redact_text(str(digits), counter)
            if red != digits:
                return red, True
        return (digits if original is None else original), False

    def _walk_string(self, s: str, counter: _Counter | None, nested_json: bool = True) -> tuple[str, bool]:
        if nested_json and s[:1] in ("{", "[") and len(s) > 1:
            try:
                inner = _JSON_IN.decode(s)
            except (ValueError, RecursionError):
                inner = None
            if isinstance(inner, (dict, list)):
                new, changed = self._walk(inner, counter)
                if not changed:
                    return s, False
                try:
                    return _JSON_OUT.encode(new), True
                except ValueError:
                    return _dump(self._walk(json.loads(s, parse_float=_Num, parse_int=_Num), None)[0]), True
        red = self.redact_text(s, counter)
        return red, red != s

    # --- Arrow ----------------------------------------------------------------------

    def redact_tables(self, tables: dict[str, pa.Table], *, apply: bool = True
                      ) -> tuple[dict[str, pa.Table], RedactionReport]:
        """Redact decoded warehouse tables. With apply=False only count (the dry run)."""
        report = RedactionReport()
        out = {}
        for name, table in tables.items():
            out[name] = self._redact_table(name, table, report, apply)
        return (out if apply else dict(tables)), report

    def _redact_table(self, name: str, table: pa.Table, report: RedactionReport, apply: bool) -> pa.Table:
        cols = table.column_names
        for col in TEXT_COLUMNS.get(name, ()):
            if col in cols:
                table = self._column(table, name, col, self.redact_text, report, apply)
        for col in JSON_COLUMNS.get(name, ()):
            if col in cols:
                table = self._column(table, name, col, self.redact_json_text, report, apply, json_text=True)
        for col in USER_ID_COLUMNS.get(name, ()):
            if col not in cols:
                continue
            if self.config.pseudonymise_user_id:
                table = self._pseudonymise(table, name, col, report, apply)
            else:
                # Kept as is, except that a user id which is itself an email or a
                # phone number gets the same token it gets in text (joins hold).
                table = self._column(table, name, col, self.redact_text, report, apply)
        return table

    def _gates(self, json_text: bool) -> tuple[str, list[str], bool]:
        """(the column's prefilter, each rule's, whether they read an unescaped view of the text)."""
        rules = self.rules
        if not json_text:
            return rules.text_prefilter, [r.prefilter for r in rules.rules], False
        if rules.json_raw_prefilter is not None:
            # The escape-tolerant forms read the JSON text as it is: no unescaped copy.
            return rules.json_raw_prefilter, [r.json_raw_prefilter for r in rules.rules], False
        return rules.json_prefilter, [r.prefilter for r in rules.rules], True

    def _column(self, table: pa.Table, tname: str, col: str, fn: Callable[[str, _Counter], str],
                report: RedactionReport, apply: bool, json_text: bool = False) -> pa.Table:
        arr, wrap = _as_strings(table.column(col))
        if arr is None or len(arr) == arr.null_count:
            return table
        rules = self.rules.rules
        prefilter, rule_filters, unescape = self._gates(json_text)
        view = _unescaped_view(arr) if unescape else arr
        mask = pc.fill_null(pc.match_substring_regex(view, prefilter), False)
        if not pc.any(mask).as_py():
            return table
        idx = pc.indices_nonzero(mask)
        old = pc.take(arr, idx).to_pylist()
        candidates = pc.take(view, idx)
        # Which rules can match in which candidate row: one vectorised RE2 pass per rule,
        # packed into one integer per row (bit j = rule j may match).
        bits = pa.scalar(0, pa.int64())
        for j, rule_filter in enumerate(rule_filters):
            hit = pc.fill_null(pc.match_substring_regex(candidates, rule_filter), False)
            bits = pc.add(bits, pc.multiply(pc.cast(hit, pa.int64()), 1 << j))
        if json_text:
            # \u-escaped ASCII can spell anything in a way no prefilter sees: all rules for those rows.
            escaped = pc.fill_null(pc.match_substring_regex(candidates, _ESCAPED_ASCII), False)
            bits = pc.if_else(escaped, (1 << len(rules)) - 1, bits)
        row_bits = bits.to_pylist() if isinstance(bits, pa.Array) else [bits.as_py()] * len(old)
        new = []
        cache: dict[int, _Counter] = {}
        for v, key in zip(old, row_bits):
            counter = cache.get(key)
            if counter is None:
                active = tuple(r for j, r in enumerate(rules) if key >> j & 1)
                counter = cache[key] = _Counter(report, f"{tname}.{col}", active)
            new.append(fn(v, counter))
        if not apply or new == old:
            return table
        replaced = pc.replace_with_mask(arr, mask, pa.array(new, type=arr.type))
        return table.set_column(table.column_names.index(col), table.schema.field(col), wrap(replaced))

    def _pseudonymise(self, table: pa.Table, tname: str, col: str, report: RedactionReport, apply: bool) -> pa.Table:
        arr, wrap = _as_strings(table.column(col))
        if arr is None or len(arr) == arr.null_count:
            return table
        distinct = pc.unique(arr).drop_null()
        tokens = pa.array([self.pseudonym(v) for v in distinct.to_pylist()], arr.type)
        mapped = pc.take(tokens, pc.index_in(arr, distinct))
        changed = pc.sum(pc.cast(pc.fill_null(pc.not_equal(arr, mapped), False), pa.int64())).as_py() or 0
        if changed:
            report.add(f"{tname}.{col}", "user_id", changed)
        if not apply:
            return table
        return table.set_column(table.column_names.index(col), table.schema.field(col), wrap(mapped))

    # --- the loader's entry points ------------------------------------------------------

    def redact_texts(self, texts: list[str | None], column: str, report: RedactionReport) -> list[str | None]:
        """Redact loose texts that may be JSON (quarantined raw records)."""
        counter = _Counter(report, column)
        out = []
        for t in texts:
            if t is None:
                out.append(None)
            elif t.lstrip()[:1] in ("{", "["):
                out.append(self.redact_json_text(t, counter))
            else:
                out.append(self.redact_text(t, counter))
        return out

    def redact_decoded(self, decoded):
        """(Decoded with tables and quarantined raws redacted, RedactionReport)."""
        tables, report = self.redact_tables(decoded.tables)
        raws = self.redact_texts([e[1] for e in decoded.errors], "ingest_errors.raw", report)
        errors = [(line, raw, reason) for (line, _old, reason), raw in zip(decoded.errors, raws)]
        return replace(decoded, tables=tables, errors=errors), report


def _unescaped_view(arr: pa.Array) -> pa.Array:
    r"""JSON text with its common escapes undone, for the prefilters only.

    A string value such as `Bearer<TAB>abc` or `https://x/cb?token=...` may be
    escaped in the JSON text (`Bearer\tabc`, `https:\/\/x`, at every nesting
    level), while the precise patterns see the decoded string. Undo \n \t \r
    \b \f (to a space), \/ and \" so a prefilter never misses what the decoded
    value holds. \uXXXX escapes of ASCII are caught by the JSON prefilter itself.

    Only used when some prefilter has no escape-tolerant form (`escape_tolerant`),
    which reads the raw text instead at a fifth of the cost.
    """
    if not pc.any(pc.match_substring(arr, "\\")).as_py():
        return arr
    arr = pc.replace_substring_regex(arr, r'\\+[nrtbf]', " ")
    return pc.replace_substring_regex(arr, r'\\+([/"])', r"\1")


def _as_strings(col: pa.ChunkedArray) -> tuple[pa.Array | None, Callable[[pa.Array], pa.Array]]:
    """A string array for the regex kernels and how to give back the column's own type."""
    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    if isinstance(arr.type, pa.ExtensionType):
        ext = arr.type
        return arr.storage, lambda a: pa.ExtensionArray.from_storage(ext, a)
    if pa.types.is_null(arr.type):
        return None, lambda a: a
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        return None, lambda a: a
    return arr, lambda a: a


def _dump(v: Any) -> str:
    """JSON text of a value from `json.loads(..., parse_int=_Num, ...)`, numbers byte-for-byte."""
    if isinstance(v, _Num):
        return str.__str__(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, list):
        return "[" + ",".join(_dump(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + _dump(x) for k, x in v.items()) + "}"
    return json.dumps(v, ensure_ascii=False)


# ---------------------------------------------------------------------------
# Pure functional API
# ---------------------------------------------------------------------------


@lru_cache(maxsize=8)
def _cached_redactor(config: RedactionConfig, key: bytes) -> Redactor:
    return Redactor(config, key)


def redact_tables(tables: dict[str, pa.Table], config: RedactionConfig, key: bytes
                  ) -> tuple[dict[str, pa.Table], RedactionReport]:
    """Redacted copies of `tables` and what was redacted. Disabled config: tables unchanged."""
    if not config.enabled:
        return tables, RedactionReport()
    return _cached_redactor(config, key).redact_tables(tables)


def redaction_report(tables: dict[str, pa.Table], config: RedactionConfig, key: bytes) -> RedactionReport:
    """The dry run: what `redact_tables` would redact, nothing changed (counts are identical)."""
    return _cached_redactor(config, key).redact_tables(tables, apply=False)[1]


def dry_run(paths: list[str], config: RedactionConfig, tz: str = "UTC") -> RedactionReport:
    """`ingest --redaction-report`: what redaction would take out of these files. Writes nothing.

    Counts do not depend on the key, so a throwaway key is used and no key
    file is created. Decodes exactly as ingest does (same framing and readers).
    """
    from ..read.decoder import Decoder
    from ..read.framing import frames
    from ..read.sources import expand

    redactor = Redactor(config, secrets.token_bytes(32))
    report = RedactionReport()
    sources, _skipped = expand(paths)
    decoder = Decoder(tz)
    try:
        for source in sources:
            if source.problem:
                continue
            with open(source.path, "rb") as fh:
                for frame in frames(fh):
                    decoded = decoder.decode(frame, source.shown)
                    report.merge(redactor.redact_tables(decoded.tables, apply=False)[1])
                    redactor.redact_texts([e[1] for e in decoded.errors], "ingest_errors.raw", report)
    finally:
        decoder.close()
    return report


# ---------------------------------------------------------------------------
# The key
# ---------------------------------------------------------------------------


def key_file_for(db_path: str | os.PathLike) -> Path:
    return Path(str(db_path) + ".key")


def resolve_key(config: RedactionConfig, db_path: str | os.PathLike | None) -> bytes:
    """The HMAC key: `[redaction] key`, else $TRACE_AUDIT_REDACTION_KEY, else `<db>.key` (created once, mode 0600)."""
    from_config = config.key.get_secret_value() if config.key is not None else None
    from_env = os.environ.get(KEY_ENV) or None
    if from_config and from_env and from_config != from_env:
        raise RedactionKeyError(
            f"the redaction key is set both in trace-audit.toml [redaction] key and in ${KEY_ENV}, "
            "and they differ; keep one of them (the same value must be used for every ingest)"
        )
    chosen = from_config or from_env
    if chosen:
        if len(chosen) < MIN_KEY_CHARS:
            raise RedactionKeyError(f"${KEY_ENV} must be at least {MIN_KEY_CHARS} characters "
                                    "(generate one with `openssl rand -hex 32`)")
        return chosen.encode("utf-8")
    if db_path is None:
        from ...queries.warehouse.db import default_db_path

        db_path = default_db_path()
    if str(db_path) == ":memory:":
        return secrets.token_bytes(32)  # nothing persists, so neither does the key
    return _key_from_file(key_file_for(db_path))


def _key_from_file(path: Path) -> bytes:
    if not path.exists():
        _create_key_file(path)
    try:
        st = path.stat()
        if os.name == "posix" and st.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise RedactionKeyError(
                f"redaction key file {path} can be read by other users (mode {stat.S_IMODE(st.st_mode):o}); "
                f"run: chmod 600 {path}"
            )
        text = path.read_text("ascii").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise RedactionKeyError(f"cannot read redaction key file {path}: {exc}") from exc
    if len(text) < MIN_KEY_CHARS:
        raise RedactionKeyError(
            f"redaction key file {path} holds {len(text)} characters; it must hold at least {MIN_KEY_CHARS}. "
            "Restore it from your backup (tokens made with another key will not match)."
        )
    return text.encode("ascii")


def _create_key_file(path: Path) -> None:
    # Write a private temp file, then link it into place: a concurrent ingest
    # either wins the link or reads the winner's complete key, never half a file.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(secrets.token_hex(32) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        except OSError:
            # File systems without hard links: create in place, exclusively.
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                return
            with os.fdopen(fd, "w", encoding="ascii") as fh:
                fh.write(tmp.read_text("ascii"))
    except OSError as exc:
        raise RedactionKeyError(f"cannot create redaction key file {path}: {exc.strerror or exc}; "
                                f"set ${KEY_ENV} instead") from exc
    finally:
        try:
            tmp.unlink()
        except FileNotFoundError:
            pass


def redact_decoded(decoded, redactor: Redactor | None, report: RedactionReport):
    """The loader's one call: `decoded = redact_decoded(decoded, redactor, result.redaction)`.

    Returns the Decoded with its tables and quarantined raws redacted (unchanged
    when `redactor` is None, i.e. redaction is off) and adds the counts to `report`.
    """
    if redactor is None:
        return decoded
    out, got = redactor.redact_decoded(decoded)
    report.merge(got)
    return out
