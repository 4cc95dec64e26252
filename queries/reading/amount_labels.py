"""An amount named by the word right before or after it ([amount_labels] in values.toml, [fields] label_zh).

押金 350 元, 运费10元, "a deposit of $350", "a $40 fee": the word says which stored field the amount is about
(deposit_cents, not the monthly fee told beside it), as a line's label does ("Total with taxes: $438.00",
tables._label_lines). The value takes it as its `label`; value_checks compares a labelled amount with the
fields that word names where the write has any.
"""

from __future__ import annotations

import re

from .word_patterns import alt


class AmountLabels:
    def __init__(self, lex: dict):
        zh = list(lex.get("fields", {}).get("label_zh", {}))
        en = lex.get("amount_labels", {}).get("en", [])
        self.before = re.compile(rf"(?:(?P<zh>{alt(zh, False)})\s*[：:为是]?\s*|(?P<en>{alt(en)})\s*(?:of|is|was|:)?\s*)$") \
            if zh or en else None
        self.after = re.compile(rf"\s*(?P<en>{alt(en)})") if en else None

    def apply(self, low: str, kept: list) -> None:
        """Give each amount of `kept` with such a word beside it that word as its label (in place)."""
        if self.before is None:
            return
        for s, e, v in kept:
            if v["type"] != "amount" or v.get("label"):
                continue
            m = self.before.search(low, max(0, s - 16), s) or (self.after.match(low, e) if self.after else None)
            if m is not None:
                v["label"] = m.group("zh") if "zh" in m.groupdict() and m.group("zh") else m.group("en")
