"""The values a piece of assistant text states, so a rule can compare them with what was written.

`ValueReader(lexicon).extract(text)` reads one clause or one list item and
returns, in order, one JSON-ready dict per value: {"type", "text" (the exact
substring), "role", ...normalised fields}. The types (docs/values.md):
  time    hour, minute, day_offset, date, day_of_month, weekday, week_offset,
          part, zone, ambiguous_12h (timex.py reads these)
  amount  value, currency                 $1,234.50, USD 20, ¥300, 三百元
  count   value, object                   three checked bags, 两张票, 一个提醒
  id      value, kind                     order #W2378156, reservation ID HATHAT
  choice  enum, value, target             business class, 靠窗, gift card
  quote   value                           "buy milk", “买牛奶”, 《报告》
`role` is "from" or "to" for the source and the target of a change ("from
basic economy to economy", 从经济舱升到商务舱), else None; a choice named as the
target of a change has target=True. Overlaps are settled by rank: an id with a
context word, then a time, an amount, an id by its shape, a count; quotes and
choices stand beside the others. All words are data (queries/lexicon/values.toml);
the patterns are compiled once, in the constructor.
"""

from __future__ import annotations

import re
from pathlib import Path

from .numerals import Numerals
from .timex import TimeReader
from .value_context import ValueContext
from .value_roles import _choice_changes, _lone_from, _range_roles, _totals, total_patterns
from .word_patterns import alt, key, lower

LEXICON_FILE = Path(__file__).resolve().parent.parent / "lexicon" / "values.toml"  # the built-in lexicon
_CJK = re.compile(r"[\u3400-\u9fff]")
_DIGIT = re.compile(r"\d")
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_LENGTH_FROM = re.compile(r"(?:day|week|month|year|hour|minute|fortnight)s?\s+from\s*$")  # "a week from Friday"
_HEAD = re.compile(r"\s+([a-z]{3,}s)(?![a-z'-])")  # the plural head noun after a modifier
_GROUPED = re.compile(r"\d{2,}(?:-\d{3,}){2,}")  # digits in three dashed groups or more, no date
_EDGE = r"[\s，。！？；、,.!?;:：]"  # where a Chinese noun read by its shape ends


def plural(noun: str) -> str:
    if noun.endswith(("s", "x", "z", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses", "zzes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


class ValueReader:
    """Compiled value patterns for one lexicon; build once, call extract() per clause."""

    def __init__(self, lex: dict):
        self.num = Numerals(lex)
        self.times = TimeReader(lex, self.num)
        self.context = ValueContext(lex, self.times)
        ln = lex.get("lines", {})  # a line's label and its colon: what the line's values are (tables.py)
        self.lines = {"label_words": ln.get("label_words", 0), "label_chars": ln.get("label_chars", 0),
                      "history": re.compile(alt(ln.get("history", []) or ["$^"]), re.I)}
        zh_n, en_n, en_big = self.num.zh, self.num.en, self.num.en_big
        # ---- amounts
        a = lex["amount"]
        self.prefix = {key(w): currency for currency, words in a["prefixes"].items() for w in words}
        self.suffix = {key(w): currency for currency, words in a["suffixes"].items() for w in words}
        bare = sorted(a.get("bare_after", []), key=len, reverse=True)
        ends = "".join("|" + re.escape(w) for w in a.get("bare_before", []))  # 转 500 给房东: to whom
        self.bare_re = re.compile("(?:" + "|".join(map(re.escape, bare)) + r")\s*(?P<n>\d+(?:\.\d+)?)"
                                  rf"(?=\s*(?:[，。,;；！!？?\n]|${ends}))") if bare else None
        self.tier_re = re.compile(rf"\s*(?:{alt(a['tier_after'], False)})") if a.get("tier_after") else None
        self.moved_re = re.compile(alt(a["moved"])) if a.get("moved") else None
        self.multiplier = {key(k): v for k, v in a["multipliers"].items()}
        self.classifier_like = set(a["classifier_like"])
        self.money_after = re.compile(rf"[\u3400-\u9fff]{{0,3}}?(?:{alt(a.get('classifier_money_zh', []), False)})")
        self.amount_re = re.compile(
            rf"(?<![A-Za-z0-9_.])(?:(?P<pre>{alt(self.prefix)})\s?)?(?P<num>{_NUM}|{zh_n}+|{en_big})"
            rf"(?P<mul>{alt(a['multipliers'])})?(?:\s?(?P<suf>{alt(self.suffix)})(?!\s+{alt(a['suffix_not_before'])}))?"
            r"(?!\d)")
        # ---- counts
        c = lex["count"]
        forms = {k.lower(): v for k, v in c["irregular_en"].items()}
        for noun in c["nouns_en"]:
            words = noun.lower().split()
            forms.setdefault(noun.lower(), noun.lower())
            forms.setdefault(" ".join(words[:-1] + [plural(words[-1])]), noun.lower())
        self.noun_en = forms
        self.not_objects_en = set(c["not_objects_en"])
        stop_words = rf"(?!{alt(c['not_modifiers_en'])})"
        mods = rf"(?:{stop_words}[a-z][a-z'-]*\s+)"  # "three checked bags", "two large pepperonis"
        self.both = {key(w) for w in c.get("both_en", [])}
        self.count_en_re = re.compile(
            rf"(?<![A-Za-z0-9_$€£¥#.,:/-])(?P<n>\d{{1,4}}|{en_big}|{alt(self.both)})(?![A-Za-z0-9_%]|[.,:/]\d|\s*[-–~]\s*\d)\s+"
            rf"(?:{mods}{{0,2}}?(?P<noun>{alt(forms)})|{mods}{{0,2}}?(?P<pl>[a-z]{{2,}}s)(?![a-z'-]))")
        party_n = rf"(?P<n>\d{{1,2}}|{en_n})(?![A-Za-z0-9_%]|[.,:]\d|\s*(?:{alt(lex['time']['am'] + lex['time']['pm'])}|o'?clock))"
        self.party_re = re.compile(  # ranked above a time: "table for 8" is eight people
            rf"(?<![a-z])(?:{alt(c.get('party_before_en', []))})\s+{party_n}")
        t = lex["time"]
        days = alt([*t["days"], *t["weekdays"]["en"], *(m for ms in t["months"] for m in ms)])
        self.party_after = [key(w) for w in c.get("party_after_en", [])]  # a substring test before the pattern
        self.party_after_re = re.compile(  # "there'll be eight of us"
            rf"(?<![a-z0-9])(?P<n>\d{{1,2}}|{en_n})\s+(?:{alt(c['party_after_en'])})") if c.get("party_after_en") else None
        self.party_time_re = re.compile(  # "for 6 at 8 PM", "for 4 tonight", "for 2 on Friday"
            rf"(?<![a-z])for\s+{party_n}(?=\s+(?:at\s+\d|(?:(?:on|this|next)\s+)?{days}))")
        # what a count of containers holds: "2 cartons of oat milk" counts oat milk (up to four words, to
        # the next joiner or mark)
        self.of_item_re = re.compile(r"\s+of\s+(?P<item>[a-z][a-z'-]*(?:\s+(?!(?:and|or|to|for|in|on|at|with|from)\b)"
                                     r"[a-z][a-z'-]*){0,3})")
        self.label_count_re = re.compile(
            rf"(?<![A-Za-z])(?P<noun>{alt(forms)})\**\s*[:：]\s*\**\s*(?P<n>\d{{1,4}})(?![\d.,:/]|\s*[-–]\s*\d)")
        # a listed thing and its count after a times sign (芋泥波波奶茶×2, "Oat Milk x2"): the thing is its name
        self.times_re = re.compile(r"(?P<noun>[\u3400-\u9fff]{2,12}|(?<![a-z])[a-z][a-z' -]{1,40}?[a-z](?=\s))"
                                   r"\s*[×x*]\s?(?P<n>\d{1,3})(?![\d.:/x×*]|,\d)")
        self.count_zh_re = re.compile(
            rf"(?<![第\d.．])(?<!第\s)(?P<n>\d{{1,4}}|{zh_n}{{1,4}})\s*"
            rf"(?P<clf>{alt(c['classifiers_zh'] + c['selfcounted_zh'], False)})")
        self.selfcounted = set(c["selfcounted_zh"])
        self.ends_zh = re.compile(rf"\s*(?:{_EDGE}|$|{alt(c.get('ends_zh', []) or ['$'], False)})")  # (fixh) 牛油果 6 个已经…
        self.total_zh_re = re.compile(rf"(?:{alt(c.get('total_zh', []) + c.get('bought_zh', []), False)})\s*$")
        self.before_zh_re = re.compile(  # 猫粮买 3 袋: a verb between
            rf"(?P<noun>[^{c['stop_zh']}\W\d_A-Za-z]{{2,8}}?)\s*(?:{alt(c.get('adverbs_between_zh', []), False)})?"
            rf"(?:{alt(c.get('verbs_between_zh', []), False)})?\s*$")
        self.people_zh = set(c.get("people_zh", []))
        self.spec_re = re.compile(rf"\s*\d+(?:\.\d+)?\s*(?:{alt(c.get('spec_units', []))})\s*(?:的\s*)?")
        self.noun_zh_re = re.compile(rf"(?!{alt(c['not_objects_zh'], False)})(?:(?!{_EDGE}).){{0,8}}?"
                                     rf"(?P<noun>{alt(c['nouns_zh'], False)})")
        self.next_noun_zh_re = re.compile(rf"(?P<noun>{alt(c['nouns_zh'], False)})")
        self.shape_zh_re = re.compile(  # a noun not in the list: up to three characters before a stop
            rf"(?!{alt(c['not_objects_zh'], False)})(?P<noun>[^{c['stop_zh']}\W\d_A-Za-z]{{1,3}})")
        # ---- a time said roughly: "around 7", 两点左右
        self.approx_before = re.compile(rf"(?:{alt(t.get('approx_before', []))})\s*$")
        self.approx_in = re.compile(alt(t.get("approx_before", [])))
        self.approx_after = re.compile(rf"\s*(?:{alt(t.get('approx_after', []), False)})")
        # ---- ids
        i = lex["ids"]
        self.id_kind = {key(w): kind for kind, words in i["kinds"].items() for w in words}
        self.id_ctx_re = re.compile(
            rf"(?P<ctx>{alt(self.id_kind)})(?:\s*{alt(i['between']['words'])})*\s*[*\"'“「(\[]*\s*"
            # a number written in groups (户号 3100 2287 615, card 4111 1111 1111) is one id
            rf"(?P<tok>\d{{3,6}}(?:[ \u00a0]\d{{3,6}})+(?![\d.,:/])|#?[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?)"
            rf"(?![A-Za-z0-9_])")
        self.id_shape_re = re.compile(  # a token with a digit in it: W2378156, 2FBBAH, gift_card_8190333
            r"(?<![A-Za-z0-9_#@./:$-])(?P<tok>#?(?=[A-Za-z_-]*\d)[A-Za-z0-9][A-Za-z0-9_-]*[A-Za-z0-9])"
            r"(?![A-Za-z0-9_@/-]|\.[A-Za-z0-9])")
        units = alt(i["not_ids"]["suffixes"], False)
        self.not_id_re = re.compile(  # 5-7, 9-11am, 2nd, 5kg, 4k, mp3
            rf"\d+(?:[-–/:.]\d+)+(?:{units})?|\d+(?:\.\d+)?{units}|(?:{alt(i['not_ids']['words'], False)})")
        self.flight_re = re.compile(r"(?:[A-Z]{2,3}|[A-Z]\d|\d[A-Z])\d{1,4}[A-Z]?")
        # ---- choices
        self.choice: dict[str, tuple[str, str] | None] = {}
        for enum, spec in lex["enums"].items():
            for member, words in spec["members"].items():
                for w in words:
                    self.choice.setdefault(key(w), (enum, member))
        for enum, spec in lex["enums"].items():
            for w in spec.get("exclude", []):
                self.choice.setdefault(key(w), None)
        self.choice_re = re.compile(alt(self.choice))
        # a Chinese name that ends in a member's character (雾霾蓝, 烟灰): one or two characters before it
        # (shop names are short: 薄荷绿, 墨绿), none a stop word or a classifier, and the name ends there
        # (a clause mark, 的, a space, the end)
        self.heads = {ch: (enum, member) for enum, spec in lex["enums"].items()
                      for ch, member in spec.get("zh_heads", {}).items()}
        self.head_re = re.compile(
            rf"(?:(?![{c['stop_zh']}要成{''.join(w for w in c['classifiers_zh'] if len(w) == 1)}])[\u3400-\u9fff]){{1,2}}"
            rf"(?P<h>[{''.join(self.heads)}])色?(?={_EDGE}|的|$)") \
            if self.heads else None
        size = lex["enums"].get("size", {})
        num = r"\d{1,2}(?:\.5)?"
        self.size_re = re.compile(  # size 9.5, EU 42, 43 码
            rf"(?<![a-z])(?:{alt(size.get('numeric_before', []))})\s*(?P<a>{num})(?!\d|[.,:/]\d)"
            rf"|(?<![\d.第])(?P<b>{num})\s*(?:{alt(size.get('numeric_after', []), False)})"
            rf"(?!{alt(size.get('numeric_after_not', []), False)})")
        # ---- which end of a stay or a trip a time is: "checking in Dec 17", 12 月 18 日入住
        self.span_before, self.span_after = {}, {}
        for end, spec in lex["time"].get("spans", {}).items():
            self.span_before[end] = re.compile(
                rf"(?:{alt(spec.get('before', []))})(?:\s*(?:on|the|for|at|[:：]|为|是|在))*\s*$")
            self.span_after[end] = re.compile(rf"\s*(?:{alt(spec.get('after', []), False)})")
        # ---- change markers, quotes
        ch = lex["change"]
        self.markers = {**{key(w): "to" for w in ch["to"]}, **{key(w): "from" for w in ch["from"]},
                        **{key(w): None for w in ch["not_to"]}}
        self.marker_ends = tuple(self.markers)
        self.skip = tuple(" " + key(w) for w in ch["skip"])
        self.gone_re = re.compile("|".join(ch["gone"])) if ch.get("gone") else None  # run on lower-cased text
        # each pattern's leading letters: a substring test first (a \b pattern cannot skip ahead)
        self.gone_lits = tuple(re.match(r"(?:\\b)?([^\\(\[?*+{|]*)", g).group(1) for g in ch.get("gone", []))
        self.delta_re = re.compile(r"\b(?:" + "|".join(map(re.escape, ch.get("delta", []))) + r")\b") if ch.get("delta") else None
        adds = sorted(ch.get("add", []), key=len, reverse=True)
        self.add_re = re.compile("(?:" + "|".join(rf"\b{re.escape(w)}" if w.isascii() else re.escape(w) for w in adds)
                                 + r")\s*$") if adds else None
        self.total_res = total_patterns(ch)
        quotes = []
        for n, (o, cl) in enumerate(lex["quotes"]["pairs"]):
            inner = rf"(?:[^{re.escape(cl)}\n]|(?<=[A-Za-z]){re.escape(cl)}(?=[A-Za-z]))+?"
            if o == cl:  # " and ' are quotes only with no letter outside and no space inside
                quotes.append(rf"(?<![A-Za-z0-9]){re.escape(o)}(?!\s)(?P<q{n}>{inner})(?<!\s){re.escape(cl)}"
                              r"(?![A-Za-z0-9])")
            else:
                quotes.append(rf"{re.escape(o)}(?P<q{n}>{inner}){re.escape(cl)}(?![A-Za-z])")
        self.quote_re = re.compile("|".join(quotes))
        self.quote_min = lex["quotes"].get("min_length", 2)
        self.aside_re = re.compile("|".join(lex.get("set_aside", {}).get("patterns", [])) or "(?!)")  # [set_aside]

    # ------------------------------------------------------------ reading
    def extract(self, text: str) -> list[dict]:
        """The values `text` (one clause or one list item) states, in order of position."""
        text = self.aside_re.sub(lambda m: " " * len(m.group(0)), text)  # blanked: positions stay the text's
        low = lower(text)  # every pattern runs on the lower-cased text; values are cut from `text`
        ranked: list[tuple[int, int, int, dict]] = []  # (rank, start, end, value): lower rank wins an overlap
        digits = _DIGIT.search(low) is not None
        cjk = _CJK.search(low) is not None
        self._ids(low, text, ranked, context=True)
        for start, end, fields in self.times.find(text, low):
            ranked.append((2, start, end, {"type": "time", "text": text[start:end], "role": None, **fields}))
        if digits or cjk or not (self.num.words | self.both).isdisjoint(low.replace("-", " ").split()):
            self._amounts(low, text, ranked)
            self._counts(low, text, ranked, cjk)
        if digits:
            self._ids(low, text, ranked, context=False)
        kept: list[tuple[int, int, dict]] = []
        for _rank, start, end, value in sorted(ranked, key=lambda r: (r[0], r[1])):
            if not any(start < e and s < end for s, e, _v in kept):
                kept.append((start, end, value))
        for m in self.choice_re.finditer(low):
            if (hit := self.choice[key(m.group(0))]) is not None:
                kept.append((m.start(), m.end(), {"type": "choice", "text": text[m.start():m.end()], "role": None,
                                                  "enum": hit[0], "value": hit[1], "target": False}))
        heads = cjk and self.head_re is not None and any(h in low for h in self.heads)  # a substring test first
        for m in self.head_re.finditer(low) if heads else ():
            if not any(s < m.end() and m.start() < e for s, e, v in kept if v["type"] == "choice"):
                enum, member = self.heads[m.group("h")]
                kept.append((m.start(), m.end(), {"type": "choice", "text": text[m.start():m.end()], "role": None,
                                                  "enum": enum, "value": member, "target": False}))
        for m in self.size_re.finditer(low) if digits else ():
            kept.append((m.start(), m.end(), {"type": "choice", "text": text[m.start():m.end()], "role": None,
                                              "enum": "size", "value": m.group("a") or m.group("b"), "target": False}))
        for m in self.quote_re.finditer(text):
            inner = m.group(m.lastgroup)
            if len(inner.strip()) >= self.quote_min:
                kept.append((m.start(), m.end(), {"type": "quote", "text": m.group(0), "role": None, "value": inner}))
        kept.sort(key=lambda k: (k[0], k[1]))
        for start, _end, value in kept:
            value["role"] = self._role(low, start)
        _range_roles([v for _s, _e, v in kept if v["type"] == "time"])
        if not (self.context.move_re and self.context.move_re.search(low)):  # "moved from Friday" is a source
            _lone_from([(v, bool(_LENGTH_FROM.search(low, max(0, s - 24), s))) for s, _e, v in kept if v["type"] == "time"])
        for start, end, value in kept:
            if value["type"] == "time" and "span" not in value:
                for name in self.span_before:
                    if self.span_before[name].search(low, max(0, start - 24), start) or \
                            self.span_after[name].match(low, end):
                        value["span"] = name
                        break
        for start, end, value in kept:
            if value["type"] == "time" and value["hour"] is not None and (
                    self.approx_before.search(low, max(0, start - 20), start) or self.approx_in.search(low, start, end)
                    or self.approx_after.match(low, end)):
                value["approx"] = True  # "around 7": a stored 7:45 is what was asked
        _choice_changes([v for _s, _e, v in kept if v["type"] == "choice"])
        if self.moved_re is not None and any(v["type"] == "amount" for _s, _e, v in kept) and self.moved_re.search(low):
            for _s, _e, v in kept:
                if v["type"] == "amount":
                    v["moved"] = True  # money said to move here, not a price told
        self.context.apply(low, text, kept)
        self._gone_and_more(low, kept)
        return [v for _s, _e, v in kept]

    def _gone_and_more(self, low: str, kept: list) -> None:
        """A time where a thing is removed names it as it was ("cancel tomorrow's 9am standup": role
        from; an id there still says which thing was removed); a count said as more of a thing is a
        delta ("add two more people": delta)."""
        if self.gone_re is not None and any(w in low for w in self.gone_lits) and self.gone_re.search(low):
            pieces = [(p.start(), p.end()) for p in _PIECE.finditer(low)]
            gone = [(s, e) for s, e in pieces if self.gone_re.search(low, s, e)]
            for start, _end, value in kept:
                if value["type"] == "time" and value["role"] is None and any(s <= start < e for s, e in gone):
                    value["role"] = "from"
        for start, end, value in kept:
            if value["type"] == "count" and (
                    (self.delta_re is not None and self.delta_re.search(low, start, end))
                    or (self.add_re is not None and self.add_re.search(low[max(0, start - 12):start]))):
                value["delta"] = True
        _totals(low, kept, *self.total_res)

    def _role(self, low: str, start: int) -> str | None:
        """"from" or "to" when a change marker stands right before the value (string tests: a
        regex searched back from each value cost more than all the rest of a clause)."""
        tail = " " + " ".join(low[max(0, start - 24):start].split())
        if tail.endswith(self.skip):
            tail = tail[:tail.rindex(" ")]
        if not tail.endswith(self.marker_ends):
            return None
        for n in range(min(len(tail), 14), 0, -1):
            word = tail[-n:]
            if word in self.markers and (not word[0].isascii() or tail[-n - 1] == " "):
                return self.markers[word]
        return None

    def _amounts(self, low: str, text: str, out: list) -> None:
        for m in self.amount_re.finditer(low):
            pre, suf, num = m.group("pre"), m.group("suf"), m.group("num")
            if not (pre or suf) or (pre and not num[0].isdigit()):
                continue
            if suf in self.classifier_like and _CJK.match(low, m.end()) and not self.money_after.match(low, m.end()):
                continue  # 两块蛋糕 counts cakes
            if self.tier_re is not None and self.tier_re.match(low, m.end()):
                continue  # 59 元档 names a plan by its price
            value = self.num.value(num)
            if value is None:
                continue
            if m.group("mul"):
                value *= self.multiplier[key(m.group("mul"))]
            currency = self.prefix.get(key(pre)) if pre else self.suffix.get(key(suf))
            out.append((3, m.start(), m.end(), {"type": "amount", "text": text[m.start():m.end()], "role": None,
                                                "value": float(value), "currency": currency}))
        for m in self.bare_re.finditer(low) if self.bare_re is not None else ():  # 给房东转5800，
            out.append((3, m.start("n"), m.end("n"), {"type": "amount", "text": text[m.start("n"):m.end("n")],
                                                      "role": None, "value": float(m.group("n")), "currency": None}))

    def _counts(self, low: str, text: str, out: list, cjk: bool) -> None:
        found = []  # (rank, start, end, value, object)
        for m in self.count_en_re.finditer(low):
            pl = m.group("pl")
            if pl is None or pl not in self.not_objects_en:
                obj = self.noun_en[key(m.group("noun"))] if pl is None else singular(pl)
                n = 2 if key(m.group("n")) in self.both else self.num.value(m.group("n"))
                end = m.end()
                if pl is None and (n or 0) > 1 and key(m.group("noun")) == obj and (
                        (h := _HEAD.match(low, end)) and h.group(1) not in self.not_objects_en):
                    obj, end = singular(h.group(1)), h.end()  # "2 guest passes": a singular noun modifies the head
                found.append((5, m.start(), end, n, obj))
        for m in self.party_after_re.finditer(low) if any(w in low for w in self.party_after) else ():
            if (n := self.num.value(m.group("n"))) and n >= 2:  # "eight of us" ("one of us" is no party)
                found.append((1, m.start(), m.end(), n, "person"))
        for rank, pattern in ((1, self.party_re), (5, self.party_time_re)):
            for m in pattern.finditer(low):  # a party: "table for two", "Nopa for 6 at 8 PM"
                found.append((rank, m.start(), m.end(), self.num.value(m.group("n")), "person"))
        for m in self.label_count_re.finditer(low):  # "Total Baggages: 3" (below "Baggage: 2 free checked bags")
            found.append((6, m.start(), m.end(), int(m.group("n")), self.noun_en[key(m.group("noun"))]))
        for m in self.times_re.finditer(low) if ("×" in low or "x" in low or "*" in low) else ():
            found.append((5, m.start(), m.end(), int(m.group("n")), m.group("noun").strip()))
        for m in self.count_zh_re.finditer(low) if cjk else ():
            start, num = m.start(), m.group("n")
            if len(num) > 1 and num[-1] in "两俩" and not num[0].isdigit():
                start, num = m.end("n") - 1, num[-1]  # 鮨一两位 is two people at 鮨一, not twelve
            after = (spec.end() if (spec := self.spec_re.match(low, m.end())) else m.end())  # 24 瓶 550ml 矿泉水
            if m.group("clf") in self.selfcounted:
                obj, end = m.group("clf"), m.end()
            elif (n := self.noun_zh_re.match(low, after) or self.shape_zh_re.match(low, after)) is not None:
                while (head := self.next_noun_zh_re.match(low, n.end())) is not None:
                    n = head  # the head is the last noun: 大床房 counts rooms
                obj, end = n.group("noun"), n.end()
            elif m.group("clf") in self.people_zh:  # 15 位: people
                obj, end = "人", m.end()
            elif self.ends_zh.match(low, m.end()):
                # the thing named before its count (每日鲜语牛奶 3 瓶，; 共 4 张。): that noun, or none
                before = self.before_zh_re.search(low, max(0, start - 12), start)
                if before is None and not self.total_zh_re.search(low, max(0, start - 4), start):
                    continue  # 30 枚一盒: a measure of something else
                obj, end = (before.group("noun") if before else None), m.end()
            else:
                continue
            found.append((5, start, end, self.num.value(num), obj))
        for rank, start, end, value, obj in found:
            if value is not None:
                count = {"type": "count", "text": text[start:end], "role": None, "value": int(value), "object": obj}
                if (of := self.of_item_re.match(low, end)) is not None and not cjk:
                    count["item"] = of.group("item")  # compared with a listed entry's name (value_checks)
                out.append((rank, start, end, count))

    def _ids(self, low: str, text: str, out: list, context: bool) -> None:
        pattern = self.id_ctx_re if context else self.id_shape_re
        for m in pattern.finditer(low):
            tok = text[m.start("tok"):m.end("tok")]
            bare = tok.lstrip("#")
            kind = self.id_kind[key(m.group("ctx"))] if context else None
            has_digit = any(ch.isdigit() for ch in bare)
            has_alpha = any(ch.isalpha() for ch in bare)
            if self.not_id_re.fullmatch(bare.lower()) and not (context and _GROUPED.fullmatch(bare)):
                continue  # (an order number in dashed groups after its word is no range: 48-1290-3371)
            if context:
                ok = (has_digit and (len(bare) >= 3 or tok[0] == "#")) or (bare.isupper() and len(bare) >= 5)
                if not ok:
                    continue
            elif not (has_digit and (has_alpha or tok[0] == "#") and len(bare) >= 4) or self.flight_re.fullmatch(bare):
                continue  # HAT136 is a flight, not an id, unless a context word says so
            value = {"type": "id", "text": tok, "role": None, "value": tok, "kind": kind}
            out.append((1 if context else 4, m.start("tok"), m.end("tok"), value))


# the parts of a sentence a removal covers: cut at clause marks and at "and"/"then" (并, 再, 然后)
_PIECE = re.compile(r"(?:[^，,;；。.!?！？\n]+?)(?=[，,;；。!?！？\n]|\.(?:\s|$)|\s(?:and|then)\s|然后|并且|$)", re.I)
