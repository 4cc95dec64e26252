"""What kind of value a stored field holds, read from the last word of its key.

The words are data ([fields] in queries/lexicon/values.toml): a value told or asked is compared
only with the stored fields of its own kind (queries/reading/value_checks.py).
"""

from __future__ import annotations

import re

from .measures import Measures


class FieldWords:
    """The [fields] word lists of one lexicon, as sets."""

    def __init__(self, lex: dict):
        f = lex.get("values", {}).get("fields", {})
        self.amount = set(f.get("amount", []))
        self.minor = set(f.get("minor", []))
        self.currencies = set(f.get("currency_tail", []))  # total_usd: a total, in dollars
        self.label_zh = dict(f.get("label_zh", {}))  # 总价: total
        self.money_records = set(f.get("money_records", []))
        self.price_records = set(f.get("price_records", []))
        self.text = set(f.get("text", []))
        self.people = set(f.get("people", []))
        self.count = set(f.get("count", []))
        self.duration = set(f.get("duration", []))  # a length of time, and its unit: duration_min
        self.duration_units = dict(f.get("duration_units", {}))
        self.supply = set(f.get("duration_supply", []))  # (fixk) a supply's field (days_supply) takes a supply told
        self.line_count = set(f.get("line_count", []))  # a line's own quantity (qty): what an add call added
        self.id = set(f.get("id", []))
        self.generic_items = set(f.get("generic_items", []))
        self.record_times = set(f.get("record_times", []))
        self.id_kinds = {kind: set(ws) for kind, ws in f.get("id_kinds", {}).items()}
        self.bound = set(f.get("bound", []))  # (fixh) a condition's bound: alert_threshold, min_balance
        self.left = set(f.get("left", []))  # (fixh) what is left: remaining_this_month, passes_left
        self.measures = Measures(lex.get("values", {}))  # temperatures and percentages: the fields of each

    def off_kind(self, told: dict, key: list[str]) -> bool:
        """A bound asked ("below $50", value_run.askable) against a field of no bound, or a count of what is
        left ("4 left") against a field of nothing left: not the same kind of value (value_cues.py reads both).
        A bound told in a claim is compared as any amount: over a write that moved other money, it says the
        claim is of another write (value_checks_sql: unbacked, 自动缴费已开通：余额低于 ¥50 时自动充值)."""
        return bool(told.get("bound_only") and not self.bound & set(key) or told.get("left") and not self.left & set(key))

    def kinds_of(self, kind: str | None) -> set:
        """The key words of fields holding an id of this kind (a kind not listed: its own name)."""
        return self.id_kinds.get(kind, {kind})


def shape(text: str) -> str | None:
    """An id's shape (EK2PLQ: AA9AAA), for one of five characters or more with letters and digits."""
    t = plain_id(text)
    if len(t) < 5 or not re.fullmatch(r"[A-Z0-9]+", t) or t.isdigit() or t.isalpha():
        return None
    return re.sub(r"[A-Z]", "A", re.sub(r"\d", "9", t))


def plain_id(text: str) -> str:
    return re.sub(r"[\s#-]", "", text).upper()
