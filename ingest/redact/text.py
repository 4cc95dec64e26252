"""Tokens and value patterns in plain text.

A replacement is a keyed token, `«email:3f9a1c2b4d5e»`: HMAC-SHA256 of the
canonical value (emails lower-cased, phone numbers reduced to digits) under a
per-deployment key, so the same value becomes the same token in every table
and joins on it still work. Only the matched span is replaced, so the words
around it, and with them the rules' verdicts, stay as they were.
"""

from __future__ import annotations

import hmac
import re
from functools import lru_cache

from .config import RedactionConfig
from .key import RedactionKeyError
from .report import RedactionReport
from .rules import CompiledRule, compile_rules, gate

TOKEN_RE = re.compile(r"«[a-z0-9_]+:[0-9a-f]{8,64}»")
_TOKEN_SPLIT = re.compile(r"(«[a-z0-9_]+:[0-9a-f]{8,64}»)")


class HitCounter:
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
        self.gate, self.min_len = gate(rules) if rules is not None else (None, 0)
        self._counts: dict[str, int] | None = None

    def hit(self, rule: str) -> None:
        counts = self._counts
        if counts is None:  # the column shows up in the report only once something was redacted
            counts = self._counts = self.report.by_column.setdefault(self.column, {})
        counts[rule] = counts.get(rule, 0) + 1


class TextRedactor:
    """Compiled rules plus the key: tokens, and value patterns replaced in one text."""

    def __init__(self, config: RedactionConfig, key: bytes):
        if not key:
            raise RedactionKeyError("the redaction key is empty")
        self.config = config
        self.rules = compile_rules(config)
        self._key = key
        self._n = config.token_length
        self._hash = lru_cache(maxsize=1 << 16)(self._hash_uncached)

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

    def redact_text(self, text: str, counter: HitCounter | None = None) -> str:
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

    def _replace(self, m: re.Match, rule: CompiledRule, counter: HitCounter | None) -> str:
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
