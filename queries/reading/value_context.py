"""What the words around a clause's values say of them, after values.py has read each value alone.

- A value a thing is moved from: in the part of a sentence that moves a thing ("move Thursday's
  review to Friday", 把周五上午的评审挪到下午两点), a value of the kind of the target said before
  it names the thing as it was (role "from"), not what was asked.
- An end told as a length from a start: a booking of a duration with one clock ("两小时的羽毛球场，
  九点开始", "a 90-minute massage at 3") tells its end (start + length), compared with end fields only.
- A clock range in bare numbers under a day or a day part ("tomorrow afternoon, 2 to 4"): its two
  ends, each with the day and the day part the other expression said.
- A wake-up clock ("wake me up every weekday at 6:30", 明天叫我起床，六点半) is in the morning where
  it is tied to a day or a repeat.
Every word is data in queries/lexicon/values.toml ([change] move, [time.durations], [time.wake],
[time.ranges]).
"""

from __future__ import annotations

import re

from .amount_labels import AmountLabels
from .arrows import arrow_pattern
from .durations import found_lengths
from .instance_types import InstanceTypes
from .measures import Measures
from .value_roles import clock_ranges
from .value_cues import ValueCues
from .word_patterns import alt, key

_PIECE = re.compile(r"(?:[^，,;；。.!?！？\n]+?)(?=[，,;；。!?！？\n]|\.(?:\s|$)|\s(?:and|then)\s|然后|并且|$)", re.I)
_DAY = ("day_offset", "date", "weekday", "week_offset", "day_of_month")
_MOVED_KINDS = ("time", "count", "amount")


class ValueContext:
    def __init__(self, lex: dict, times):  # times: timex.TimeReader (its day parts and their shifts)
        t, ch = lex["time"], lex["change"]
        self.times = times
        self.move_re = re.compile(alt(ch["move"], True)) if ch.get("move") else None
        self.arrow_re = arrow_pattern(ch)  # (fixk) a change set out between two asides (arrows.py)
        self.instances = InstanceTypes(lex)  # (fixk) t3.large, c6.2xlarge (instance_types.py)
        d = t.get("durations", {})
        self.units = {key(k): v for k, v in d.get("units", {}).items()}
        num = rf"\d+(?:\.\d+)?|{times.num.zh}{{1,3}}|{times.num.en}|{alt(d.get('one', []))}|{alt(d.get('half_alone', []), False)}"
        self.duration_re = re.compile(
            rf"(?<![\d.:])(?P<n>{num})\s*-?\s*(?:{alt(d.get('classifier', []), False)})?(?P<half>{alt(d.get('half', []), False)})?"
            rf"\s*(?P<u>{alt(self.units)})"
            rf"(?P<half2>\s*(?:{alt(d.get('and_a_half', []))}))?") if self.units else None
        self.one = {key(w) for w in d.get("one", [])}
        self.half_alone = {key(w) for w in d.get("half_alone", [])}
        self.wait_pre = re.compile(rf"(?:{alt(d.get('not_after', []))})\s*$") if d.get("not_after") else None
        self.wait_post = re.compile(rf"\s*(?:{alt(d.get('not_before', []), False)})") if d.get("not_before") else None
        self.lead_pre = re.compile(rf"(?:{alt(d.get('lead_after', []))})\s*$") if d.get("lead_after") else None
        self.lead_post = re.compile(rf"\s*(?:{alt(d.get('lead_before', []), False)})") if d.get("lead_before") else None
        rg = t.get("ranges", {})
        ends = alt(rg.get("symbols", []), False) + "|" + alt(rg.get("words", []))
        # "2 to 4", "2-4", 2到4: two bare numbers that end their phrase (not "2 to 4 people")
        self.bare_range = re.compile(
            rf"(?<![\d:：.,/$€£¥#-])(?P<a>\d{{1,2}})(?::(?P<am>\d\d))?\s*(?:{ends})\s*(?P<b>\d{{1,2}})(?::(?P<bm>\d\d))?"
            r"(?![\d:：%/]|\.\d)(?=\s*(?:[.,;!?)\]。，！？；、]|$))")
        self.bare_after = re.compile(rf"(?:^|[,，:：;；(（]|(?:{alt(rg.get('bare_after', []))}))\s*$")
        ids = lex.get("ids", {})  # an id given as another person's: 她会员号 M20931, "his member number is"
        kinds = [w for ws in ids.get("kinds", {}).values() for w in ws]
        self.others_re = re.compile(rf"(?:{alt(ids['others']['words'])})\s*(?:{alt(kinds)})?"
                                    rf"(?:\s*(?:{alt(ids.get('between', {}).get('words', []))}))*\s*$"
                                    ) if ids.get("others", {}).get("words") else None
        w = t.get("wake", {})
        self.wake_re = re.compile(alt(w["words"])) if w.get("words") else None
        self.wake_part = w.get("part", "morning")
        self.measures = Measures(lex, times.num)  # temperatures and percentages told
        self.labels = AmountLabels(lex)  # an amount named by the word beside it (押金 350 元)
        self.cues = ValueCues(lex, times.num)  # what the words right beside a value say it is (value_cues.py)
        # (fixh) words naming a text a write stores, before a quotation's colon (tables._claim_values)
        self.text_said = re.compile(alt(lex.get("fields", {}).get("text_said", []) or ["$^"]))

    def apply(self, low: str, text: str, kept: list) -> None:
        """Mark and add values in `kept` ((start, end, value) in order of position) in place."""
        self.instances.add(low, text, kept)
        clock_ranges(kept, bool(self.move_re and self.move_re.search(low)))  # (fixk) "from 2:00 to 5:00 PM"
        self.measures.add(low, text, kept)
        self.labels.apply(low, kept)
        times = [v for _s, _e, v in kept if v["type"] == "time"]
        if times and any(ch.isdigit() for ch in low):
            self._bare_range(low, text, kept, times)
        if self.wake_re is not None and times and self.wake_re.search(low):
            repeat = any(v["type"] == "choice" and v["enum"] == "repeat" for _s, _e, v in kept)
            for v in times:
                # a day to come (today's may be a nap: "wake me today at 4:30" said at 2 PM)
                later = v.get("day_offset") not in (None, 0) or any(v.get(k) is not None for k in _DAY[1:])
                if v.get("ambiguous_12h") and 1 <= v["hour"] <= 11 and (repeat or later):
                    v["ambiguous_12h"], v["part"] = False, self.wake_part
        if self.duration_re is not None and times:
            self._by_length(low, text, kept)
        if self.move_re is not None and any(v["role"] == "to" for _s, _e, v in kept) and self.move_re.search(low):
            self._moved_from(low, kept)
        if self.duration_re is not None:
            found_lengths(self, low, text, kept)  # "two hours", 停车两小时: a length of its own (durations.py)
        for s, _e, v in kept if self.others_re is not None else ():
            if v["type"] == "id" and self.others_re.search(low, max(0, s - 28), s):
                v["other"] = True  # another person's id: who else it is for (not asked of the user's write)
        self.cues.apply(low, text, kept)

    def _bare_range(self, low: str, text: str, kept: list, times: list) -> None:
        if any(v["hour"] is not None for v in times):
            return
        days = [v for v in times if v["role"] != "from" and (v.get("part") or any(v.get(k) is not None for k in _DAY))]
        found = list(self.bare_range.finditer(low))
        if len(days) != 1 or len(found) != 1:
            return
        day, m = days[0], found[0]
        ends_at = next(e for _s, e, v in kept if v is day)
        if not (ends_at <= m.start() and (not low[ends_at:m.start()].strip() or self.bare_after.search(low, 0, m.start()))):
            return  # "seats 2-4": a range of something else
        a, b = int(m.group("a")), int(m.group("b"))
        if not (1 <= a <= 12 and 1 <= b <= 12):
            return
        ends = []
        for h, mi in ((a, m.group("am")), (b, m.group("bm"))):
            hour = self.times._shifted({"hour": h, "part": day["part"]}) if day.get("part") else h
            ends.append({**day, "hour": hour % 24, "minute": int(mi or 0), "ambiguous_12h": not day.get("part")})
        if not day.get("part") and a > b or day.get("part") and ends[0]["hour"] > ends[1]["hour"]:
            return  # "11 to 1" under no day part; a range that ends before it starts
        kept[:] = [k for k in kept if k[2] is not day]
        kept.append((m.start("a"), m.end("am") if m.group("am") else m.end("a"),
                     {**ends[0], "text": text[m.start("a"):m.end("a")], "span": "start"}))
        kept.append((m.start("b"), m.end(), {**ends[1], "text": text[m.start("b"):m.end()], "span": "end"}))
        kept.sort(key=lambda k: (k[0], k[1]))

    def _by_length(self, low: str, text: str, kept: list) -> None:
        """A length with one clock: the thing's end (start + length), or with a lead word the time a
        reminder is asked for (the clock less the length: 提前十分钟, "15 minutes before my 3 PM")."""
        clocks = [(s, e, v) for s, e, v in kept if v["type"] == "time" and v["hour"] is not None and v["role"] != "from"]
        found = list(self.duration_re.finditer(low)) if len(clocks) == 1 else []
        if len(found) != 1:
            return
        m, (s, e, clock) = found[0], clocks[0]
        lead = bool(self.lead_pre and self.lead_pre.search(low, max(0, m.start() - 12), m.start())
                    or self.lead_post and self.lead_post.match(low, m.end()))
        if not lead and (self.wait_pre and self.wait_pre.search(low, max(0, m.start() - 12), m.start())
                         or self.wait_post and self.wait_post.match(low, m.end())):
            return  # a wait, a repeat, an extension
        n = key(m.group("n"))
        count = 1 if n in self.one else 0.5 if n in self.half_alone else self.times.num.value(n)
        if count is None:
            return
        minutes = int(float(count) * self.units[key(m.group("u"))] + (30 if m.group("half") or m.group("half2") else 0))
        at = clock["hour"] * 60 + clock["minute"] + (-minutes if lead else minutes)
        if not 0 < minutes <= 12 * 60 or not 0 <= at < 24 * 60 or (not lead and clock.get("span") not in (None, "start")):
            return
        said = text[min(s, m.start()):max(e, m.end())]  # the words of both, as written
        if lead:  # compared like any time: where the write holds it, the event's clock is about another field
            value = {**{k: v for k, v in clock.items() if k != "span"}, "hour": at // 60, "minute": at % 60,
                     "text": said, "lead": True}
        else:
            clock["span"] = "start"
            value = {**clock, "hour": at // 60, "minute": at % 60, "span": "end", "span_only": True, "text": said}
        kept.append((max(e, m.end()), max(e, m.end()), value))

    def _moved_from(self, low: str, kept: list) -> None:
        for p in _PIECE.finditer(low):
            inside = [(s, v) for s, _e, v in kept if p.start() <= s < p.end()]
            for s, v in inside:
                if v["role"] != "to" or v["type"] not in _MOVED_KINDS or not self.move_re.search(low, p.start(), s):
                    continue
                for s0, v0 in inside:
                    if s0 < s and v0["type"] == v["type"] and v0["role"] is None:
                        v0["role"] = "from"  # "move Thursday's review to Friday": Thursday was
