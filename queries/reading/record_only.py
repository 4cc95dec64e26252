"""Writes that only keep a record for later, and the claims they can back ([record_only] in claims.toml).

A note on an account (`crm.add_note`) or a saved draft (`claims.save_draft`) records what the user asked
for; it does not do it. Such a write backs a claim that something was noted, logged or saved ("I've
logged your complaint", 已记到备忘录) or a claim about the note or draft itself, but not "I've filed your
glass claim" or 理赔申请已提交. The tool side is read from its name (a record group named, and a verb
that only keeps it: save_draft, add_note; not submit_draft, send_draft); the claim side from its clause's
words. The turn model reads both as flags (tool_classes.keeps_only; ",records," in claim_items.backs).
"""

from __future__ import annotations

import re


class RecordOnly:
    def __init__(self, lex: dict):
        spec = lex.get("record_only", {})
        self.groups = set(spec.get("groups", []))
        self._tool_verbs = {w.lower() for w in spec.get("tool", [])}
        en = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(spec.get("en", []), key=len, reverse=True))
        zh = "|".join(re.escape(w) for w in sorted(spec.get("zh", []), key=len, reverse=True))
        alts = [p for p in (en and rf"(?<![a-z])(?:{en})(?![a-z])", zh) if p]
        self._claim = re.compile("|".join(alts), re.I) if alts else None

    def tool_keeps_only(self, words: list[str], groups: list[str]) -> bool:
        """A tool that names a record group and is named by a verb that only keeps it (crm.add_note)."""
        if not self.groups.intersection(groups):
            return False
        return any(w.lower() in self._tool_verbs for w in words)

    def claim_records(self, text: str, group: str | None) -> bool:
        """A claim that says it noted, logged or saved something, or one about a note or draft."""
        return group in self.groups or bool(self._claim and self._claim.search(text))
