"""Numbers as people write them, for the value reader: Arabic with separators, Chinese numerals
with or without units, English number words; the words come from the values lexicon."""

from __future__ import annotations

from .word_patterns import alt, key


class Numerals:
    """A number as written: Arabic (1,234.50), Chinese (三百五十, 二〇二四, 十五) or an English word (seven)."""

    def __init__(self, lex: dict):
        n = lex["numbers"]
        self.zh_digits = {c: value for value, chars in enumerate(n["zh_digits"]) for c in chars}
        self.zh_units: dict[str, int] = n["zh_units"]
        self.en_words = {key(w): value for value, w in enumerate(n["en_words"], 1)}
        self.zh = "[" + "".join(sorted(set(self.zh_digits) | set(self.zh_units))) + "]"
        tens = {u for u, v in self.zh_units.items() if v == 10}
        self.zh_small = "[" + "".join(sorted(set(self.zh_digits) | tens)) + "]"  # numbers below 100
        self.en = alt(self.en_words)

    def value(self, s: str) -> float | int | None:
        s = s.strip()
        if not s:
            return None
        if s[0].isdigit():
            s = s.replace(",", "")
            return float(s) if "." in s else int(s)
        if s.lower() in self.en_words:
            return self.en_words[s.lower()]
        return self.chinese(s)

    def chinese(self, s: str) -> int | None:
        """三百五十 = 350, 十五 = 15, 两万 = 20000, 二〇二四 = 2024 (digits without units)."""
        if any(c not in self.zh_digits and c not in self.zh_units for c in s):
            return None
        if not any(c in self.zh_units for c in s):
            return int("".join(str(self.zh_digits[c]) for c in s))
        total = section = 0
        num = None
        for c in s:
            if c in self.zh_digits:
                num = self.zh_digits[c]
            elif self.zh_units[c] >= 10000:
                total += (section + (num or 0)) * self.zh_units[c]
                section, num = 0, None
            else:
                section += (1 if num is None else num) * self.zh_units[c]
                num = None
        return total + section + (num or 0)
