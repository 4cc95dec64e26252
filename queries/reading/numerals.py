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
        # a spelled-out number above twenty, for amounts and counts ("twenty-five", "two hundred and fifty"):
        # tens joined to a unit, then a scale; never a clock's "seven thirty" (a unit before tens)
        self.en_tens = {key(w): v for w, v in n.get("en_tens", {}).items()}
        self.en_scales = {key(w): v for w, v in n.get("en_scales", {}).items()}
        units = alt([w for w, v in self.en_words.items() if v < 10], False)
        small = (rf"(?:{alt(self.en_tens)}(?:[- ]{units}(?![a-z]))?|{self.en})" if self.en_tens else self.en)
        scale = rf"\s+{alt(self.en_scales)}(?:\s+(?:and\s+)?{small})?" if self.en_scales else ""
        self.en_big = rf"(?:{small}(?:{scale})?)" if scale else small
        self.words = set(self.en_words) | set(self.en_tens) | set(self.en_scales)  # any English number word

    def value(self, s: str) -> float | int | None:
        s = s.strip()
        if not s:
            return None
        if s[0].isdigit():
            s = s.replace(",", "")
            return float(s) if "." in s else int(s)
        if s.lower() in self.en_words:
            return self.en_words[s.lower()]
        if s[0].isascii():
            return self.english(s)
        return self.chinese(s)

    def english(self, s: str) -> int | None:
        """twenty-five = 25, two hundred = 200, one hundred and fifty = 150, three thousand = 3000."""
        total = current = 0
        for w in s.lower().replace("-", " ").split():
            if w == "and":
                continue
            if w in self.en_words:
                current += self.en_words[w]
            elif w in self.en_tens:
                current += self.en_tens[w]
            elif w in self.en_scales and self.en_scales[w] >= 1000:
                total, current = total + (current or 1) * self.en_scales[w], 0
            elif w in self.en_scales:
                current = (current or 1) * self.en_scales[w]
            else:
                return None
        return total + current

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
