"""What takes a claim back: a later failure or negated action, unless it is about something else
or gives the reason for a correction made in passing.

A claim corrected in passing: "You're on the 7:10 — sorry, correction, the 7:40; the 7:10 was
sold out." The claim stands with the value it was corrected to; a failure that names only the
value corrected away ("the 7:10 was sold out") gives the reason for the correction, it does not
take the claim back. A failure that names the corrected value, or none, still does.

A correction is a correction word ([clause.correction]: correction, I mean, make that, 更正,
说错了...) after a completion clause, in plain clauses (no verb of their own) with no more than an
apology between, followed by a restatement that tells a value of its own.
"""

from __future__ import annotations

import re

# the values a claim tells: times, counts, codes (7:10, 9C, WK-2291, 3号)
# (7点10分 is 7:10, 3点半 3:30)
_VALUE = re.compile(r"\d+(?:[:.：点时](?:\d+|半))*[A-Za-z]?|[A-Z]{1,3}-?\d+")
_CLOCK_ZH = re.compile(r"[：点时]")


def values(text: str) -> frozenset[str]:
    return frozenset(_CLOCK_ZH.sub(":", m.group(0).lower()).replace("半", "30") for m in _VALUE.finditer(text))


def replaced(marker_end, clauses, segments) -> dict[int, frozenset[str]]:
    """For each completion clause corrected in passing, the values it was corrected away from.
    `marker_end(text)` is where the correction word opening a clause ends, or -1."""
    out: dict[int, frozenset[str]] = {}
    for h, claim in enumerate(clauses):
        if claim.kind != "completion":
            continue
        k, seen = h + 1, False
        # plain clauses after the claim, in its sentence or the next: a correction word, then the restatement
        while k < len(clauses) and k <= h + 4 and segments[k].sentence <= segments[h].sentence + 1:
            c = clauses[k]
            end = marker_end(c.text)
            if c.kind != "other" or (c.action is not None and end < 0):
                break
            seen = seen or end >= 0
            new = values(c.text[max(end, 0):]) if seen else frozenset()
            if new:
                said = values(claim.text)
                if said - new:
                    out[h] = said - new
                break
            k += 1
    return out


def explains(later_text: str, corrected_away: frozenset[str] | None) -> bool:
    """Whether a later failure names only values the claim was corrected away from."""
    if not corrected_away:
        return False
    named = values(later_text)
    return bool(named) and named <= corrected_away


def takes_back(later: ClauseReading, claim: ClauseReading, none_of: bool = False) -> bool:
    """A failure takes a claim back unless it is plainly about something else (another action
    AND another object); a negated action only when it is about the same action or object; a
    negation saying there is none of a thing ("No fare difference applied") only when that thing
    is the claim's object."""
    same_action = later.action is not None and later.action == claim.action
    same_object = later.object is not None and later.object == claim.object
    if none_of:
        return same_object
    if same_action or same_object:
        return True
    if later.kind == "failure":
        other_action = later.action is not None and claim.action is not None
        other_object = later.object is not None and claim.object is not None
        return not (other_action and other_object)
    return False
