"""The claim lexicon: TOML data, compiled into the clause reader and the step-outcome regexes.

`queries/lexicon/claims.toml` holds the built-in lexicon; `[lexicon]` in
trace-audit.toml extends it: `claim` adds completion rules, `honest` failure
rules, `cue` condition rules (Python regular expressions, read case-blind, one
clause at a time), `not_started` / `not_created` add step-outcome patterns (RE2:
the SQL rules match them against steps). Every fragment is checked before a run,
so a bad pattern is reported by list and position instead of failing a rule.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import duckdb

from .config import Config

LEXICON_FILE = Path(__file__).resolve().parent / "lexicon" / "claims.toml"
VALUES_FILE = LEXICON_FILE.with_name("values.toml")  # what a reply's values are (queries/reading/values.py)
STEP_LISTS = ("not_started", "not_created")
# config [lexicon] key -> the clause rules it extends
CLAUSE_EXTENSIONS = {"claim": "completion", "honest": "failure", "cue": "conditional"}
_MACRO = re.compile(r"\{([A-Z][A-Z0-9_]*)\}")
KNOWN_MACROS = {"PP_EN", "BASE_EN", "V_ZH", "V1_ZH", "COMPL_ZH", "TO_YOU_ZH", "OBJ_EN", "OBJ_ZH",
                "CONTAINER_EN", "CONTAINER_ZH"}


class LexiconError(Exception):
    pass


@dataclass(frozen=True)
class CompiledLexicon:
    data: dict
    digest: str
    not_started_re: str
    not_created_re: str

    def params(self) -> dict[str, str]:
        return {"not_started_re": self.not_started_re, "not_created_re": self.not_created_re}

    def reader(self):
        return _reader(self.digest, json.dumps(self.data, sort_keys=True, ensure_ascii=False))

    def value_reader(self):
        return _value_reader(self.digest, json.dumps(self.data.get("values", {}), sort_keys=True, ensure_ascii=False))


@lru_cache(maxsize=8)
def _reader(digest: str, data_json: str):
    from .reading.clauses import Reader

    return Reader(json.loads(data_json))


@lru_cache(maxsize=8)
def _value_reader(digest: str, data_json: str):
    from .reading.values import ValueReader

    return ValueReader(json.loads(data_json))


def load_data(path: Path = LEXICON_FILE) -> dict:
    try:
        return tomllib.loads(path.read_text("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise LexiconError(f"{path}: not valid TOML: {exc}") from None


_CHECKED: set[str] = set()  # step-outcome fragments RE2 already accepted in this process


def _check_re2(fragments: list[tuple[str, str]]) -> None:
    fragments = [(w, f) for w, f in fragments if f not in _CHECKED]
    if not fragments:
        return
    con = duckdb.connect()
    try:
        for where, frag in fragments:
            try:
                con.execute("SELECT regexp_matches('', ?)", [frag]).fetchall()
            except duckdb.Error as exc:
                raise LexiconError(f"lexicon {where}: not a valid RE2 pattern: {frag!r} ({exc})") from None
            _CHECKED.add(frag)
    finally:
        con.close()


def lint(data: dict) -> list[str]:
    """Problems in a lexicon: bad or unknown-macro clause rules, verbs typed twice, missing sections."""
    problems = []
    for section in ("actions", "objects", "markers", "clause", "segment", "tools"):
        if section not in data:
            problems.append(f"lexicon: section [{section}] is missing")
    for kind, langs in data.get("clause", {}).items():
        for lang, rules in langs.items():
            for i, r in enumerate(rules):
                unknown = set(_MACRO.findall(r)) - KNOWN_MACROS - set(data.get("macros", {}))
                if unknown:
                    problems.append(f"lexicon clause.{kind}.{lang}[{i}]: unknown macro {', '.join(sorted(unknown))}")
                try:
                    re.compile(_MACRO.sub("x", r))
                except re.error as exc:
                    problems.append(f"lexicon clause.{kind}.{lang}[{i}]: not a valid regular expression: {r!r} ({exc})")
    for name, rows in data.get("variants", {}).items():
        for row in rows:
            bad = [p for p in row.split() if len(p) != 2 or p[0] == p[1]]
            if bad:
                problems.append(f"lexicon variants.{name}: {' '.join(bad)} (each: a variant, then its form, one character each)")
    seen: dict[str, str] = {}
    for cls, spec in data.get("actions", {}).items():
        for key in ("zh", "zh1", "tool", "weak_tool", "last_tool"):
            for w in spec.get(key, []):
                other = seen.get(f"{key}:{w}")
                if other and other != cls:
                    problems.append(f"lexicon actions.{cls}.{key}: {w!r} is also in actions.{other}")
                seen[f"{key}:{w}"] = cls
        for pair in spec.get("en", []):
            if len(pair.split()) % 2 and len(pair.split()) != 1:
                problems.append(f"lexicon actions.{cls}.en: {pair!r} is not 'base past' (equal halves)")
            if len(pair.split()) == 1:
                problems.append(f"lexicon actions.{cls}.en: {pair!r} needs its past form ('base past')")
    return problems


def compile_lexicon(config: Config | None = None, path: Path = LEXICON_FILE) -> CompiledLexicon:
    data = copy.deepcopy(load_data(path))
    if VALUES_FILE.exists() and path == LEXICON_FILE:
        data["values"] = load_data(VALUES_FILE)
    if config is not None:
        for key, kind in CLAUSE_EXTENSIONS.items():
            extra = getattr(config.lexicon, key)
            for i, frag in enumerate(extra):
                try:
                    re.compile(frag)
                except re.error as exc:
                    raise LexiconError(f"lexicon {key}[{i}]: not a valid regular expression: {frag!r} ({exc})") from None
            if extra:
                data["clause"].setdefault(kind, {}).setdefault("user", []).extend(extra)
        for name in STEP_LISTS:
            data[name] = {**data.get(name, {}), "user": list(getattr(config.lexicon, name))}
    problems = lint(data)
    if problems:
        raise LexiconError("; ".join(problems))
    step = {name: [f for lang in sorted(data.get(name, {})) for f in data[name][lang]] for name in STEP_LISTS}
    _check_re2([(f"{k}[{i}]", f) for k, v in step.items() for i, f in enumerate(v)])
    digest = hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]

    def alternation(frags: list[str]) -> str:
        return "(?i)" + ("|".join(f"(?:{f})" for f in frags) if frags else "[^\\s\\S]")

    return CompiledLexicon(data, digest, alternation(step["not_started"]), alternation(step["not_created"]))
