"""Redaction inside JSON documents held as text (the JSON columns, quarantined raw records).

By field name, at any depth: the value of a key such as `password` or `X-Api-Key` is replaced
whole. By value pattern, in every string (and in JSON held inside a JSON string), as in text.
A document is re-encoded only when something in it changed; numbers beyond float range keep
their source text.
"""

from __future__ import annotations

import json
from typing import Any

from .columns import is_user_id_key
from .config import RedactionConfig
from .report import RedactionReport
from .text import HitCounter, TextRedactor


class _Num(str):
    """A JSON number kept as its source text (the fallback for numbers beyond float range)."""


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


# Built once: json.loads/dumps with options construct a new coder on every call.
_JSON_IN = json.JSONDecoder(parse_constant=_no_constant)
_JSON_OUT = json.JSONEncoder(ensure_ascii=False, allow_nan=False)
_UNSEEN = object()


class JsonRedactor(TextRedactor):
    """TextRedactor that also walks JSON documents."""

    def __init__(self, config: RedactionConfig, key: bytes):
        super().__init__(config, key)
        self._key_cache: dict[str, str | None] = {}  # JSON key -> listed name it matches (keys repeat a lot)

    def redact_json_text(self, text: str, counter: HitCounter | None = None) -> str:
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

    def _walk(self, value: Any, counter: HitCounter | None) -> tuple[Any, bool]:
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

    def _walk_number(self, digits: str, counter: HitCounter | None, original: Any = None) -> tuple[Any, bool]:
        # A phone or card stored as a JSON number becomes a string token.
        if len(digits) >= 11 and digits.isdigit():
            red = self.redact_text(str(digits), counter)
            if red != digits:
                return red, True
        return (digits if original is None else original), False

    def _walk_string(self, s: str, counter: HitCounter | None, nested_json: bool = True) -> tuple[str, bool]:
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

    def redact_texts(self, texts: list[str | None], column: str, report: RedactionReport) -> list[str | None]:
        """Redact loose texts that may be JSON (quarantined raw records)."""
        counter = HitCounter(report, column)
        out = []
        for t in texts:
            if t is None:
                out.append(None)
            elif t.lstrip()[:1] in ("{", "["):
                out.append(self.redact_json_text(t, counter))
            else:
                out.append(self.redact_text(t, counter))
        return out


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
