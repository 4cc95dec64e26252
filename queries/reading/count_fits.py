"""A count told as added against the quantity the call itself was given (value_checks.py).

"Added 2 cartons of oat milk" over cart.add_item(qty=3): a count said as added may agree with any total
holding as much or more (the line may have held one before), but the call's own quantity of a line
([fields] line_count: qty, quantity) is exactly what this call added, so that argument decides, exactly.
A field of the whole (party_size 6 for "add two more people") is no line's quantity and keeps the rule
of totals."""

from __future__ import annotations

import re

from .field_words import FieldWords
from .tools import words
from .values import singular

_CJK = re.compile(r"[\u3400-\u9fff]")


def added_line(told: dict, fits: list, fw: FieldWords) -> tuple | None:
    """(field, stored, source, written, verdict) from the call's own line quantity for a count told as
    added, or None where the told value is not such a count or the call names no quantity."""
    if told.get("type") != "count" or not told.get("delta") or told.get("total"):
        return None
    own = [s for s, _ in fits if s.source == "args" and not isinstance(s.value, bool)
           and (words(s.field) or [""])[-1] in fw.line_count]
    if len(own) != 1:  # several lines in one call: the line items decide (value_checks._line_items)
        return None
    s = own[0]
    return s.field, s.value, s.source, s.written, "match" if s.value == told.get("value") else "mismatch"


def item_words(text: str) -> set[str]:
    """The words a thing is named by: English words of three letters or more, singular; in Chinese,
    each two characters in a row (每日鲜语牛奶 and 每日鲜语 950ml share 每日, 鲜语)."""
    low = text.lower()
    cjk = "".join(ch if _CJK.match(ch) else " " for ch in low).split()
    return {singular(w) for w in re.findall(r"[a-z]{3,}", low)} | {run[i:i + 2] for run in cjk for i in range(len(run) - 1)}
