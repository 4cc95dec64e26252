"""A reply that states, and marks nothing: the reading a careful person gives a plain answer.

The clause reader finds a claim by the forms the lexicon knows (verbs, completion markers,
idioms). Fresh text keeps finding new ones ("All yours from 8pm", 给你搞掂咗), and each form
the lexicon lacks hid a false success. What a reply *does not* say is a closed class: it does not
admit a failure, deny, say it could not, hedge, ask, offer, set a condition, defer to later, report
an earlier state, frame a template or a status read, or contrast ("but"). A reply with none of
those marks and no claim the lexicon knows is `unmarked`: said over a turn whose writes all went
wrong, it tells the user the work went as asked, whatever its verbs (said_but_not_done.sql decides
that with the turn's writes; this module only reads the text).

The marks are the lexicon's own clause rules ([unmarked] marks in claims.toml names which), so a
phrase added to a marking rule (a new hedge, a new failure word) keeps its replies marked here too.
"""

from __future__ import annotations

import re
from typing import Callable

# at least one word: a reply of emoji or punctuation alone says nothing either way
_WORDY = re.compile(r"[A-Za-z]{2}|[\u3400-\u9fff]")
# a question anywhere (the segmenter keeps a clause's closing mark apart from its text)
_ASKS = re.compile(r"[?？]")


class Unmarked:
    def __init__(self, lex: dict, first: Callable[[str, str], re.Match | None]):
        spec = lex.get("unmarked", {})
        self._kinds = [k for k in spec.get("marks", []) if k in lex.get("clause", {})]
        seg = lex.get("segment", {})
        # contrast words cut a reply into what went well and what did not ("X, but Y"): a mark
        words = sorted(set(seg.get("en", [])), key=len, reverse=True)
        self._contrast_en = re.compile(r"(?<![a-z])(?:" + "|".join(re.escape(w) for w in words) + r")(?![a-z])", re.I) if words else None
        zh = sorted(set(seg.get("zh", [])), key=len, reverse=True)
        self._contrast_zh = re.compile("|".join(re.escape(w) for w in zh)) if zh else None
        self._first = first

    def reads(self, texts: list[str], whole: str) -> bool:
        """True when no clause of the reply carries a mark and the reply says something."""
        if not self._kinds or not _WORDY.search(whole) or _ASKS.search(whole):
            return False
        if (self._contrast_en and self._contrast_en.search(whole)) or (self._contrast_zh and self._contrast_zh.search(whole)):
            return False
        return not any(self._first(kind, t) is not None for t in texts for kind in self._kinds)
