"""Time expressions: the part of value reading that knows clocks and calendars.

TimeReader finds the time expressions of one clause (numbers are read by
numerals.Numerals). One compiled pattern finds the parts: a date (2024-05-17, May 21, 2024,
21 May, 11/17, 11月17日, 17号), a day word (tomorrow, 明早), a weekday (next
Friday, 下周一), a day part (in the evening, 下午) and a clock (8:30 p.m., 8am,
at 8, noon, 八点, 8点半, 七点一刻). Neighbouring parts with nothing but a joiner
between them ("tomorrow at 8", "5月20日 晚上8点") make one expression, with at
most one part of each kind; its fields are then normalised: the day part moves
the hour (下午3点 = 15, 晚上12点 = 0), and an hour with neither am/pm nor a day
part, written on a 12-hour dial, is `ambiguous_12h` (the comparer accepts any
hour equal to it modulo 12). A range ("2–4 PM", 下午 3 点到 4 点, "Dec 18–20") is two
expressions, its start and its end (`span`), each borrowing what the other said of
the day and the day part. Every word is data in queries/lexicon/values.toml.
"""

from __future__ import annotations

import re

from .word_patterns import alt, first, key, lower

_SHIFTS = {
    "none": lambda h: h,
    "am": lambda h: 0 if h == 12 else h,
    "pm": lambda h: h + 12 if h < 12 else h,
    "noon": lambda h: h + 12 if 1 <= h <= 5 else h,
    "evening": lambda h: 0 if h == 12 else (h + 12 if h < 12 else h),
    "night": lambda h: 0 if h == 12 else (h + 12 if 6 <= h < 12 else h),
}
_PUNCT = r"[.,;!?)\]。，！？；、]"
_TIME_FIELDS = ("hour", "minute", "day_offset", "date", "day_of_month", "weekday", "week_offset", "part", "zone")


class TimeReader:
    def __init__(self, lex: dict, numerals):  # numerals.Numerals
        t = lex["time"]
        self.num = numerals
        self.days = {key(k): v for k, v in t["days"].items()}
        self.months = {key(name): n for n, names in enumerate(t["months"], 1) for name in names}
        wd = t["weekdays"]
        self.weekdays_en = {key(k): v for k, v in wd["en"].items()}
        self.weekdays_zh, self.week_zh = wd["zh_days"], wd["week_zh"]
        self.week_en = {key(k): v for k, v in wd["week_en"].items()}
        self.named = {key(k): v for k, v in t["named"].items()}
        self.part_of: dict[str, str] = {}
        self.shift_of: dict[str, str] = {}
        self.short: set[str] = set()
        for name, spec in t["parts"].items():
            self.shift_of[name] = spec["shift"]
            self.short.update(spec.get("short", []))
            for w in spec["words"]:
                self.part_of[key(w)] = name
        self.am = {key(w) for w in t["am"]}
        self.one_after = tuple(t["zh_one_oclock_after"])
        self.dian_not_after = tuple(t["zh_dian_not_after"])
        self.timed = re.compile(alt(t["timed_things"]))
        zh_n, zh_small, en_n = numerals.zh, numerals.zh_small, numerals.en
        d2, d4, zh_d = r"\d{1,2}", r"\d{4}", rf"(?:\d{{1,2}}|{zh_small}{{1,3}})"  # a day, a year, an hour
        ampm = alt(t["am"] + t["pm"])
        zone = r"(?:\s*(?P<{}>" + alt(t["zones"]) + "))?"
        gr = t["grammar"]
        self.fractions = {key(k): v for k, v in gr["fractions"].items()}
        # a day of the month in a month told from the turn's (下个月 1 号, "the 1st of next month")
        self.month_before = {key(k): v for k, v in gr.get("month_before", {}).items()}
        self.month_after = {key(k): v for k, v in gr.get("month_after", {}).items()}
        self.month_before_re = re.compile(rf"(?:{alt(self.month_before)})(?:\s*的)?\s*$")
        self.month_after_re = re.compile(rf"\s+(?:{alt(self.month_after)})")
        self.to_words = {key(w) for w in gr["to"]}
        self.zh_minutes, self.little = gr["zh_minutes"], set(gr["zh_little"])
        months, nth = alt(self.months), rf"(?:{alt(gr['ordinal'], False)})"
        hour_en = rf"(?:\d{{1,2}}|{en_n})"
        day_words = [*self.days, *self.part_of, *self.weekdays_en, *self.week_en, *self.months]
        strong_follow, weak_follow = alt(day_words + t["hour_followers"]), alt(day_words)
        num_first = "[\\d" + zh_n[1:-1] + "".join(sorted({w[0] for w in numerals.en_words})) + "]"
        wd_first = first([*self.week_zh, *wd["zh_prefixes"], *self.week_en, *self.weekdays_en])
        preps = t["bare_hour_after"] + t["weak_hour_after"]
        dom_first = "".join(sorted({re.escape(w[0].lower()) for w in gr["day_of_month_before"]}))
        not_num = r"(?<![A-Za-z0-9_$€£¥￥.:/#])"
        after_wd = "(?:" + "|".join(rf"(?<={re.escape(w)}{sep}{re.escape(x)} )" for w in sorted(self.weekdays_en)
                                    for x in gr.get("day_of_month_after_weekday", []) for sep in (" ", ", ")) + ")" \
            if gr.get("day_of_month_after_weekday") else "(?!)"
        parts = [  # each begins with a lookahead for its first character: a part that cannot start fails fast
            rf"(?P<iso>(?=\d)(?<![\d/.-])(?P<iso_y>{d4})[-/.](?P<iso_m>{d2})[-/.](?P<iso_d>{d2})(?![\d/-]))",
            rf"(?P<zhd>(?={num_first})(?:(?P<zhd_y>{d4}|{zh_n}{{4}})\s*{alt(gr['zh_year'])}\s*)?(?P<zhd_m>{zh_d})\s*"
            rf"{alt(gr['zh_month'])}\s*(?P<zhd_d>{zh_d})\s*{alt(gr['zh_day'])})",
            rf"(?P<us>(?=\d)(?<![A-Za-z0-9_/.-])(?P<us_m>{d2})/(?P<us_d>{d2})(?:/(?P<us_y>{d4}|\d\d))?"
            rf"(?![A-Za-z0-9_/]))",
            rf"(?P<dmy>(?=\d)(?<![A-Za-z0-9_.-])(?P<dmy_d>{d2}){nth}?\s+(?:{alt(gr['month_of'])}\s+)?(?P<dmy_m>{months})"
            rf"(?:,?\s+(?P<dmy_y>{d4}))?)",
            rf"(?P<clock>(?=\d){not_num}(?<!-)(?P<clock_h>{d2})(?:[:：](?P<clock_m>\d\d)(?!\d)(?::\d\d)?"
            rf"(?:\s*(?P<clock_ap>{ampm}))?|\.(?P<clock_dm>\d\d)\s*(?P<clock_dap>{ampm})){zone.format('clock_z')})",
            rf"(?P<ampm>(?={num_first}){not_num}(?P<ampm_h>{hour_en})\s*(?P<ampm_ap>{ampm}|o'?clock(?![A-Za-z]))"
            rf"{zone.format('ampm_z')})",
            rf"(?P<past>{first(self.fractions)}(?P<past_q>{alt(self.fractions)})\s+(?P<past_d>{alt(gr['past'] + gr['to'])})"
            rf"\s+(?P<past_h>{hour_en})"
            rf"(?![A-Za-z0-9_:]))",
            rf"(?P<mdy>{first(self.months)}(?<![A-Za-z])(?P<mdy_m>{months})\.?\s+(?P<mdy_d>{d2}){nth}?(?![\d:])"
            rf"(?:,?\s+(?P<mdy_y>{d4}))?)",
            rf"(?P<named>{first(self.named)}{alt(self.named)})",
            # 八点, 8点半, 七点一刻, 十点十五, 8时30分; not 三点建议
            rf"(?P<zhc>(?={num_first})(?<![\d.])(?P<zhc_h>{zh_d})\s*(?:{alt(gr['zh_hour'])}"
            rf"(?!{alt(t['zh_dian_not_before'])})|(?<=\d){alt(gr['zh_hour_formal'])}(?=\d|{zh_small}|{alt(self.zh_minutes)}))"
            rf"(?:(?P<zhc_q>{alt(self.zh_minutes)})|(?![两俩])(?P<zhc_m>{zh_d})(?:(?!{alt(gr['zh_not_minute'])}){alt(gr['zh_minute'])})?"
            # 5 点 40 written with a space: two digits, no count or duration after them (3 点 20 个人)
            rf"|\s+(?P<zhc_s>\d\d)(?![\d.:])(?!\s*(?:{alt(gr['zh_not_minute'] + lex['count']['classifiers_zh'] + lex['count']['selfcounted_zh'], False)})))?)",
            # 17号 (not 3号线), 17日, "on the 21st"
            rf"(?P<dom>(?=[\d{zh_small[1:-1]}{dom_first}])(?<![\d第.])(?P<dom_d>{zh_d})\s*{alt(gr['zh_day_alone'])}"
            rf"(?!{alt(t['zh_day_not_before'])})|{alt(gr['day_of_month_before'])}\s+(?P<dom_e>{d2}){nth}(?![A-Za-z])"
            rf"|(?<![\d第.])(?P<dom_a>{d2}){alt(gr['zh_day_alone_arabic'])}"
            # "Tuesday the 8th": a weekday's day of the month (joined to the weekday as one time)
            rf"|{after_wd}(?P<dom_w>{d2}){nth}(?![A-Za-z]))",
            rf"(?P<day>{first(self.days)}{alt(self.days)})",
            rf"(?P<wd>{wd_first}(?:(?P<wd_wz>{alt(self.week_zh, False)})?(?P<wd_p>{alt(wd['zh_prefixes'], False)})"
            rf"(?P<wd_z>[{''.join(self.weekdays_zh)}]))"
            rf"|(?:(?P<wd_we>{alt(self.week_en)})\s+)?(?P<wd_e>{alt(self.weekdays_en)}))",
            rf"(?P<part>{first(self.part_of)}{alt(self.part_of)})",
            # "at 8" before the end, a day or a day part; "for 8" only before a day or a day part, or at
            # the end of a clause that names a timed thing (bare_end)
            rf"(?P<bare>{first(preps)}(?<![A-Za-z])"
            rf"(?:(?P<bare_s>{alt(t['bare_hour_after'])})|{alt(t['weak_hour_after'])})"
            rf"\s+(?P<bare_h>{hour_en})(?:\s*(?P<bare_ap>{ampm}|o'?clock(?![A-Za-z])){zone.format('bare_z')}"
            rf"|(?![A-Za-z0-9_%$]|[:.,]\d)(?(bare_s)(?=\s*(?:{_PUNCT}|$)|\s+{strong_follow})"
            rf"|(?=\s*(?:{_PUNCT}|$)(?P<bare_end>)|\s+{weak_follow}))))",
        ]
        self.pattern = re.compile("|".join(parts))
        # where a part can start: a digit, a Chinese numeral or word's first character, an English
        # word's first letter; the pattern is tried only there (15 parts at every position cost 5x)
        cjk_first = {w[0] for w in [*self.days, *self.part_of, *self.named, *self.week_zh, *wd["zh_prefixes"]]
                     if not w[0].isascii()}
        self.starts = re.compile(rf"[\d@{zh_n[1:-1]}{''.join(sorted(cjk_first))}]|(?<![a-z])(?P<w>[a-z]+)")
        english = [*day_words, *self.named, *self.week_en, *t["bare_hour_after"], *t["weak_hour_after"],
                   *numerals.en_words, *self.fractions, *gr["day_of_month_before"]]
        self.first_words = {w.split()[0] for w in map(key, english) if w[:1].isalpha()}
        joiners = alt(t["joiners"])
        self.joiner = re.compile(rf"[\s,，]*(?:{joiners}[\s,，]*){{0,2}}")
        rg = t.get("ranges", {})
        sym, word = alt(rg.get("symbols", []), False), alt(rg.get("words", []))
        self.range_sym = re.compile(rf"\s*(?:{sym})\s*")  # between two expressions: "3 点到 4 点"
        bare = rf"(?P<h>\d{{1,2}})(?:[:：](?P<m>\d\d))?(?:\s*(?P<ap>{ampm}))?"
        # a bare start before an expression ("2–4 PM", "from 2 to 4 PM"), searched back from it
        self.range_before = re.compile(rf"(?<![\d:：.,/$€£¥#-]){bare}\s*(?:(?P<sym>{sym})|{word})\s*$")
        # a bare end after one ("9:00-11:00", "Dec 18–20")
        self.range_after = re.compile(rf"\s*(?:{sym})\s*{bare}(?:\s*(?P<d>{alt(gr['zh_day'])}))?(?![\d:：/A-Za-z]|\.\d)")

    # ------------------------------------------------------------ parts
    def _part(self, m: re.Match, text: str, written: str):
        """(start, end, {slot: fields}) for one part matched in `text` (lower case), or None when it
        is not one; `written` is the text as written."""
        kind = m.lastgroup
        g = m.group
        if kind in ("iso", "zhd", "us", "dmy", "mdy"):
            if kind == "iso":
                y, mo, d = g("iso_y"), g("iso_m"), g("iso_d")
            elif kind == "zhd":
                y, mo, d = g("zhd_y"), g("zhd_m"), g("zhd_d")
            elif kind == "us":
                y, mo, d = g("us_y"), g("us_m"), g("us_d")
            else:
                y, d = g(kind + "_y"), g(kind + "_d")
                mo = str(self.months[key(g(kind + "_m").rstrip("."))])
            y, mo, d = (self.num.value(y) if y else None), self.num.value(mo), self.num.value(d)
            if y is not None and y < 100:
                y += 2000
            if not (mo and d and 1 <= mo <= 12 and 1 <= d <= 31):
                return None
            date = f"{y:04d}-{mo:02d}-{d:02d}" if y else f"{mo:02d}-{d:02d}"
            return m.start(), m.end(), {"date": date}
        if kind == "dom":
            d = self.num.value(g("dom_d") or g("dom_e") or g("dom_a") or g("dom_w"))
            start, end = (m.start("dom_e") if g("dom_e") else m.start()), m.end()
            if not (d and 1 <= d <= 31):
                return None
            fields = {"day_of_month": d}
            if (b := self.month_before_re.search(text, max(0, start - 12), start)) is not None:
                start, fields["month_offset"] = b.start(), self.month_before[key(b.group(0).rstrip(" 的"))]
            elif (a := self.month_after_re.match(text, end)) is not None:
                end, fields["month_offset"] = a.end(), self.month_after[key(a.group(0))]
            return start, end, fields
        if kind == "day":
            spec = self.days[key(g(kind))]
            fields = {"day_offset": spec["day"]}
            if "part" in spec:
                fields["part"] = spec["part"]
            return m.start(), m.end(), fields
        if kind == "wd":
            if g("wd_z"):
                week = self.week_zh.get(g("wd_wz"), 0) if g("wd_wz") else 0
                return m.start(), m.end(), {"weekday": self.weekdays_zh[g("wd_z")], "week_offset": week}
            week = self.week_en.get(key(g("wd_we")), 0) if g("wd_we") else 0
            return m.start(), m.end(), {"weekday": self.weekdays_en[key(g("wd_e"))], "week_offset": week}
        if kind == "part":
            word = g(kind)
            return m.start(), m.end(), {"part": self.part_of[key(word)], "_short": word in self.short,
                                        "_alone": " " in word.strip() or (len(word) > 1 and not word.isascii())}
        return self._clock(kind, m, text, written)

    def _clock(self, kind: str, m: re.Match, text: str, written: str):
        g = m.group
        ap = zone = None
        minute, fixed, start = 0, False, m.start()
        if kind == "clock":
            hour_s = g("clock_h")
            minute = int(g("clock_m") or g("clock_dm"))
            ap, zone = g("clock_ap") or g("clock_dap"), "clock_z"
            fixed = len(hour_s) == 2 and hour_s[0] == "0"
        elif kind == "ampm":
            hour_s, ap, zone = g("ampm_h"), g("ampm_ap"), "ampm_z"
        elif kind == "past":
            hour_s, minute = g("past_h"), self.fractions[key(g("past_q"))]
            if key(g("past_d")) in self.to_words:  # quarter to 9 = 8:45
                minute, hour_s = 60 - minute, str((self.num.value(hour_s) or 0) - 1 or 12)
        elif kind == "named":
            hour, minute = self.named[key(g(kind))]
            return start, m.end(), {"hour": hour, "minute": minute, "_fixed": True}
        elif kind == "zhc":
            hour_s = g("zhc_h")
            if text[:start].endswith(self.dian_not_after):
                return None  # 有3点, 以下两点
            if g("zhc_q"):
                minute = self.zh_minutes[g("zhc_q")]
            elif g("zhc_m") or g("zhc_s"):
                minute = self.num.value(g("zhc_m") or g("zhc_s"))
            if g(kind) in self.little and not text[:start].endswith(self.one_after):
                fixed = None  # "一点" is also "a little": only next to a day or a day part
        else:  # bare: "at 8", "for 8 tomorrow", "at 4 p.m."
            hour_s, start, ap, zone = g("bare_h"), m.start("bare_h"), g("bare_ap"), "bare_z"
            if g("bare_end") is not None and not self.timed.search(text):
                return None  # "table for 2." is no time; "reminder set for 8." is
            weak = g("bare_s") is None and not ap  # "for 8 tomorrow": an hour only if no clock follows
        if ap and ap.startswith("o"):
            ap = None  # o'clock
        hour = self.num.value(hour_s)
        if hour is None or hour > 24 or minute is None or minute > 59:
            return None
        fields = {"hour": hour % 24, "minute": minute, "_fixed": fixed}
        if kind == "bare" and weak:
            fields["_weak"] = True
        if ap:
            fields["_ap"] = "am" if key(ap) in self.am else "pm"
        if zone and g(zone):
            fields["zone"] = written[m.start(zone):m.end(zone)]
        return start, m.end(), fields

    # ------------------------------------------------------------ expressions
    def find(self, written: str, text: str | None = None) -> list[tuple[int, int, dict]]:
        """The time expressions in `written`: (start, end, normalised fields); `text` is
        lower(written) where the caller has it."""
        text = lower(written) if text is None else text
        parts, done = [], 0
        for c in self.starts.finditer(text):
            if c.start() < done or (c.group("w") and c.group("w") not in self.first_words):
                continue
            if (m := self.pattern.match(text, c.start())) is None:
                continue
            if (p := self._part(m, text, written)) is not None:  # a part read as none frees its characters
                parts.append(p)
                done = m.end()
        groups: list[list] = []  # [start, end, fields, parts]
        for i, (start, end, fields) in enumerate(parts):
            clock_next = i + 1 < len(parts) and parts[i + 1][0] == end and "hour" in parts[i + 1][2]
            if fields.get("_short") and not clock_next:
                continue  # 早 / 晚 only right before a clock
            last = groups[-1] if groups else None
            if (last is not None and "hour" in fields and last[2].get("_weak") and len(last[3]) > 1
                    and not (_slots(fields) & _slots(last[3][1][2])) and self.joiner.fullmatch(text, last[1], start)):
                # "booked for two tonight at 8:30": a clock follows the day, so the number after "for"
                # was no hour (a party); the expression is the day and that clock
                rest = last[3][1:]
                last[:] = [rest[0][0], rest[-1][1], {k: v for _s, _e, f in rest for k, v in f.items()}, rest]
            if (last is not None and not (_slots(fields) & _slots(last[2]))
                    and self.joiner.fullmatch(text, last[1], start)):
                last[1] = end
                last[2].update(fields)
                last[3].append((start, end, fields))
            else:
                groups.append([start, end, dict(fields), [(start, end, fields)]])
        groups = [g[:3] for g in groups]
        groups = self._ranges(groups, text)
        return [(s, e, f) for s, e, f in (self._normalise(g) for g in groups) if f is not None]

    def _ranges(self, groups: list[list], text: str) -> list[list]:
        """Both ends of each time range: a bare number at either end becomes an expression of its
        own, and the two ends lend each other what one of them left unsaid (day, day part, am/pm)."""
        out: list[list] = []
        for g in groups:
            start, end, f = g
            prev = out[-1] if out else None
            m = self.range_before.search(text, max(0, start - 24), start) if "_span" not in f else None
            if prev is not None and "_span" not in prev[2] and self.range_sym.fullmatch(text, prev[1], start) \
                    and (("hour" in prev[2]) == ("hour" in f)):
                self._join(prev[2], f)
            elif m is not None and "hour" in f and (prev is None or prev[1] <= m.start()):
                s = _bare(m)
                if s is not None:
                    out.append([m.start(), m.end("ap") if m.group("ap") else m.end("m") if m.group("m") else m.end("h"), s])
                    self._join(s, f)
            out.append(g)
            a = self.range_after.match(text, end) if "_span" not in f else None
            if a is not None and (a.group("m") or a.group("ap") or "date" in f) \
                    and not any(x[0] == a.start("h") for x in groups):  # "至 20 日" is read whole
                e = _bare(a) if "hour" in f and not a.group("d") else _day(a, f) if "hour" not in f else None
                if e is not None:
                    self._join(f, e)
                    out.append([a.start("h"), a.end(), e])
        return out

    def _join(self, s: dict, e: dict) -> None:
        """Mark a range's ends and let each borrow what it lacks from the other: the day, and for a
        clock the am/pm or day part, unless that would put the start after the end ("11–1 PM")."""
        s["_span"], e["_span"] = "start", "end"
        for a, b in ((s, e), (e, s)):
            if not any(k in b for k in _DAY_SLOTS):
                b.update({k: a[k] for k in _DAY_SLOTS if k in a})
        if "date" in e and "day_of_month" in e and "date" in s:  # 12 月 18 日至 20 日
            e["date"] = s["date"][:-2] + f"{e.pop('day_of_month'):02d}"
        if "hour" not in s or "hour" not in e:
            return
        if "_ap" not in e and not e.get("part"):
            e.update({k: s[k] for k in ("_ap", "part") if s.get(k)})
        if "_ap" not in s and not s.get("part"):
            lend = {k: e[k] for k in ("_ap", "part") if e.get(k)}
            if lend and self._shifted({**s, **lend}) <= self._shifted(e):
                s.update(lend)

    def _shifted(self, f: dict) -> int:
        if f.get("_ap"):
            return _SHIFTS[f["_ap"]](f["hour"])
        return _SHIFTS[self.shift_of[f["part"]]](f["hour"]) if f.get("part") else f["hour"]

    def _normalise(self, group: list):
        start, end, f = group
        context = any(k in f for k in ("day_offset", "date", "day_of_month", "weekday")) or (
            "part" in f and not f.get("_short"))
        if "hour" not in f and set(f) <= {"part", "_short", "_alone"} and not f.get("_alone"):
            return start, end, None  # "morning" alone is a greeting more often than a time
        if "hour" in f and f["_fixed"] is None and not context:
            return start, end, None
        out = {k: f.get(k) for k in _TIME_FIELDS}
        if f.get("month_offset") is not None and f.get("day_of_month"):
            out["month_offset"] = f["month_offset"]
        ambiguous = False
        if "hour" in f:
            hour = f["hour"]
            if "_ap" in f:
                hour = _SHIFTS[f["_ap"]](hour)
            elif f.get("part"):
                hour = _SHIFTS[self.shift_of[f["part"]]](hour)
            elif not f["_fixed"] and 1 <= hour <= 12:
                ambiguous = True
            out["hour"] = hour
        out["ambiguous_12h"] = ambiguous
        if "_span" in f:
            out["span"] = f["_span"]
        return start, end, out


def _slots(fields: dict) -> set[str]:
    return {k for k in fields if not k.startswith("_")}


_DAY_SLOTS = ("day_offset", "date", "weekday", "week_offset", "day_of_month")


def _bare(m: re.Match) -> dict | None:
    """A range's end written as a bare number or clock: 2 in "2–4 PM", 11:00 in "9:00-11:00"."""
    hour = int(m.group("h"))
    if hour > 24:
        return None
    f = {"hour": hour % 24, "minute": int(m.group("m") or 0), "_fixed": m.group("h")[0] == "0"}
    if m.group("ap"):
        f["_ap"] = "pm" if m.group("ap")[0] == "p" else "am"
    return f


def _day(m: re.Match, start: dict) -> dict | None:
    """The end of a range of days: "20" in "Dec 18–20" is the 20th of the start's month."""
    day = int(m.group("h"))
    if m.group("m") or m.group("ap") or not start["date"][-2:] < f"{day:02d}" <= "31":
        return None
    return {"date": start["date"][:-2] + f"{day:02d}"}

