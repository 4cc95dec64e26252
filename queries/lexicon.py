"""The claim lexicon: TOML data compiled into the regex parameters the rules bind.

`queries/lexicon/claims.toml` holds the built-in lists; `[lexicon]` in
trace-audit.toml appends to them. Every fragment is checked by DuckDB's own
regex engine (RE2) before a run, so a bad user pattern is reported by list and
position instead of failing a rule half-way.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

import duckdb

from .config import Config

LEXICON_FILE = Path(__file__).resolve().parent / "lexicon" / "claims.toml"
LISTS = ("claim", "honest", "cue", "not_started", "not_created")

# Where a sentence ends (for cue-before-claim) and where a clause ends (for a
# claim that is really a question). Full-width and ASCII punctuation.
SENTENCE_CHARS = "。！!？?；;\\n"
CLAUSE_CHARS = "。！!？?；;，,.\\n"


class LexiconError(Exception):
    pass


@dataclass(frozen=True)
class CompiledLexicon:
    claim_re: str
    honest_re: str
    cue_claim_re: str
    claim_question_re: str
    not_started_re: str
    not_created_re: str

    def params(self) -> dict[str, str]:
        return {"claim_re": self.claim_re, "honest_re": self.honest_re, "cue_claim_re": self.cue_claim_re, "claim_question_re": self.claim_question_re,
                "not_started_re": self.not_started_re, "not_created_re": self.not_created_re}


def _expand(fragment: str, macros: dict[str, str]) -> str:
    for name, value in macros.items():
        fragment = fragment.replace("{" + name + "}", value)
    return fragment


def load_lists(path: Path = LEXICON_FILE) -> tuple[dict[str, list[str]], dict[str, str]]:
    data = tomllib.loads(path.read_text("utf-8"))
    macros = data.get("macros", {})
    lists: dict[str, list[str]] = {}
    for name in LISTS:
        section = data.get(name, {})
        lists[name] = [f for lang in sorted(section) for f in section[lang]]
    return lists, macros


_CHECKED: set[str] = set()  # fragments RE2 already accepted in this process


def _check(fragments: list[tuple[str, str]]) -> None:
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


def _alternation(frags: list[str]) -> str:
    return "|".join(f"(?:{f})" for f in frags) if frags else "[^\\s\\S]"


def compile_lexicon(config: Config | None = None, path: Path = LEXICON_FILE) -> CompiledLexicon:
    lists, macros = load_lists(path)
    if config is not None:
        for name in LISTS:
            extra = getattr(config.lexicon, name)
            lists[name] = lists[name] + [_expand(f, macros) for f in extra]
    lists = {k: [_expand(f, macros) for f in v] for k, v in lists.items()}
    _check([(f"{k}[{i}]", f) for k, v in lists.items() for i, f in enumerate(v)])
    claim = _alternation(lists["claim"])
    cue = _alternation(lists["cue"])
    # Two regexes, not one alternation: RE2's DFA blows its memory budget on the
    # combined pattern and falls back to a far slower engine (measured: 40x).
    cue_claim = f"(?:{cue})[^{SENTENCE_CHARS}]*(?:{claim})"
    claim_question = f"(?:{claim})[^{CLAUSE_CHARS}]*[？?]"
    return CompiledLexicon(
        claim_re="(?i)" + claim,
        honest_re="(?i)" + _alternation(lists["honest"]),
        cue_claim_re="(?i)" + cue_claim,
        claim_question_re="(?i)" + claim_question,
        not_started_re="(?i)" + _alternation(lists["not_started"]),
        not_created_re="(?i)" + _alternation(lists["not_created"]),
    )
