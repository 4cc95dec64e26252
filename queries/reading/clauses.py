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

from . import display, framing, reported, requested, takeback
from .segment import Clause, Segmenter
from .unmarked import Unmarked
from .word_patterns import split_pair
from .tools import said_again

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]{2}")
_NEXT_WORD = re.compile(r"\s+([#\w'][\w'-]*)")
# words after a noun that end its phrase (so the noun is its head, not a modifier)
_FUNCTION_WORDS = frozenset("""is are was were be been being has have had 's 're will would can could should may
might must do does did to for on in at of with and or but from by as into onto now also already just all both each
that which who you your my our their his her its it they we i he she this these those then so not no under
successfully about after before over through until via per like called named titled saying re""".split())
# words that end a noun phrase (a determiner does not: "return the library books reminder")
_PHRASE_BREAKS = _FUNCTION_WORDS - frozenset("the a an your my our their this these those his her its".split())
# "the order status is now pending": a state changed (and "order" there is a noun, not the verb)
_STATE_NOW = re.compile(r"\bnow\b|现在|已变为|已变成", re.I)
# what stands right before a verb of the perfect: 已预订, 已经为您预约, 成功预订
_ZH_PERFECT_BEFORE = re.compile(r"(?:已|已经|成功|为您|为你|帮您|帮你|给您|给你|替您|替你)$")
_DESTINATION = re.compile(r"\b(?:to|into|onto)\s+(?:(?:the|your|a|an|my|our|their)\s+)?$", re.I)
_AUXILIARIES = frozenset("is are was were has have had 's 're".split())
# "coffee's on there too": put in the container the reply just named
_ON_THERE = re.compile(r"\b(on|in)\s+there\b", re.I)
# "I'll remind you to take your meds at 9, and to call the pharmacy at 10": the promise goes on
_PROMISE_GOES_ON = re.compile(r"^\W*(?:and|or|also|plus|then)?\s*(?:also\s+|then\s+)?to\s+(?!be\b)[a-z]", re.I)
# ... in the same clause: "I'll remind you to call the pharmacy at 9 and to email your landlord at 10": two
_PROMISE_AND_TO = re.compile(r"\s+and\s+(?:also\s+)?(?=to\s+(?!be\b)[a-z])", re.I)
# the things a headline lists ("Both are booked: Zuni on Friday and Flour + Water on Saturday")
_LIST_SEP = re.compile(r"\s+(?:and|&|plus|as well as)\s+|[、；;]|(?<=[\u3400-\u9fff])(?:和|以及|及|还有)", re.I)
# "and" opening a listed part after a comma (", and B due the 14th")
_LIST_HEAD = re.compile(r"^(?:and|&|plus)\s+", re.I)
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
    verdict: str  # claim | report | state (reported.py) | retracted | no_claim | unmarked (no mark of any kind: unmarked.py)
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
                base, _, pp = pair.partition(" ") if pair.count(" ") == 1 else split_pair(pair)
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
        # an action said again is that action ("you're rebooked", "I've re-sent it"; tools.said_again):
        # re- before a verb; a word the lexicon knows (removed, replaced) keeps its class (_action).
        # One optional prefix before the one alternation: a second alternation of re- words cost a
        # third more per text
        macros = {
            "PP_EN": "(?:re-?)?(?:" + _alt(pp_en) + ")", "BASE_EN": "(?:re-?)?(?:" + _alt(base_en) + ")", "V_ZH": _alt(v_zh), "V1_ZH": "[" + "".join(sorted(set(v1_zh))) + "]",
            "COMPL_ZH": _alt(lex["markers"]["zh"]["complements"]), "TO_YOU_ZH": _alt(lex["markers"]["zh"]["to_you"]),
            "OBJ_EN": _alt(objs["en"]), "OBJ_ZH": _alt(objs["zh"]),
            "CONTAINER_EN": _alt(objs["containers_en"]), "CONTAINER_ZH": _alt(objs["containers_zh"]),
        }
        # the lexicon's own word classes ([macros]: a time said, a device's state), one alternation each
        macros.update({name: "|".join(frags) for name, frags in lex.get("macros", {}).items()})
        # per kind and language: a clause runs only the rules of the scripts it is written in
        self.rules = {kind: {lang: p for lang, rules in langs.items() if (p := self._compile(rules, macros))}
                      for kind, langs in lex["clause"].items()}
        self._verb_re = re.compile(r"(?<![a-z])((?:re-?)?(?:" + _alt([re.escape(v) for v in self.verb_class if v.isascii()]) + ")"
                                   + r")(?![a-z])|(" + _alt([re.escape(v) for v in self.verb_class if not v.isascii()]) + ")",
                                   re.I)
        self._container = re.compile(r"\b(?:" + macros["CONTAINER_EN"] + r")\b|" + macros["CONTAINER_ZH"], re.I)
        self._phrases = [(re.compile(p, re.I), cls) for cls, spec in lex["actions"].items()
                         for p in spec.get("phrases", [])]
        # where one clause claims two actions: "moved your flight and added two bags", "已取消并重新下单"
        self._coordination = re.compile(
            r"\s*,?\s+(?:and|then|plus|&|as well as)\s+(?:(?:i|we)(?:'ve|\s+have)?\s+)?(?:also\s+|then\s+|just\s+)?"
            r"(?=(?:" + macros["PP_EN"] + r")\b)"
            # "…closed and your last payment has been refunded": a new subject with its own claim
            r"|\s*,?\s+and\s+(?=(?:your|the|my|our|their|his|her|its|all|both)\b(?:[^,.;]|(?<=\d)[.,](?=\d)){0,40}?\b"
            r"(?:has|have|is|are|was|were)\s+(?:\w+\s+)?(?:been\s+)?(?:" + macros["PP_EN"] + r")\b)"
            r"|(?<![一合])(?:并且|并|同时|然后|以及)(?=(?:已经|已)?(?:" + macros["TO_YOU_ZH"] + r")?(?:重新|再|另外|又|也)?(?:"
            + macros["V_ZH"] + "))",
            re.I)
        self._obj_re = re.compile(r"\b(" + macros["OBJ_EN"] + r")s?\b|(" + macros["OBJ_ZH"] + ")", re.I)
        self._count_words: dict[str, int] = dict(lex.get("counts", {}).get("words", {}))
        self._cache: dict[tuple[str, str], ClauseReading] = {}
        self._framing = framing.Framing(self._first)
        self._unmarked, self._reported = Unmarked(lex, self._first), reported.Reported(self._first)
        self._scripts_of: tuple[str | None, bool, bool] = (None, False, False)
        # Traditional characters and Cantonese words as the lists write them ([variants]), one for one
        self._variants = str.maketrans({p[0]: p[1] for rows in lex.get("variants", {}).values()
                                        for row in rows for p in row.split()})
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

    def _scripts(self, text: str) -> tuple[bool, bool]:
        """Whether text holds CJK and Latin letters: derived from the text asked about, never kept
        from the clause read last (a clause read from the cache skips that read, so a kept flag
        would be another text's and a reading would depend on what the process read before)."""
        if self._scripts_of[0] is not text:
            self._scripts_of = (text, _CJK.search(text) is not None, _LATIN.search(text) is not None)
        return self._scripts_of[1], self._scripts_of[2]

    def _first(self, kind: str, text: str, end: int | None = None) -> re.Match | None:
        """The leftmost match of `kind`'s rules in text[:end], over the rules of text's scripts."""
        found = None
        stop = len(text) if end is None else end
        cjk, latin = self._scripts(text)
        for lang, pat in self.rules.get(kind, {}).items():
            if (lang == "zh" and not cjk) or (lang == "en" and not latin):
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
        word = requested.claimed_word(found, (lambda w: self._first("asks_for", w) is not None) if last else None)
        return self.verb_class.get(word) or self.verb_class.get(said_again(word, self.verb_class) or "")

    def _object(self, text: str) -> str | None:
        """The thing the clause is about. In an English compound the last noun is the head:
        "delivery address" is an address, "luggage set" (a product) is no bag at all."""
        found = list(self._obj_re.finditer(text))
        for n, m in enumerate(found):
            word = m.group(0)
            if not word.isascii():
                # 已预订亚朵高级大床房: a word that is also a verb, after the perfect and before its object,
                # is the verb (the thing booked is what follows it)
                if (word in self.verb_class and _ZH_PERFECT_BEFORE.search(text, 0, m.start())
                        and _CJK.match(text, m.end())):
                    continue
                # 订单 8JQ2LM 的乘客信息: what follows 的 is the head
                later = next((x for x in found[n + 1:] if not x.group(0).isascii()
                              and "的" in text[m.end():x.start()]), None)
                return (later or m).group(0).lower()
            # "moved the sprint review to Room 4B": where a thing went is not the thing (a container is
            # where a created thing lives: "added milk to your list")
            if _DESTINATION.search(text, 0, m.start()) and not self._container.fullmatch(word):
                continue
            nxt = _NEXT_WORD.match(text, m.end())
            if nxt is None:
                return word.lower()
            follower = nxt.group(1).lower()
            after = _NEXT_WORD.match(text, nxt.end())
            # "luggage set has been…": a verb-looking word before an auxiliary is the head noun
            noun_verb = follower in self.verb_class and after is not None and after.group(1).lower() in _AUXILIARIES
            if noun_verb or not (follower in _FUNCTION_WORDS or follower in self.verb_class
                                 or self._obj_re.fullmatch(follower) or any(ch.isdigit() for ch in follower)
                                 or follower.startswith(("#", "'"))):
                continue  # a modifier: the product "Luggage Set", the "delivery fee" (no bag, no delivery)
            # "your order printer ink reminder", "delivery address": the last noun of the phrase is its head
            head = m
            for later in found[n + 1:]:
                between = re.findall(r"[\w'-]+", text[head.end():later.start()].lower())
                if any(w in _PHRASE_BREAKS or w in self.verb_class for w in between):
                    break
                head = later
            return head.group(0).lower()
        return None

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
        # (a negation in a standing state or a claim's bounds, "nothing else changed", admits nothing)
        admits = r.retracts or (r.kind != "conditional" and self._first("failure", c.text) is not None) or (
            r.kind != "pre_existing" and (m := self._first("negated", c.text)) is not None
            and self._action(c.text, start=m.end()) is not None) or (
            self._first("unable", c.text) is not None)
        return ClauseReading(r.text, r.kind, r.action, r.object, r.retracts, admits) if admits != r.admits else r

    def _read_clause(self, c: Clause) -> ClauseReading:
        text = c.text
        claim = self._first("completion", text)
        question = c.closer in ("?", "？") or (c.closer not in (".", "!", "。", "！")
                                                 and self._first("question", text) is not None)
        failure = self._first("failure", text)
        negated = self._first("negated", text)
        obj = self._object(text)
        # "no need to buy it again", 不用再重复购买了: neither done nor denied (it is there already)
        needless = self._first("needless", text)
        if needless is not None and (claim is None or needless.start() < claim.end()):
            return ClauseReading(text, "pre_existing", self._action(text, start=needless.start()), obj)
        if claim is None:
            marker = failure or negated
            action = self._action(text, start=marker.start()) if marker else None
            action = action or self._action(text)
            if failure is not None:  # (a failure supposed, "If the payment fails", 如果预约失败, reports none)
                unreal = self._first("supposed", text[:failure.start()]) is not None
                earlier = not unreal and self._first("earlier", text) is not None  # history: takes nothing back
                return ClauseReading(text, "conditional" if unreal else "failure", action, obj, retracts=not (unreal or earlier))
            if negated is not None and action is not None and not question:  # "…in case she doesn't reply?"
                return ClauseReading(text, "negated", action, obj, retracts=True)
            kind = "question" if question else "other"
            return ClauseReading(text, kind, action, obj)
        end = claim.end()
        promise = self._first("promise", claim.group(0)) is not None
        # "明早八点提醒你回复王总": the promise is the reminder (created), not what it reminds of; "your
        # list now includes send the invoice": a thing put in a container was created
        if promise:
            action, obj = "create", "reminder"
        else:
            action = self._action(claim.group(0), last=True) or (
                "create" if self._container.search(text) or _ON_THERE.search(claim.group(0)) else
                "update" if _STATE_NOW.search(claim.group(0)) else self._action(text))
        if failure is not None or (negated is not None and negated.start() < claim.end()):
            kind = "failure" if failure is not None else "negated"
            return ClauseReading(text, kind, action, obj, retracts=True)
        if question:
            return ClauseReading(text, "question", action, obj)
        if self._first("offer", text, end) is not None:
            return ClauseReading(text, "offer", action, obj)
        if (cond := self._first("conditional", text, end)) is not None and self._first("after_done", text[cond.start():]) is None:
            return ClauseReading(text, "conditional", action, obj)
        future = self._first("future", text, end)
        if not promise and future is not None and self._first("realis", text[future.end():]) is None:
            return ClauseReading(text, "future", action, obj)
        if not promise and self._first("pre_existing", text) is not None:
            return ClauseReading(text, "pre_existing", action, obj)
        return ClauseReading(text, "completion", action, obj)

    def claimed_parts(self, c: Clause, skip_first: bool = False) -> list[ClauseReading]:
        """A completion clause as the claims it makes: one per coordinated action ("moved your
        flight and added two bags" is two claims), each read on its own (action, object); a part
        that reads as no claim on its own keeps the whole clause's reading."""
        whole = self.read_clause(c)
        if whole.action == "create" and whole.object == "reminder" and self._first("promise", c.text) is not None:
            # a reminder's promise goes on with "and to …": one more reminder, whatever its verb says
            texts = [t.strip() for t in _PROMISE_AND_TO.split(c.text) if t.strip()]
            if len(texts) > 1:
                kept = texts[1:] if skip_first else texts
                return [ClauseReading(t, "completion", "create", "reminder") for t in kept]
        cuts = [m for m in self._coordination.finditer(c.text) if m.start() > 0]
        if not cuts:
            return [] if skip_first else [self._phrased(whole)]
        texts, pos = [], 0
        for m in cuts:
            texts.append(c.text[pos:m.start()])
            pos = m.end()
        texts.append(c.text[pos:])
        parts = []
        for t in texts[1:] if skip_first else texts:
            r = self.read_clause(Clause(t.strip(), c.sentence, c.index, c.closer))
            # a coordinated verb shares the claim's aspect: 已取消原订单并为你重新下单
            if r.kind == "completion" or (r.kind in ("other", "question") and r.action is not None):
                parts.append(ClauseReading(r.text, "completion", r.action, r.object))
        return [self._phrased(p) for p in (parts or ([] if skip_first else [whole]))]

    def listed_parts(self, r: Reading, j: int) -> list[ClauseReading]:
        """A plain clause j that goes on with the claim before it, as the claims it adds: the things
        a headline closed by a colon lists ("Both are booked: Zuni on Friday and Flour + Water on
        Saturday": one claim per thing, of the headline's action), and a reminder's promise continued
        (", and to call the pharmacy at 10": one more reminder). Real replies list what they did
        after a colon; each listed thing is a claim a write must back on its own."""
        h = j - 1
        while h >= 0 and r.clauses[h].kind == "other" and r.segments[h].sentence == r.segments[j].sentence:
            h -= 1
        if h < 0 or h not in r.standing:
            return []
        head, text = r.clauses[h], r.clauses[j].text
        if head.action is None or r.clauses[j].action is not None:
            return []  # a clause with a verb of its own is read by claimed_parts
        if h == j - 1 and head.action == "create" and head.object == "reminder" and _PROMISE_GOES_ON.search(text):
            return [ClauseReading(text, "completion", "create", "reminder")]
        items = [t for t in (_LIST_HEAD.sub("", p.strip()) for p in _LIST_SEP.split(text)) if t]
        closer = r.segments[h].closer
        if h == j - 1 and closer in (":", "：") and len(items) >= 2:
            # a list: two things or more right after the colon ("Booked: Ace Hotel, checking in…" lists nothing)
            return [ClauseReading(t, "completion", head.action, self._object(t) or head.object) for t in items]
        # a headline counting its things ("Both tasks are on your list — A due Friday, and B due the 14th",
        # 两个提醒都设好了：明早 7:30 吃药，周四晚 8 点给妈妈打电话): its list goes on over commas, each part a claim
        counted = self._counted(r.segments[h].text) if closer in (":", "：", "—", "–", "-") else 0
        listed, things = [], 0  # the plain clauses right after the headline, as many things as it counts
        for k in range(h + 1, len(r.clauses)):
            if (things >= counted or r.segments[k].sentence != r.segments[h].sentence
                    or r.clauses[k].kind != "other" or r.clauses[k].action is not None):
                break
            listed.append(k)
            things += len([p for p in _LIST_SEP.split(r.clauses[k].text) if p.strip()])
        if j not in listed or things < 2:
            return []
        return [ClauseReading(t, "completion", head.action, self._object(t) or head.object) for t in items]

    def _counted(self, text: str) -> int:
        """How many things a headline counts ("Both tasks": 2, 两个提醒: 2, "all three": 3), else 0."""
        m = self._first("counted", text)
        if m is None:
            return 0
        return next((n for w, n in self._count_words.items() if re.search(r"(?<![a-z])" + w + r"(?![a-z])", m.group(0), re.I)), 0)

    def _phrased(self, r: ClauseReading) -> ClauseReading:
        """A claim whose verb wraps its object ("let the group chat know") gets the phrase's class."""
        if r.action is not None:
            return r
        for pattern, cls in self._phrases:
            if pattern.search(r.text):
                return ClauseReading(r.text, r.kind, cls, r.object, r.retracts, r.admits)
        return r

    def read(self, reply: str) -> Reading:
        if not reply.isascii():
            reply = reply.translate(self._variants)
        segments = self.segmenter.clauses(reply)
        # a template offered, a status read before a colon: what they frame claims nothing
        clauses = self._framing.reframe([self.read_clause(c) for c in segments], segments)
        standing = []  # indexes of completion clauses not (yet) taken back
        retracted = False
        # "the 7:10 — sorry, correction, the 7:40": a failure naming only the value corrected away stands aside
        away = takeback.replaced(self._framing.correction_end, clauses, segments)
        for i, c in enumerate(clauses):
            if c.kind == "completion":
                standing.append(i)
            elif c.retracts and standing:
                none_of = c.kind == "negated" and self._first("none_of", c.text) is not None  # "No fee applied"
                keep = [j for j in standing if not takeback.takes_back(c, clauses[j], none_of)
                        or takeback.explains(c.text, away.get(j))]
                retracted = retracted or len(keep) < len(standing)
                standing = keep
        admits = any(c.admits for c in clauses)
        if standing:  # a status display, or states told as found: told as read, the turn decides (display.py, reported.py)
            shown = display.status_display(reply, self.read) and ("no_claim" if admits else "unmarked")
            told = shown or self._reported.told(clauses, standing)
            return Reading(not shown, told, clauses, admits, () if shown else tuple(standing), segments)
        if not retracted and not admits and self._unmarked.reads([c.text for c in segments], reply):
            return Reading(False, "unmarked", clauses, admits, (), segments)
        return Reading(False, "retracted" if retracted else "no_claim", clauses, admits, (), segments)
