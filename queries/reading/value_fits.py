"""(fixk) Kinds of stored fields the comparison of told and asked values (value_checks.py) did not know,
each by how records keep the thing, with its words as data ([fields] and [count] in values.toml):

- a day of the month told ("on the 20th of every month", 每月 5 号) against a field that keeps only a day
  (draft_day: 20, bill_day: 5): the number is the day, no date or clock is stored;
- a count of people by another word for the same people ("2 kids" against children, 两个孩子 against
  child_count): `[count] same_people`;
- a returned record's count of what the write did (issued: 2, enrolled: 4) is what a told count is about,
  over the count the call asked for (quantity: 3): the record says what happened, the call what was
  wanted (`[fields] done_count`);
- a field of a thing held by its number (store, section) that holds a name (store: "Main St") holds no
  number to compare;
- a quotation told of a text the write stored: a part of it agrees ("I wrote 'Gate code 1234'" over a
  longer note); the whole of it and more (a clause the reply adds to the message it says it left) does not:
  the write sent less than the reply quotes;
- a cloud instance type (read in instance_types.py) against a field naming an instance or its type
  (`[fields] instance_type`), whatever provider prefix the record adds (ecs.c6.xlarge).
"""

from __future__ import annotations

import re

from .tools import words
from .values import singular


def names(obj: str | None, key: list[str], groups) -> bool:
    """Whether a field's key names the counted thing: its group (bags: total_baggages) or its
    stem (children: child). groups: objects.ObjectGroups. (Moved here from value_checks.py.)"""
    if not obj:
        return False
    g = groups.of_word(obj)
    if g and g in groups.of_tool_words(key):
        return True
    stem = singular(obj.lower())[:5]  # (pass: passes_issued; rstrip would leave "pa")
    return len(stem) >= 3 and any(w.startswith(stem) for w in key)


_QUOTE_SLACK = 4  # characters a quote may add to the text stored (an "a", a "the") before it tells more


class MoreFits:
    def __init__(self, lex: dict):
        values = lex.get("values", {})
        f, c = values.get("fields", {}), values.get("count", {})
        self.day_fields = set(f.get("day_of_month", []))  # the last word of a field keeping a day of the month
        self.done = set(f.get("done_count", []))
        self.kin = {singular(w.lower()): name for name, ws in c.get("same_people", {}).items() for w in ws}
        self.named_things = set(f.get("id_named_things", []))
        self.instance_fields = set(f.get("instance_type", []))

    def day_of_month(self, told: dict, key: list[str], v) -> bool | None:
        """None: not a day of the month against a field keeping one; else whether they agree."""
        if told.get("day_of_month") is None or told.get("date") or told.get("hour") is not None \
                or len(key) < 2 or key[-1] not in self.day_fields:
            return None
        if isinstance(v, str) and v.strip().isdigit():
            v = int(v.strip())
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 31:
            return None
        return v == told["day_of_month"]

    def same_people(self, obj: str | None, key: list[str]) -> bool:
        """Whether a field's key names the counted people by another word (kids: children)."""
        group = self.kin.get(singular((obj or "").lower()))
        return group is not None and any(self.kin.get(singular(w)) == group for w in key)

    def done_counts(self, key: list[str]) -> bool:
        return bool(key) and key[-1] in self.done

    def done_first(self, fits: list) -> list:
        """The fits in a returned record's count of what was done, where there is one; else all."""
        done = [(s, ok) for s, ok in fits if s.source in ("result", "readback") and self.done_counts(words(s.field))]
        return done or fits

    def no_number(self, key: list[str], v) -> bool:
        """A field of a thing held by its number holding a name, not a number (store: "Main St")."""
        return bool(key) and key[-1] in self.named_things and isinstance(v, str) and not re.search(r"\d", v)

    def instance_type(self, told: dict, key: list[str], v) -> bool | None:
        """None: not an instance type against a field of one; else whether the record holds that type."""
        if told.get("kind") != "instance_type":
            return None
        if not isinstance(v, str) or not set(key) & self.instance_fields:
            return None
        want, have = (told.get("value") or "").lower(), v.strip().lower()
        if "." not in have:
            return None  # an instance's id (InstanceId: i-bp17…), not its type
        return have == want or have.endswith("." + want)

    @staticmethod
    def quote_agrees(told: str, stored: str) -> bool:
        """told, stored: normalised texts. Punctuation and spaces aside, the told text is a part of the stored
        one, or the stored one with at most a few characters more."""
        a, b = re.sub(r"[\W_]+", "", told), re.sub(r"[\W_]+", "", stored)
        if not a or not b:
            return bool(told) and (told in stored or stored in told)
        return a in b or (b in a and len(a) - len(b) < _QUOTE_SLACK)
