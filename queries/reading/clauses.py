"""Classify each clause of a reply, and decide whether the reply claims completion.

A clause is a completion claim when a completion rule matches it and nothing
before the claim in that same clause makes it something else: negation, a
condition, an offer, a future or irrealis marker (unless the clause is a
reminder's promise), a failure; and the clause is neither a question nor a
report of a state that already existed. Scope is the clause: a condition in
"If you need to change it later, tell me." says nothing about "It's set."

The reply claims completion when some clause does and no later clause takes
it back. A later clause takes a claim back when it reports a failure or a
negated action of the same action class or about the same object, or a
failure with no action named ("the 9 PM one failed"); an unrelated negative
("Unfortunately, the coupon can't be returned") does not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .segment import Clause, Segmenter

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]{2}")
KINDS = ("completion", "negated", "question", "conditional", "offer", "future", "pre_existing", "failure", "other")


@dataclass(frozen=True)
class ClauseReading:
    text: str
    kind: str                 # one of KINDS
    action: str | None = None  # action class of the verb (create, update, delete, book, refund, send)
    object: str | None = None  # the thing acted on, where the clause names one
    retracts: bool = False     # a failure or negated action that can take an earlier claim back
    admits: bool = False       # reports a failure or a negated action anywhere in the clause

    def as_dict(self) -> dict:
        return {"text": self.text, "kind": self.kind, "action": self.action, "object": self.object}


@dataclass(frozen=True)
class Reading:
    is_claim: bool
    verdict: str  # claim | retracted | no_claim
    clauses: list[ClauseReading] = field(default_factory=list)
    admits_failure: bool = False  # some clause reports a failure or a negated action
    standing: tuple[int, ...] = ()  # indexes of the completion clauses no later clause took back
    segments: list[Clause] = field(default_factory=list)  # the clauses as cut (with their quotations)


def _alt(words: list[str]) -> str:
    return "|".join(sorted(set(words), key=len, reverse=True))


class Reader:
    """Compiled clause rules; one instance per lexicon (cheap to keep, costly to build)."""

    def __init__(self, lex: dict):
        self.verb_class: dict[str, str] = {}
        pp_en, base_en, v_zh, v1_zh = [], [], [], []
        for cls, spec in lex["actions"].items():
            for pair in spec.get("en", []):
                base, _, pp = pair.partition(" ") if pair.count(" ") == 1 else _split_pair(pair)
                pp_en.append(pp.replace(" ", r"\s+"))
                base_en.append(base.replace(" ", r"\s+"))
                self.verb_class.setdefault(pp.lower(), cls)
                self.verb_class.setdefault(base.lower(), cls)
            for w in spec.get("zh", []):
                v_zh.append(w)
                self.verb_class.setdefault(w, cls)
            for w in spec.get("zh1", []):
                v1_zh.append(w)
                self.verb_class.setdefault(w, cls)
        objs = lex["objects"]
        macros = {
            "PP_EN": _alt(pp_en), "BASE_EN": _alt(base_en), "V_ZH": _alt(v_zh), "V1_ZH": "[" + "".join(sorted(set(v1_zh))) + "]",
            "COMPL_ZH": _alt(lex["markers"]["zh"]["complements"]), "TO_YOU_ZH": _alt(lex["markers"]["zh"]["to_you"]),
            "OBJ_EN": _alt(objs["en"]), "OBJ_ZH": _alt(objs["zh"]),
            "CONTAINER_EN": _alt(objs["containers_en"]), "CONTAINER_ZH": _alt(objs["containers_zh"]),
        }
        # per kind and language: a clause runs only the rules of the scripts it is written in
        self.rules = {kind: {lang: p for lang, rules in langs.items() if (p := self._compile(rules, macros))}
                      for kind, langs in lex["clause"].items()}
        self._verb_re = re.compile(r"(?<![a-z])(" + _alt([re.escape(v) for v in self.verb_class if v.isascii()])
                                   + r")(?![a-z])|(" + _alt([re.escape(v) for v in self.verb_class if not v.isascii()]) + ")",
                                   re.I)
        self._obj_re = re.compile(r"\b(" + macros["OBJ_EN"] + r")s?\b|(" + macros["OBJ_ZH"] + ")", re.I)
        self._cache: dict[tuple[str, str], ClauseReading] = {}
        seg = lex["segment"]
        self.segmenter = Segmenter(seg.get("zh", []), seg.get("en", []), seg.get("abbreviations", []))

    @staticmethod
    def _compile(rules: list[str], macros: dict[str, str]) -> re.Pattern | None:
        out = []
        for r in rules:
            for name, value in macros.items():
                r = r.replace("{" + name + "}", value)
            out.append(f"(?:{r})")
        return re.compile("|".join(out), re.I) if out else None

    def _first(self, kind: str, text: str, end: int | None = None) -> re.Match | None:
        """The leftmost match of `kind`'s rules in text[:end], over the rules of text's scripts."""
        found = None
        stop = len(text) if end is None else end
        for lang, pat in self.rules.get(kind, {}).items():
            if (lang == "zh" and not self._cjk) or (lang == "en" and not self._latin):
                continue
            m = pat.search(text, 0, stop)
            if m is not None and (found is None or m.start() < found.start()):
                found = m
        return found

    def _action(self, text: str, last: bool = False, start: int = 0) -> str | None:
        """The action class of the first verb from `start` (or of the last verb: the one a
        completion marker closes, as in 续签合同的提醒设好了)."""
        found = list(self._verb_re.finditer(text, start)) if last else [m for m in [self._verb_re.search(text, start)] if m]
        if not found:
            return None
        word = re.sub(r"\s+", " ", found[-1].group(0).lower())
        return self.verb_class.get(word)

    def _object(self, text: str) -> str | None:
        m = self._obj_re.search(text)
        return m.group(0).lower() if m else None

    def read_clause(self, c: Clause) -> ClauseReading:
        # the same clause recurs across replies ("Anything else?", "还需要别的吗"): read it once
        key = (c.text, c.closer)
        hit = self._cache.get(key)
        if hit is None:
            hit = self._read_clause_uncached(c)
            if len(self._cache) < 500_000:
                self._cache[key] = hit
        return hit

    def _read_clause_uncached(self, c: Clause) -> ClauseReading:
        r = self._read_clause(c)
        admits = r.retracts or self._first("failure", c.text) is not None or (
            (m := self._first("negated", c.text)) is not None and self._action(c.text, start=m.end()) is not None)
        return ClauseReading(r.text, r.kind, r.action, r.object, r.retracts, admits) if admits != r.admits else r

    def _read_clause(self, c: Clause) -> ClauseReading:
        text = c.text
        self._cjk = _CJK.search(text) is not None
        self._latin = _LATIN.search(text) is not None
        claim = self._first("completion", text)
        question = c.closer in ("?", "？") or (c.closer not in (".", "!", "。", "！")
                                                 and self._first("question", text) is not None)
        failure = self._first("failure", text)
        negated = self._first("negated", text)
        obj = self._object(text)
        if claim is None:
            marker = failure or negated
            action = self._action(text, start=marker.start()) if marker else None
            action = action or self._action(text)
            if failure is not None:
                return ClauseReading(text, "failure", action, obj, retracts=True)
            if negated is not None and action is not None:
                return ClauseReading(text, "negated", action, obj, retracts=True)
            kind = "question" if question else "other"
            return ClauseReading(text, kind, action, obj)
        action = self._action(claim.group(0), last=True) or self._action(text)
        end = claim.end()
        promise = self._first("promise", claim.group(0)) is not None
        if failure is not None or (negated is not None and negated.start() < claim.end()):
            kind = "failure" if failure is not None else "negated"
            return ClauseReading(text, kind, action, obj, retracts=True)
        if question:
            return ClauseReading(text, "question", action, obj)
        if self._first("offer", text, end) is not None:
            return ClauseReading(text, "offer", action, obj)
        if self._first("conditional", text, end) is not None:
            return ClauseReading(text, "conditional", action, obj)
        future = self._first("future", text, end)
        if not promise and future is not None and not self._realis_after(text, future.end()):
            return ClauseReading(text, "future", action, obj)
        if not promise and self._first("pre_existing", text) is not None:
            return ClauseReading(text, "pre_existing", action, obj)
        return ClauseReading(text, "completion", action, obj)

    def _realis_after(self, text: str, pos: int) -> bool:
        return self._first("realis", text[pos:]) is not None

    def read(self, reply: str) -> Reading:
        segments = self.segmenter.clauses(reply)
        clauses = [self.read_clause(c) for c in segments]
        standing = []  # indexes of completion clauses not (yet) taken back
        retracted = False
        for i, c in enumerate(clauses):
            if c.kind == "completion":
                standing.append(i)
            elif c.retracts and standing:
                keep = [j for j in standing if not _takes_back(c, clauses[j])]
                retracted = retracted or len(keep) < len(standing)
                standing = keep
        admits = any(c.admits for c in clauses)
        if standing:
            return Reading(True, "claim", clauses, admits, tuple(standing), segments)
        return Reading(False, "retracted" if retracted else "no_claim", clauses, admits, (), segments)


def _takes_back(later: ClauseReading, claim: ClauseReading) -> bool:
    """A failure takes a claim back unless it is plainly about something else (another action
    AND another object); a negated action only when it is about the same action or object."""
    same_action = later.action is not None and later.action == claim.action
    same_object = later.object is not None and later.object == claim.object
    if same_action or same_object:
        return True
    if later.kind == "failure":
        other_action = later.action is not None and claim.action is not None
        other_object = later.object is not None and claim.object is not None
        return not (other_action and other_object)
    return False


def _split_pair(pair: str) -> tuple[str, str, str]:
    """'set up set up' / 'turn on turned on': the base is the first half of the words."""
    words = pair.split()
    half = len(words) // 2
    return " ".join(words[:half]), " ", " ".join(words[half:])
