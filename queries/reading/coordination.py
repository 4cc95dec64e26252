"""A claim that goes on after "and" with a subject of its own and no article before it.

"Your eSIM is now active and international roaming is turned on for Mexico" claims two things; the
clause reader cuts "and" before a new subject only where a determiner opens it ("… and your last
payment has been refunded", queries/reading/clauses.py). A bare noun phrase opens one as often
(roaming, versioning, paperless billing, auto-refill): "and" + up to four words (no pronoun) + is/are/has
been + a verb the lexicon knows is a second claim, where both halves read as claims on their own.
"""

from __future__ import annotations

import re

from .segment import Clause

_AND_SUBJECT = re.compile(
    r"\s*,?\s+and\s+(?!(?:i|we|you|it|they|he|she|this|that|there|these|those|which|who)\b)"
    r"((?:[\w'-]+\s+){1,4}?)(?:is|are|has\s+been|have\s+been)\s+(?:now\s+|also\s+|all\s+)?", re.I)


def bare_subject_parts(reader, seg: Clause, text: str) -> list | None:
    """The two claims of `text` (a claim read as one), as ClauseReadings, or None."""
    for m in _AND_SUBJECT.finditer(text):
        if m.start() == 0 or not reader._verb_re.match(text, m.end()):
            continue
        halves = [text[:m.start()].strip(), text[m.start(1):].strip()]
        reads = [reader.read_clause(Clause(h, seg.sentence, seg.index, seg.closer)) for h in halves]
        if all(r.kind == "completion" for r in reads):
            return reads
    return None
