"""The roles values take from their neighbours in a clause, after each is read (values.py): a change's
source and target among choices, and a range's two ends as one value of a change."""

from __future__ import annotations

import re


def _choice_changes(choices: list[dict]) -> None:
    """The target of a change is the member after a to-marker; another member of the same
    enum before it, with no marker, is the source (经济舱改为商务舱)."""
    for i, c in enumerate(choices):
        if c["role"] != "to":
            continue
        c["target"] = True
        for prev in choices[:i]:
            if prev["enum"] == c["enum"] and prev["role"] is None and prev["value"] != c["value"]:
                prev["role"] = "from"


def _range_roles(times: list[dict]) -> None:
    """A range's two ends are one value of a change: both take the role its start has ("moved to
    2–4 PM": both to), except the "from" of "from 2 to 4 PM", which is the range's own word."""
    for i, t in enumerate(times):
        if t.get("span") == "end" and i and times[i - 1].get("span") == "start":
            start = times[i - 1]
            role = None if start["role"] == "from" else start["role"]
            start["role"] = t["role"] = role


def clock_ranges(kept: list, moved: bool) -> None:
    """(fixk) "from 2:00 to 5:00 PM" with no verb that moves a thing in the clause ("Summit is yours on Friday
    from 2:00 to 5:00 PM") is a range, as "from 2 to 5 PM" is: its two clocks are the start and the end, not
    the source and the target of a change ("moved from 2:00 to 5:00 PM", [change] move, stays a change).
    kept: (start, end, value) in order of position."""
    if moved:
        return
    times = [v for _s, _e, v in kept if v["type"] == "time"]
    for a, b in zip(times, times[1:]):
        if (a["role"], b["role"]) == ("from", "to") and a.get("hour") is not None and b.get("hour") is not None \
                and "span" not in a and "span" not in b:
            a["role"], b["role"], a["span"], b["span"] = None, None, "start", "end"


def _lone_from(times: list[tuple[dict, bool]]) -> None:
    """A time after "from" with no later time in the clause is where something starts ("log the call
    from 2pm today", 从明天开始), not the source of a change, which names its target too ("moved
    from 3 PM to 4 PM"): no role. Not after a length ("a week from Friday" is no Friday): each time
    comes with whether a length stands before its "from"."""
    for i, (t, after_length) in enumerate(times):
        if t["role"] == "from" and "span" not in t and not after_length and not times[i + 1:]:
            t["role"] = None


def _totals(low: str, kept: list, after, before) -> None:
    """A count said as the whole ("2 checked bags in total", "a total of 3 bags", 总共 3 件) is a total:
    compared with the total field, never read as what this call added. `after` / `before`: compiled
    patterns anchored right after / right before the count, or None."""
    for start, end, value in kept:
        if value["type"] == "count" and ((after is not None and after.match(low, end))
                                         or (before is not None and before.search(low[max(0, start - 14):start]))):
            value["total"] = True
            value.pop("delta", None)


def total_patterns(change: dict) -> tuple:
    """[change] total_after / total_before as the patterns _totals takes (None where a list is empty)."""
    after, before = change.get("total_after", []), change.get("total_before", [])
    return (re.compile(r"\s*(?:" + "|".join(map(re.escape, after)) + r")\b", re.I) if after else None,
            re.compile("(?:" + "|".join(map(re.escape, before)) + r")\s*$", re.I) if before else None)
