"""Temperatures, percentages and a line's speed told, and the stored fields they are compared with
([measures] in values.toml).

"Set to 72 degrees", 空调调到26度, "a 15% discount", 亮度调到百分之四十: a number with its unit is a value
of type "measure" (unit: the [measures] table's name). It is compared only with a stored number in a
field whose key has one of that measure's field words (target_temperature, heat_setpoint, discount_pct,
brightness), so a count or an amount field never meets it. A percentage stored as a fraction (0.4) is
the same 40%; a temperature told in one scale and stored in the other (72 °F, 22.2) is converted.
A measure may name its units' `scale` ("1 Gig" = 1000 megabits a second): told or stored with its unit
("1000M", "300Mbps"), a number is in the measure's base unit.
"""

from __future__ import annotations

import re

from .word_patterns import alt, key


class Measures:
    def __init__(self, lex: dict, num=None):  # num: numerals.Numerals, to read them (the comparer needs none)
        self.num = num
        specs = lex.get("measures", {})
        self.fields = {unit: set(spec.get("fields", [])) for unit, spec in specs.items()}
        self.scales = {unit: {key(w): v for w, v in spec.get("scale", {}).items()} for unit, spec in specs.items()}
        # a stored string of a number and one of the measure's units after it ("1000M", "300 Mbps")
        self.stored = {unit: re.compile(rf"^\s*(-?\d+(?:\.\d+)?)\s*({alt(spec['after'])})?\s*$")
                       for unit, spec in specs.items() if spec.get("after")}
        n = rf"\d+(?:\.\d+)?|{num.zh}{{1,4}}|{num.en_big}" if num is not None else ""
        self.res = []
        for unit, spec in lex.get("measures", {}).items() if num is not None else ():
            before = rf"(?:{alt(spec['before'], False)})\s*" if spec.get("before") else None
            after = rf"\s*(?:{alt(spec['after'])})" if spec.get("after") else None
            parts = ([rf"(?<![\d.])(?P<n>{n}){after}(?![a-z])"] if after else []) + (
                [rf"{before}(?P<m>{n})(?![\d.])"] if before else [])
            self.res.append((unit, re.compile("|".join(parts))))

    def add(self, low: str, text: str, kept: list) -> None:
        """Add each measure of `low` to `kept` ((start, end, value) in place); a count or an amount read
        over the same words ("72 degrees" counted as degrees) gives way to it."""
        for unit, rx in self.res:
            for m in rx.finditer(low):
                g = "n" if m.group("n") is not None else "m"
                value = self.num.value(m.group(g))
                if value is None:
                    continue
                value *= self._scale(unit, m.group(0)[m.end(g) - m.start():])
                s, e = m.start(), m.end()
                kept[:] = [k for k in kept if not (k[0] < e and s < k[1] and k[2]["type"] in ("count", "amount"))]
                f = "f" if re.search(r"°f|℉|fahrenheit|华氏", m.group(0)) else "c" if re.search(r"°c|℃|celsius|摄氏", m.group(0)) else None
                kept.append((s, e, {"type": "measure", "text": text[s:e], "role": None, "unit": unit,
                                    "value": float(value), "scale": f}))
        kept.sort(key=lambda k: (k[0], k[1]))

    def fits(self, told: dict, key_words: list[str], v) -> bool | None:
        """None: the stored value is no number of a field of the told measure's kind; else whether they agree."""
        if isinstance(v, str):
            unit = told.get("unit")
            m = self.stored[unit].match(v.lower()) if unit in self.stored else None
            if m is None:
                return None
            v = float(m.group(1)) * self._scale(unit, m.group(2) or "")
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return None
        if not self.fields.get(told.get("unit"), set()) & set(key_words):
            return None
        want = float(told.get("value") or 0)
        if abs(v - want) < 0.01:
            return True
        if told.get("unit") == "percent":
            return 0 < v <= 1 and abs(v * 100 - want) < 0.01
        if told.get("unit") == "temperature":  # told in one scale, stored in the other
            return abs((v * 9 / 5 + 32) - want) < 0.6 or abs((v - 32) * 5 / 9 - want) < 0.6
        return False

    def _scale(self, unit: str, said: str) -> float:
        """How many of the measure's base unit the unit words `said` after a number stand for (1 if none)."""
        return self.scales.get(unit, {}).get(key(said.strip()), 1)
