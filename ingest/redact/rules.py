"""The rules in force: the shipped defaults merged with the config, compiled once per config.

Each value rule keeps its precise pattern (Python's `re`, run per candidate text) and an RE2
prefilter (run vectorised over whole columns); the set adds one prefilter per kind of column and
the regex that finds a listed field name in a JSON key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from .checks import CHECKS, NORMALISERS
from .columns import normalise_key
from .config import RedactionConfig, default_rules
from .escape_tolerant import tolerant_or_none
from .prefilter_syntax import ESCAPED_ASCII, NEVER, check_re2, min_width, name_regex, scoped


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
            prefilter=scoped(spec.prefilter or spec.pattern),
            min_len=min_width(spec.pattern),
            check=CHECKS.get(spec.check) if spec.check else None,
            canonical=NORMALISERS[spec.normalise or "none"],
            value_group="value" in regex.groupindex,
            json_raw_prefilter=tolerant_or_none(spec.prefilter or spec.pattern),
        ))
    value_filters = [r.prefilter for r in compiled]
    # A key is a candidate when the JSON text has a listed name right before the
    # closing quote (possibly escaped, for JSON held inside a JSON string) and a colon.
    key_words = sorted({name_regex(n) for n in names})
    key_filter = []
    if key_words:
        key_filter.append(r'(?i:(?:' + "|".join(key_words) + r')\\*"\s*:)')
    if config.pseudonymise_user_id:
        key_filter.append(r'(?i:(?:user[_.\- ]?id)\\*"\s*:)')
    # \u-escaped ASCII could hide an '@' or a key name from the text filter.
    escaped_ascii = [ESCAPED_ASCII]
    text_prefilter = "|".join(value_filters) or NEVER
    json_prefilter = "|".join(value_filters + key_filter + escaped_ascii)
    for p in (text_prefilter, json_prefilter):
        check_re2(p)
    tolerant = [r.json_raw_prefilter for r in compiled] + [tolerant_or_none(k) for k in key_filter]
    json_raw_prefilter = None
    if None not in tolerant:
        json_raw_prefilter = "|".join(tolerant + escaped_ascii)
        try:
            check_re2(json_raw_prefilter)
        except ValueError:  # e.g. grown past RE2's program size: keep the unescaped view
            json_raw_prefilter = None
    # Longest names first so `x_api_key` reports api_key, not key-like shorter names.
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) or NEVER
    key_regex = re.compile(rf"(?:^|_)({alternatives})$")
    text_gate = re.compile(text_prefilter, re.ASCII)
    return CompiledRules(names, tuple(compiled), text_prefilter, json_prefilter, key_regex, text_gate,
                         json_raw_prefilter)


@lru_cache(maxsize=256)
def gate(rules: "tuple[CompiledRule, ...]") -> tuple[re.Pattern, int]:
    """One Python search that says whether any of `rules` can match, and the shortest possible match."""
    if not rules:
        return re.compile(NEVER), 1 << 30
    return re.compile("|".join(r.prefilter for r in rules), re.ASCII), min(r.min_len for r in rules)
