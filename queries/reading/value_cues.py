"""What the words right beside a value say it is, after values.py has read each value alone (fixh,
dev set 15t). Each is a way people write, its words data in queries/lexicon/values.toml:

- A payment method's word that also names a thing given (a voucher, a travel certificate) is the
  method only after a word of paying with it ("paid with your voucher", 用代金券); "a $15 voucher
  has been issued" names the thing issued (`[enums.payment] given`, `means_before`).
- A payment method after "from" is where the money comes from (从储蓄账户扣, "pay it from savings"),
  the method chosen, not the source of a change, unless a member of the same kind is its target
  ("switch from card to PayPal") (`[change] source_enums`).
- Two numbers over a slash before a word of state ("6/6 Ready", 3/3 就绪) count things ready, not a
  date (`[time] ratio_before`).
- An amount after a bound word ("below $50", 低于 50 元) is a condition's bound: it is compared only
  with a field that holds a bound (threshold, min_balance) (`[amount] bound_before`, `[fields] bound`).
- A count of what is left ("4 left", "3 remaining", 还剩 2 次) is compared only with a field of what is
  left (remaining, left, balance) (`[count] left_after`, `left_before_zh`, `[fields] left`).
- An id in a sentence telling what befell the speaker's own thing ("my flight UA12 got cancelled",
  我的航班被取消了) names the thing as it was (role "from"), not the one asked for (`[change] befell`,
  `befell_owner`; a reply's "QX4TRM was cancelled" tells its own act).
- A value in the part of a sentence saying it could not be had ("16:00 已经约满", "the 7:30 was fully
  booked") names what was not done: role "from" (`[change] unavailable`).
- A count of a unit with no thing after it ("eggs bumped to 3 dozen") counts the unit (`[count]
  unit_counts_en`); a supply told in days ("a 90-day supply", 开 90 天的量) is a length of days, compared
  with a field of a supply (days_supply) (`[time.durations] supply_days`, `supply_after`).
- A count of people after the speaker and others listed ("me, my wife, and our three kids", 我和老婆
  带两个孩子) is part of the party: the party is the people listed plus the count
  (`[count] party_lead`, `party_joiners`, `party_determiners`; English only: a Chinese 我 sits inside
  any request, 帮我订).
"""

from __future__ import annotations

import re

from .word_patterns import alt, key

_PIECE = re.compile(r"[^，,;；。!?！？\n]+")  # a part of a sentence, to its clause mark
_SENTENCE = re.compile(r"[^。!?！？\n]+?(?:[。!?！？\n]|\.(?:\s|$)|$)")
_RATIO = re.compile(r"\d{1,3}\s*/\s*\d{1,3}")


class ValueCues:
    def __init__(self, lex: dict, num):  # num: numerals.Numerals
        self.num = num
        pay = lex["enums"].get("payment", {})
        self.given = {key(w) for w in pay.get("given", [])}
        self.means_re = re.compile(
            rf"(?:{alt(pay.get('means_before', []))})\s*(?:(?:your|my|the|a|an|this|that|our|his|her|我的|你的|您的)\s*)?"
            r"(?:[$€£¥￥]?\s?\d[\d,.]*\s*(?:元|块)?\s*)?(?:[a-z]+\s+)?$") if pay.get("means_before") else None
        self.source_enums = set(lex["change"].get("source_enums", []))
        t = lex["time"]
        self.ratio_re = re.compile(rf"\s*(?:{alt(t['ratio_before'])})") if t.get("ratio_before") else None
        a = lex["amount"]
        self.bound_re = re.compile(rf"(?:{alt(a['bound_before'])})\s*$") if a.get("bound_before") else None
        c = lex["count"]
        n = rf"\d{{1,4}}|{num.en}|{num.zh}{{1,3}}"
        self.left_re = re.compile(
            rf"(?<![\w$.,/:-])(?P<n>{n})\s+(?:[a-z][a-z'-]*\s+){{0,2}}?(?:{alt(c['left_after'])})(?![a-z])"
            + (rf"|(?:{alt(c['left_before_zh'], False)})\s*(?P<z>{n})\s*(?:{alt(c['classifiers_zh'], False)})?"
               if c.get("left_before_zh") else "")) if c.get("left_after") else None
        self.units_re = re.compile(rf"(?<![\w$.,/:-])(?P<n>\d{{1,3}}|{num.en})\s+(?:{alt(c['unit_counts_en'])})(?!\s+[a-z])"
                                   ) if c.get("unit_counts_en") else None
        d = t.get("durations", {})
        self.supply_re = re.compile(
            rf"(?<![A-Za-z0-9_.])(?P<n>\d{{1,3}}|{num.en}|{num.zh}{{1,3}})\s*-?\s*(?:{alt(d['supply_days'], False)})(?:'s)?\s*"
            rf"(?:{alt(d['supply_after'], False)})(?![a-z])") if d.get("supply_days") and d.get("supply_after") else None
        self.people = {w.lower() for w in c.get("people", [])}
        self.lead_re = re.compile(rf"(?:^|[\s:：,，—-])(?:{alt(c['party_lead'])})") if c.get("party_lead") else None
        joiner = rf"(?:,|，|、|&|(?:{alt(c.get('party_joiners', []))}))"
        self.joiners = re.compile(rf"\s*{joiner}\s*")
        self.joiner_end = re.compile(rf"{joiner}\s*$")
        self.determiners = {key(w) for w in c.get("party_determiners", [])}
        ch = lex["change"]  # a thing that befell the user ("my flight X got cancelled"): its id is the old one
        self.befell_re = re.compile("|".join(ch["befell"])) if ch.get("befell") else None
        self.owner_re = re.compile(alt(ch.get("befell_owner", []) or ["$^"]))
        self.unavailable_re = re.compile("|".join(ch["unavailable"])) if ch.get("unavailable") else None

    def apply(self, low: str, text: str, kept: list) -> None:
        """Mark, drop and add values in `kept` ((start, end, value) in order of position) in place."""
        drop = []
        targets = {v["enum"] for _s, _e, v in kept if v["type"] == "choice" and v["role"] == "to"}
        for s, e, v in kept:
            if v["type"] == "choice" and v["enum"] == "payment" and key(v["text"]) in self.given and (
                    self.means_re is None or not self.means_re.search(low, max(0, s - 40), s)):
                drop.append(v)  # a voucher issued, not a voucher paid with
            elif v["type"] == "choice" and v["role"] == "from" and v["enum"] in self.source_enums \
                    and v["enum"] not in targets:
                v["role"] = None  # the account the money comes from
            elif v["type"] == "time" and self.ratio_re is not None and _RATIO.fullmatch(v["text"].strip()) \
                    and self.ratio_re.match(low, e):
                drop.append(v)  # 6/6 Ready: six of six
            elif v["type"] == "amount" and self.bound_re is not None and self.bound_re.search(low, max(0, s - 16), s):
                v["bound"] = True
        if self.befell_re is not None and any(v["type"] == "id" for _s, _e, v in kept) and self.befell_re.search(low):
            for sent in _SENTENCE.finditer(low):
                if self.befell_re.search(low, sent.start(), sent.end()) and self.owner_re.search(low, sent.start(), sent.end()):
                    for s, _e, v in kept:
                        if v["type"] == "id" and v["role"] is None and sent.start() <= s < sent.end():
                            v["role"] = "from"  # the flight that was cancelled, not the one asked for
        if self.unavailable_re is not None and self.unavailable_re.search(low):
            for p in _PIECE.finditer(low):
                if self.unavailable_re.search(low, p.start(), p.end()):
                    for s, _e, v in kept:
                        if v["type"] in ("time", "count", "amount", "choice") and v["role"] is None and p.start() <= s < p.end():
                            v["role"] = "from"  # 16:00 已经约满: the slot not had
        if drop:
            kept[:] = [k for k in kept if not any(k[2] is d for d in drop)]
        self._add(low, text, kept)
        if self.left_re is not None and ("left" in low or "remain" in low or "剩" in low):
            self._left(low, text, kept)
        if self.lead_re is not None:
            for s, _e, v in kept:
                if v["type"] == "count" and not v.get("party") and singular_of(v.get("object")) in self.people:
                    self._party(low, s, v)

    def _add(self, low: str, text: str, kept: list) -> None:
        """Values no other pattern reads: a count of a unit ("3 dozen"), a supply of days (90 天的量)."""
        for pattern, kind in ((self.units_re, "count"), (self.supply_re, "duration")):
            for m in pattern.finditer(low) if pattern is not None else ():
                n = self.num.value(m.group("n"))
                over = [k for k in kept if k[0] < m.end() and m.start() < k[1]]
                # (over "90-day" read by its shape as an id, or "三十天" read as a plain length: fixk)
                if n is None or any((v["type"] != "id" or v.get("kind")) and v["type"] != "duration" for _s, _e, v in over):
                    continue
                kept[:] = [k for k in kept if k not in over]  # "90-day" read by its shape as an id
                value = ({"value": int(n), "object": None} if kind == "count" else {"minutes": float(n) * 1440, "supply": True})
                kept.append((m.start(), m.end(), {"type": kind, "text": text[m.start():m.end()], "role": None, **value}))
        kept.sort(key=lambda k: (k[0], k[1]))

    def _left(self, low: str, text: str, kept: list) -> None:
        for m in self.left_re.finditer(low):
            g = "n" if m.group("n") else "z"
            at = m.start(g)
            value = self.num.value(m.group(g))
            if value is None:
                continue
            same = next((v for s, _e, v in kept if v["type"] == "count" and s == at), None)
            if same is not None:
                same["left"] = True
            elif not any(s < m.end(g) and at < e for s, e, _v in kept):
                end = at + len(text[at:m.end()].rstrip())
                kept.append((at, end, {"type": "count", "text": text[at:end], "role": None,
                                           "value": int(value), "object": None, "left": True}))
        kept.sort(key=lambda k: (k[0], k[1]))

    def _party(self, low: str, start: int, v: dict) -> None:
        """me, my wife, and our three kids: two listed before the count of three, a party of five."""
        piece = low[max(0, start - 60):start]
        leads = list(self.lead_re.finditer(piece))
        if not leads:
            return
        before = piece[leads[-1].start():].strip(" :：—-")  # the last mention of the speaker starts the list
        parts = [p.strip() for p in self.joiners.split(before) if p.strip()]
        if not self.joiner_end.search(before):
            # the count's own words after the last joiner ("our" three kids, "my" 2 sons): no person
            if not parts or parts[-1] not in self.determiners:
                return
            parts = parts[:-1]
        if not parts or len(parts) > 6 or any(len(p.split()) > 3 or any(ch.isdigit() for ch in p) for p in parts):
            return
        v["value"] = int(v["value"]) + len(parts)
        v["party"] = True


def singular_of(obj) -> str:
    if not obj:
        return ""
    o = obj.lower()
    return o[:-1] if o.endswith("s") and not o.endswith("ss") else o
