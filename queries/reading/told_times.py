"""A time told to the user against a stored one: which days a told time can mean from the turn's
time ("tomorrow", 下周一, "the 12th"), a day and a clock told apart joined into one time, and
whether any reading of a stored clock agrees (value_checks.py compares; this says when two
times are the same)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

CJK = re.compile(r"[\u3400-\u9fff]")


def time_agrees(told: dict, clocks: list, at: datetime | None, loose_day: bool = False,
                 slack: int = 0, night_until: int = 0) -> bool | None:
    """Whether a told time agrees with any reading of a stored one; None when they cannot be
    compared. A date-only field is compared on the day, a clock-only field ("09:00") on the
    clock. With loose_day (nobody named the user's zone), a relative day ("tomorrow", 下周一) is
    resolved from every local day the reply's UTC time can be on somewhere (UTC-12 to UTC+14):
    the stored day must be one of those, not merely near one. A time told roughly ("around 7")
    agrees with a stored clock within `slack` minutes of it. A night told with no clock ("tonight",
    今晚, "tomorrow night") runs past midnight: a stored clock before `night_until` o'clock on the
    next day is still that night (a job scheduled "tonight" at 00:00 is not a day off)."""
    hour, minute = told.get("hour"), told.get("minute") or 0
    judged, agree = False, False
    for date, h, m, tz in clocks:
        use_clock = hour is not None and h >= 0
        if loose_day and tz is None and at is not None:
            days = sorted({d for o in PLAUSIBLE_OFFSETS for d in told_days(told, at + o)})
        else:
            # a relative day ("tomorrow") is resolved in the zone the stored value is read in
            days = told_days(told, at.astimezone(tz) if (at is not None and tz is not None) else at)
        use_day = bool(days) and date is not None
        if use_day and hour is None and told.get("part") in _NIGHT_PARTS and 0 <= h < night_until:
            days = [*days, *(_next_day(d) for d in days if len(d) == 10)]
        if not (use_clock or use_day):
            continue
        ok = True
        if use_clock:
            ok = (h, m) == (hour, minute) or bool(told.get("ambiguous_12h") and (h % 12, m) == (hour % 12, minute))
            if not ok and slack:
                gap = abs((h * 60 + m) - (hour * 60 + minute))
                ok = gap <= slack or bool(told.get("ambiguous_12h") and abs(gap - 720) <= slack)
        if ok and use_day:
            ok = any(same_day(date, d) for d in days)
        if ok and use_day and told.get("date") and told.get("weekday") is not None and len(date) == 10:
            ok = datetime.strptime(date, "%Y-%m-%d").weekday() == told["weekday"]  # "Friday, Dec 12" (a Saturday)
        judged, agree = True, agree or ok
    return agree if judged else None


_NIGHT_PARTS = ("evening", "night")


def _next_day(day: str) -> str:
    return (datetime.strptime(day, "%Y-%m-%d") + timedelta(days=1)).strftime("%Y-%m-%d")


# where the user may be when nobody said: the day a UTC instant falls on there
DAY_FIELDS = ("date", "day_offset", "weekday", "day_of_month")  # what a told time says of its day
PLAUSIBLE_OFFSETS = (timedelta(hours=-12), timedelta(0), timedelta(hours=14))


def same_day(date: str, day: str) -> bool:
    return date[5:] == day if len(day) != 10 else date == day


def told_days(told: dict, at: datetime | None) -> list[str]:
    """The days a told time can mean, from the turn's time: one for a date or "tomorrow"; for a
    weekday, the next one (a week later too when it is today's: 周一 said on a Monday, and "next
    Friday", which people use for both)."""
    if told.get("date"):
        return [told["date"]]
    if at is None:
        return []
    if told.get("day_offset") is not None:
        return [(at + timedelta(days=told["day_offset"])).strftime("%Y-%m-%d")]
    if told.get("weekday") is not None:
        ahead = (told["weekday"] - at.weekday()) % 7
        if told.get("week_offset"):
            ahead = 7 * told["week_offset"] + told["weekday"] - at.weekday()
        # 下周一 is next week's Monday, and a weekday said on that weekday ("Monday", on a Monday) may be
        # today or in a week. English "next Tuesday" is next week's Tuesday; said before Tuesday in this
        # week (on a Monday) it may also be this week's, the next one to come, but said after it (on a
        # Thursday) it is the coming Tuesday only, never a week later
        english = told.get("week_offset") and not CJK.search(told.get("text") or "")
        if english and told["week_offset"] == 1:
            options = [ahead - 7, ahead] if ahead > 7 else [ahead]
        else:
            options = [ahead, ahead + 7] if ahead == 0 or (english and ahead < 7) else [ahead]
        return [(at + timedelta(days=d)).strftime("%Y-%m-%d") for d in options]
    if told.get("day_of_month"):
        day = told["day_of_month"]
        ahead = told.get("month_offset")  # 下个月 1 号: next month's, whatever today's day
        month = at.month + (ahead if ahead is not None else (1 if day < at.day else 0))
        year = at.year + (1 if month > 12 else 0)
        return [f"{year:04d}-{(month - 1) % 12 + 1:02d}-{day:02d}"]
    return []


def day_beside_clock(wants: list[dict]) -> tuple[list[dict], set[int]]:
    """A day and a clock told apart ("the 7 AM spin class tomorrow", 8 点的会，明天) are one time where
    they are the only times told: the clock takes the day, and the day is not compared alone (a day
    agreeing with the stored date would hide a clock an hour off). Returns the values and the
    indexes of the days taken."""
    times = [(i, w) for i, w in enumerate(wants)
             if w.get("type") == "time" and w.get("role") is None and not w.get("span")]
    clocks = [(i, w) for i, w in times if w.get("hour") is not None and not any(w.get(d) is not None for d in DAY_FIELDS)]
    days = [(i, w) for i, w in times if w.get("hour") is None and any(w.get(d) is not None for d in DAY_FIELDS)]
    if len(times) != 2 or len(clocks) != 1 or len(days) != 1:
        # a relative day's clock and the date said beside it (本周五（12月4日）早上 8:00, "Fri 8 AM (Dec 4)"):
        # the date is that day's, so the clock is judged with it, not hidden by the date agreeing alone
        # (the clock may be a change's target: 改为本周五…; the aside has no role of its own)
        times = [(i, w) for i, w in enumerate(wants)
                 if w.get("type") == "time" and w.get("role") in (None, "to") and not w.get("span")]
        clocks = [(i, w) for i, w in times if w.get("hour") is not None and not w.get("date")
                  and (w.get("weekday") is not None or w.get("day_offset") is not None)]
        days = [(i, w) for i, w in times if w.get("hour") is None and w.get("date") and w.get("role") is None
                and w.get("weekday") is None and w.get("day_offset") is None]
        if len(times) != 2 or len(clocks) != 1 or len(days) != 1:
            # (fixc) a relative day's clock and its weekday said beside it (明天（周三）上午10:30, "tomorrow
            # (Wednesday) at 10:30"): the weekday names that same day, so it does not agree alone and hide
            # the clock; the relative day stays what the clock is judged on
            rel = [(i, w) for i, w in clocks if w.get("day_offset") is not None and w.get("weekday") is None]
            names = [(i, w) for i, w in times if w.get("hour") is None and w.get("weekday") is not None
                     and w.get("role") is None and not w.get("date") and w.get("day_offset") is None]
            if len(times) != 2 or len(rel) != 1 or len(names) != 1:
                return wants, set()
            (ci, clock), (di, day) = rel[0], names[0]
            joined = {**clock, "text": f"{clock.get('text')} … {day.get('text')}" if ci < di
                      else f"{day.get('text')} … {clock.get('text')}"}
            return [joined if i == ci else w for i, w in enumerate(wants)], {di}
    (ci, clock), (di, day) = clocks[0], days[0]
    joined = {**clock, **{k: day.get(k) for k in (*DAY_FIELDS, "week_offset", "month_offset")},
              "text": f"{clock.get('text')} … {day.get('text')}" if ci < di else f"{day.get('text')} … {clock.get('text')}"}
    return [joined if i == ci else w for i, w in enumerate(wants)], {di}


def offset_of(text: str | None):
    """'-08:00' (or '-0800') as a fixed zone; None for nothing."""
    if not text:
        return None
    m = re.fullmatch(r"([+-])(\d{2}):?(\d{2})", text)
    if m is None:
        return None
    delta = timedelta(hours=int(m.group(2)), minutes=int(m.group(3)))
    return timezone(delta if m.group(1) == "+" else -delta)


def local_time(at: str | None, zone) -> datetime | None:
    if not at:
        return None
    try:
        t = datetime.fromisoformat(at)
        where = ZoneInfo(zone) if isinstance(zone, str) else zone
        return t.astimezone(where) if where and t.tzinfo else t
    except (ValueError, KeyError, OSError):
        return None


_CLAUSE_MARK = re.compile(r"[，,。;；！!？?\n：:、]|\.(?=\s|$)")


def one_clause_time(text: str | None, wants: list[dict]) -> tuple[list[dict], bool]:
    """A request's two times, a day and a clock, said in one clause ("book me into the 6pm HIIT class
    tonight"): one time, so day_beside_clock may join them (the clock's "into the" makes it no change's
    target here). Returns the values, the clock's role cleared where they are, and whether to join."""
    times = [w for w in wants if w.get("type") == "time"]
    if not text or len(times) != 2 or any(w.get("role") == "from" or w.get("span") for w in times):
        return wants, False
    spots = [text.find(w.get("text") or "\0") for w in times]
    if min(spots) < 0:
        return wants, False
    first, second = sorted(zip(spots, times), key=lambda p: p[0])
    if _CLAUSE_MARK.search(text, first[0] + len(first[1].get("text") or ""), second[0]):
        return wants, False
    return [{**w, "role": None} if w in times and w.get("role") == "to" else w for w in wants], True
