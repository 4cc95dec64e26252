"""One thing, many names: the object group a reply's word or a tool's name refers to.

A reply says "bags", "luggage" or "行李"; a tool is `update_reservation_baggages`. Both
are the group `bag` ([object_groups] in queries/lexicon/claims.toml), so a claim that
bags were added can be matched with the write that added them (issue 15). Matching is
by whole word, singular or with a plural -s/-es, never by substring: `order_lookup`
names an order, `border` does not.
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
        return out

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
