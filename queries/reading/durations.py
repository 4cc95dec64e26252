"""Lengths of time told or asked ("two hours", "1 h 15 min", 停车两小时, 一个半小时) as values of their own,
and a stored field of a length (duration_min: 90, length_seconds: 4500, duration: "PT1H30M") in minutes.

A length is compared only with a field whose key names a length and its unit, converted ("2 hours" is
duration_min 120, not 90). A wait ("in 20 minutes", "within 2 hours"), a repeat ("every 2 hours"), an
extension ("another 30 minutes") or a lead ("10 minutes before") is no length of the thing: the words of
[time.durations] not_after / not_before, which value_context.py reads the same way. Words are data:
[time.durations] and [fields] duration / duration_units in values.toml.
"""

from __future__ import annotations

import re

from .tools import words
from .word_patterns import key

_ISO = re.compile(r"^P(?:T(?=\d))?(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?$", re.I)
_JOIN = re.compile(r"\s*(?:,|and|又)?\s*")
# (fixk) "a day" / "an hour" right after a number and at most one word ("$25 a day", "1 pill a day", "50 km an
# hour") is a rate's unit, no length
_RATE_BEFORE = re.compile(r"\d(?:\s*[^\W\d]+)?\s*$")


def found_lengths(ctx, low: str, text: str, kept: list) -> None:
    """Add to `kept` ((start, end, value)) one value {type: duration, minutes} per length said, the parts
    of one length joined ("1 hour 15 minutes"); none where a value already stands or a wait or lead word
    does. ctx: value_context.ValueContext (its duration pattern, units and wait words)."""
    spans: list[list] = []  # [start, end, minutes]
    for m in ctx.duration_re.finditer(low):
        if "-" in low[m.end("n"):m.start("u")] and ctx.units[key(m.group("u"))] >= 1440:
            continue  # (fixk) "a 3-day pass", "a 90-day supply": days said of a thing, read by the thing (value_cues)
        n = key(m.group("n"))
        count = 1 if n in ctx.one else 0.5 if n in ctx.half_alone else ctx.times.num.value(n)
        if count is None:
            continue
        minutes = float(count) * ctx.units[key(m.group("u"))] + (30 if m.group("half") or m.group("half2") else 0)
        if spans and _JOIN.fullmatch(low, spans[-1][1], m.start()) and spans[-1][2] > minutes:
            spans[-1][1:] = [m.end(), spans[-1][2] + minutes]  # 1 hour 15 minutes, 一小时十五分钟
        else:
            spans.append([m.start(), m.end(), minutes])
    for start, end, minutes in spans:
        if (ctx.wait_pre and ctx.wait_pre.search(low, max(0, start - 12), start)
                or key(low[start:end].split()[0]) in ctx.one and _RATE_BEFORE.search(low, max(0, start - 16), start)
                or ctx.wait_post and ctx.wait_post.match(low, end)
                or ctx.lead_pre and ctx.lead_pre.search(low, max(0, start - 12), start)
                or any(s < end and start < e for s, e, _v in kept)):
            continue
        kept.append((start, end, {"type": "duration", "text": text[start:end], "role": None, "minutes": minutes}))
    kept.sort(key=lambda k: (k[0], k[1]))


def stored_minutes(field: str, value, fw) -> float | None:
    """A stored length in minutes, where the field's key names a length ([fields] duration) and its unit
    ([fields] duration_units: duration_min, length_seconds, hours), or the value is an ISO 8601 length."""
    key_words = words(field)
    if not set(key_words) & fw.duration:
        return None
    if isinstance(value, str) and (m := _ISO.match(value.strip())) and any(m.groups()):
        h, mi, s = (float(g or 0) for g in m.groups())
        return h * 60 + mi + s / 60
    units = [fw.duration_units[w] for w in key_words if w in fw.duration_units]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or len(set(units)) != 1:
        return None  # a number with no unit said, or two
    return float(value) * units[0]


def length_agrees(told: dict, field: str, value, fw) -> bool | None:
    """None: the stored field is no length; else whether it is the length told. (fixk) A field of a supply
    (days_supply) holds only a supply told ("a 90-day supply"), not a stay's or a freeze's days (住 3 天)."""
    if set(words(field)) & fw.supply and not told.get("supply"):
        return None
    have = stored_minutes(field, value, fw)
    return None if have is None else abs(have - float(told.get("minutes") or 0)) < 0.01
