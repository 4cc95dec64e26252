"""A claim told as one more thing beside another ([also] in claims.toml).

"I've moved your flight and added the bags too", 退票保障也帮您加上了, 并已提交财务审批: the reply says a
second thing was done beside a first. Such a claim needs a write of its own: where the one write that
could back it also backs the first claim and says none of this one's words nor its object, it was the
first's (_claims_taken.sql: also). The reading marks it with ",also," in claim_items.backs, as ",named,"
and ",records," mark theirs; no write class is called "also", so fitting is unchanged.
"""

from __future__ import annotations

import re


class AlsoMarks:
    def __init__(self, lex: dict):
        spec = lex.get("also", {})
        en = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(spec.get("en", []), key=len, reverse=True))
        zh = "|".join(spec.get("zh", []))
        alts = [p for p in (en and rf"(?<![\w'-])(?:{en})(?![\w'-])", zh) if p]
        self._re = re.compile("|".join(alts), re.I) if alts else None

    def claims_more(self, text: str) -> bool:
        """Whether the claim's own words tell it as one more thing done ("… added the bags too")."""
        return bool(self._re and self._re.search(text.strip()))
