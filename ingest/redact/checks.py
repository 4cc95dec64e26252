"""Checks a candidate match must pass (Luhn, the mainland id check digit) and the canonical
forms a value is hashed in (so `Alice@X.com` and `alice@x.com` get one token)."""

from __future__ import annotations

import re
from datetime import date
from typing import Callable


def luhn_ok(text: str) -> bool:
    """Card number check: 13-19 digits, an issuer prefix, and the Luhn checksum."""
    digits = [int(c) for c in text if c.isdigit()]
    if not 13 <= len(digits) <= 19:
        return False
    if digits[0] == 2 and not 2221 <= int("".join(map(str, digits[:4]))) <= 2720:
        return False  # only the Mastercard 2-series starts with 2
    if len(set(digits)) == 1:
        return False  # 4444 4444 4444 4444 and the like are placeholders
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


_CN_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)


def cn_id_ok(text: str) -> bool:
    """Mainland resident id: a real birth date and the ISO 7064 MOD 11-2 check character."""
    t = text.upper()
    if len(t) != 18 or not t[:17].isdigit():
        return False
    try:
        date(int(t[6:10]), int(t[10:12]), int(t[12:14]))
    except ValueError:
        return False
    total = sum(int(c) * w for c, w in zip(t[:17], _CN_ID_WEIGHTS))
    return "10X98765432"[total % 11] == t[17]


CHECKS: dict[str, Callable[[str], bool]] = {"luhn": luhn_ok, "cn_id": cn_id_ok}


_NON_DIGITS = re.compile(r"[^0-9]")


def _digits(text: str) -> str:
    return _NON_DIGITS.sub("", text)


def _cn_mobile(text: str) -> str:
    d = _digits(text)
    return d[-11:]  # +86 / 0086 and separators do not make a different number


def _phone(text: str) -> str:
    return "+" + _digits(text)


NORMALISERS: dict[str, Callable[[str], str]] = {
    "none": lambda s: s,
    "lower": str.lower,
    "upper": str.upper,
    "digits": _digits,
    "cn_mobile": _cn_mobile,
    "phone": _phone,
}
