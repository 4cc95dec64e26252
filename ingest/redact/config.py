"""The `[redaction]` section of trace-audit.toml, typed, and the shipped default rules it extends.

Every prefilter a config brings is checked here, at load time, for the two regex engines that run
it (see prefilter_syntax.py): a rule that loads is a rule that matches in every column.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator

from .columns import normalise_key
from .key import MIN_KEY_CHARS
from .prefilter_syntax import check_re2, check_read_alike


class RedactionConfigError(ValueError):
    """A `[redaction]` section that cannot be used; the message says what to change."""


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
            check_re2(v)
            check_read_alike(v)
        return v

    @model_validator(mode="after")
    def _pattern_as_prefilter(self) -> "PatternRule":
        # Without a prefilter the pattern is the prefilter (compile_rules), so RE2 and the
        # Python gates must both read it too.
        if self.prefilter is None:
            what = "pattern (the prefilter, as none is given)"
            check_re2(self.pattern, what)
            check_read_alike(self.pattern, what)
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
