"""One thing, many names: the object group a reply's word or a tool's name refers to.

A reply says "bags", "luggage" or "行李"; a tool is `update_reservation_baggages`. Both
are the group `bag` ([object_groups] in queries/lexicon/claims.toml), so a claim that
bags were added can be matched with the write that added them (issue 15). Matching is
by whole word, singular or with a plural -s/-es, never by substring: `order_lookup`
names an order, `border` does not.

A tool whose name says only the record a booking is kept as (`POST /v1/bookings`,
`reservations.create`: [object_records]) names no kind of thing booked: it names the groups
that record may hold too (a hotel's room as well as a flight), so "your room is booked" is
backed by it. A tool naming a kind beside the record (`update_reservation_flights`,
`tables.reservations.create`: any word of [objects]) names only what it names.
"""

from __future__ import annotations

import re


class ObjectGroups:
    def __init__(self, lex: dict):
        self._group: dict[str, str] = {}
        self._all: dict[str, list[str]] = {}  # a word in two groups ("payment") names both in a tool
        self.words: dict[str, list[str]] = {}
        # what else in a write's arguments says it is about the group's thing ("dueTime": a reminder)
        self.mentions: dict[str, list[str]] = {g: list(ps) for g, ps in lex.get("object_mentions", {}).items()}
        # record word -> the groups a tool saying only that word may be about ([object_records])
        self.records: dict[str, list[str]] = {}
        for group, words in lex.get("object_records", {}).items():
            for w in words:
                self.records.setdefault(w.lower(), []).append(group)
        # the words that name a kind of thing, in a group or not (tables.reservations.create books a table)
        self._things = {w.lower() for w in lex.get("objects", {}).get("en", []) if w.isalpha()}
        for group, words in lex.get("object_groups", {}).items():
            self.words[group] = list(words)
            for w in words:
                self._group.setdefault(w.lower(), group)
                self._all.setdefault(w.lower(), []).append(group)

    def of_word(self, word: str | None) -> str | None:
        """The group of one word as written ("Bags", "提醒"), or None."""
        if not word:
            return None
        w = word.lower().strip()
        hit = self._group.get(w)
        if hit is None and w.endswith("es"):
            hit = self._group.get(w[:-2])
        if hit is None and w.endswith("s"):
            hit = self._group.get(w[:-1])
        if hit is None and w.isascii() is False:
            # a Chinese object phrase names its group by the longest word it contains
            for name in sorted((n for n in self._group if not n.isascii() and n in w), key=len, reverse=True):
                return self._group[name]
        return hit

    def of_tool_words(self, words: list[str]) -> list[str]:
        """The groups a tool name's words name, in order, without repeats."""
        out: list[str] = []
        for i, w in enumerate(words):
            pair = "-".join(words[i:i + 2]) if i + 1 < len(words) else None
            g = (self.of_word(pair) if pair else None) or self.of_word(w)
            for name in self._all.get(self._key(g, pair, w), [g] if g else []):
                if name not in out:
                    out.append(name)
        # only record words name a group (POST /v1/bookings): the record may hold any kind it keeps
        named = [w for w in words if self.of_word(w) or self._thing(w)]
        said = [self._record(w) for w in named]
        if named and all(said):
            out += [g for gs in said for g in gs if g not in out]
        return out

    def _thing(self, word: str) -> bool:
        w = word.lower()
        return w in self._things or (w.endswith("s") and w[:-1] in self._things)

    def _record(self, word: str) -> list[str]:
        w = word.lower()
        return self.records.get(w) or self.records.get(w[:-1] if w.endswith("s") else "") or []

    def _key(self, group: str | None, pair: str | None, word: str) -> str:
        """The lexicon word a tool word matched (for the groups it belongs to)."""
        for cand in (pair, word):
            if not cand:
                continue
            c = cand.lower()
            for k in (c, c[:-2] if c.endswith("es") else None, c[:-1] if c.endswith("s") else None):
                if k and self._group.get(k) == group:
                    return k
        return ""

    def pattern(self, group: str | None) -> str | None:
        """An RE2 pattern (case-blind) for any word of the group, for finding it in a write's args."""
        if not group or group not in self.words:
            return None
        alts = [re.escape(w) for w in sorted(self.words[group], key=len, reverse=True)] + self.mentions.get(group, [])
        return "(?i)(" + "|".join(alts) + ")"
