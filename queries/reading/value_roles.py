"""The roles values take from their neighbours in a clause, after each is read (values.py): a change's
source and target among choices, and a range's two ends as one value of a change."""

from __future__ import annotations


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
