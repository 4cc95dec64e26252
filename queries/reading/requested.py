"""The action a request claims ([clause.asks_for] in claims.toml).

A verb that asks for an action files the request for it: "Transfer requested!", "Refund requested",
退货已申请 claim a transfer, a refund, a return, with the action named right before the asking verb as its
noun, not a thing made. With no action named beside it ("I've requested his records", "Requested: …") the
request itself is what was done (a create). The action class is then that noun's own, so a prescription's
transfer over rx.transfer or a refund over refunds.create is fitted as the action it names.
"""

from __future__ import annotations

import re

_SPACE = re.compile(r"\s+")
# at most this many characters between the action's noun and the asking verb ("Refund request submitted",
# "Transfer requested"): further apart, the noun belongs to another phrase
_NEAR = 12


def claimed_word(found: list, asks=None) -> str:
    """The verb whose class the clause claims among the verbs found (the last: the one a completion marker
    closes), or, where that one asks for an action (asks(word)), the action named just before it; single
    Chinese characters (发, 订 inside 发票, 订单) name no action there."""
    word = _SPACE.sub(" ", found[-1].group(0).lower())
    if asks is None or len(found) < 2 or not asks(word):
        return word
    prev = found[-2]
    noun = _SPACE.sub(" ", prev.group(0).lower())
    if found[-1].start() - prev.end() > _NEAR or asks(noun) or (len(noun) == 1 and not noun.isascii()):
        return word
    return noun
