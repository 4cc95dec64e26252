"""(fixk) A change set out with an arrow between two asides: "Hoodie (M, black) → Hoodie (L, grey)",
"Room (2 Queen) → Room (King)". The arrow is a change's to-marker ([change] to), but the values on its
two sides sit in parentheses, which the reader reads apart from the clause (framing.py), so no marker
stands right before them. Of the two asides around the one arrow of a clause, a value of a kind said on
both sides is the source before the arrow and the target after it, as "from … to …" would make them:
the told check compares the target and leaves the source alone (value_checks._compared)."""

from __future__ import annotations

import re


def arrow_pattern(change: dict) -> re.Pattern | None:
    """[change] arrows as one pattern, or None."""
    arrows = change.get("arrows", [])
    return re.compile("|".join(map(re.escape, arrows))) if arrows else None


def arrow_sides(clause: str, asides: list[list[dict]], arrow: re.Pattern | None) -> None:
    """Set in place the roles of the values of a clause's two asides around its one arrow."""
    if arrow is None or len(asides) != 2 or len(arrow.findall(clause)) != 1:
        return
    before, after = asides

    def kind(v):
        return v.get("type"), v.get("enum")

    both = {kind(v) for v in before} & {kind(v) for v in after}
    for v in before:
        if kind(v) in both and v.get("role") is None:
            v["role"] = "from"
    for v in after:
        if kind(v) in both and v.get("role") is None:
            v["role"] = "to"
            if v.get("type") == "choice":
                v["target"] = True
