"""The things a claim names in its own words: "coffee", "Flour + Water", 大米, a quoted title.

Two claims of one action class over one write ("Eggs and milk are on your list, and coffee's on
there too" over add_item(["eggs", "milk"])) cannot be told apart by action or object group: both
are a create, and no group names coffee. What tells them apart is what each claim names and what
the write's arguments mention (queries/rules/_claimed_actions.sql). So each claim keeps its
content words: what is left of the clause without function words, verbs, containers, times,
numbers, ids (the order every reply of a shop names) and the lexicon's generic things (order,
reservation, 订单, [objects] and [object_groups]); a quotation counts whole. A claim about "it" or "them" refers
back to a thing already named and names nothing (None). Lower case, accents stripped ("Zuni
Café" matches zuni-cafe), joined by '|'. Chinese: the runs of CJK left once verbs, completion
markers, classifiers and function characters are cut out (牛奶已经下单了 -> 牛奶).
"""

from __future__ import annotations

import re
import unicodedata

from .clauses import _FUNCTION_WORDS

# words that name no particular thing: times, quantities, fillers of completion phrases
_STOP_EN = _FUNCTION_WORDS | frozenset("""a an the there here too also done set all both each every everything
one two three four five six seven eight nine ten am pm a.m p.m today tonight tomorrow yesterday morning
afternoon evening night noon midnight week weekend month year day days next this last monday tuesday
wednesday thursday friday saturday sunday jan feb mar apr may jun jul aug sep sept oct nov dec january
february march april june july august september october november december got it's that's let know them
me us him what out up off again sure ok okay great perfect alright yes yep well now new minute minutes min mins
hour hours hrs second seconds""".split())
# a claim about "it", "them", 它: it refers back to a thing named before, and names nothing new
_REFERS_BACK = re.compile(r"\b(it|them|they|this|that|these|those|everything)\b|它们?|这些|那些|全部|所有|一切", re.I)
_DEMONSTRATIVES = frozenset(("this", "that", "these", "those"))
# what follows a demonstrative that stands for the thing itself ("this one", "that the …", "those two")
_NOT_A_NOUN = frozenset("a an the one ones two three both all".split())
_WORD_EN = re.compile(r"[A-Za-z\u00c0-\u024f][A-Za-z\u00c0-\u024f'’+-]*")
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
# what a Chinese claim says around its thing: perfect and aspect markers, for-you, adverbs, times
_CUT_ZH = re.compile(r"已经|已|也|都|均|一并|一起|同时|另外|还|再|了|啦|好|过|成功|完成|给你|给您|为你|为您|帮你|帮您|你的|您的|"
                     r"的|和|与|及|并|把|将|被|我|你|您|今天|明天|后天|明早|明晚|今晚|[上下本这]?(周|星期|礼拜)[一二三四五六日天末]?|上午|下午|晚上|早上|中午|点|分|半|"
                     r"[一二三四五六七八九十两几0-9]+\s*[个张份箱袋瓶件台位名次条单块元斤盒包杯间晚天号日月年周]?")
# an id ("4HZ2QK", "#W9981234"): letters and digits together
_ID = re.compile(r"(?<![\w#])#?(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Za-z])[A-Za-z0-9-]{5,}")
_CONTRACTION = re.compile(r"['’](ve|ll|re|d|m|s)$")


def _fold(word: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKD", word.lower()) if not unicodedata.combining(ch))


class ClaimNouns:
    def __init__(self, verbs: dict[str, str], containers: re.Pattern, generic: set[str] = frozenset()):
        # every verb form the lexicon knows, English one word at a time ("set up" -> set, up)
        self._verbs_en = frozenset(w for v in verbs if v.isascii() for w in v.lower().split())
        zh = sorted((v for v in verbs if not v.isascii()), key=len, reverse=True)
        self._verbs_zh = re.compile("|".join(map(re.escape, zh))) if zh else None
        self._containers = containers
        self._generic = frozenset(w.lower() for w in generic)  # order, reservation, 订单: every such reply says them

    def of(self, text: str, quotes: tuple[str, ...] = ()) -> str | None:
        """The claim's content words joined by '|', or None when it names nothing of its own."""
        if any(not self._determiner(text, m) for m in _REFERS_BACK.finditer(text)):
            return None
        found: list[str] = [_fold(q).strip() for q in quotes if len(q.strip()) > 1]
        bare = self._containers.sub(" ", text)
        bare = _ID.sub(" ", bare)
        for m in _WORD_EN.finditer(bare):
            w = _fold(m.group(0)).strip("'’+-")
            w = _CONTRACTION.sub("", w)
            if (len(w) < 3 or w in _STOP_EN or w in self._verbs_en or w.rstrip("s") in self._verbs_en
                    or w in self._generic or w.rstrip("s") in self._generic):
                continue
            if w.endswith("ed") and (w[:-2] in self._verbs_en or w[:-1] in self._verbs_en):
                continue
            found.append(w)
        if self._verbs_zh is not None:
            rest = self._verbs_zh.sub(" ", bare)
        else:
            rest = bare
        for run in _CJK_RUN.findall(_CUT_ZH.sub(" ", rest)):
            if len(run) >= 2 and run not in self._generic:
                found.append(run)
        out = [w for n, w in enumerate(found) if w and w not in found[:n] and "|" not in w]
        return "|".join(out) if out else None

    def _determiner(self, text: str, m: re.Match) -> bool:
        """'those' in "set for those dates" points at a thing of its own (the dates), and the claim
        still names what it made; 'those' in "those are booked" stands for the thing itself."""
        if m.group(0).lower() not in _DEMONSTRATIVES:
            return False
        nxt = _WORD_EN.match(text, m.end() + 1) if text[m.end():m.end() + 1] == " " else None
        if nxt is None:
            return False
        w = _fold(nxt.group(0))
        return not (w in _FUNCTION_WORDS or w in _NOT_A_NOUN or w in self._verbs_en or w.rstrip("s") in self._verbs_en)
