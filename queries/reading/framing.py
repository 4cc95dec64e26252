"""Clauses framed by the clause before them as someone else's words or a state read.

- A template, a draft or a sample the reply offers ("Here's a message you can send:", 模板：,
  可以这样回复：) frames what follows as text for the user to use: nothing after it is the
  assistant's own statement (a draft saying "I've cancelled my subscription" is the user's to send).
- A status read and then told after a colon ("Your order status shows: Cancelled.", 查询结果：已退款)
  frames the status as information: a bare completion right after it is a state read, not a claim.
"""

from __future__ import annotations

from dataclasses import replace

_COLON = (":", "：")


def reframe(first, clauses: list, segments: list) -> list:
    """The clause readings with framed ones re-kinded. `first(kind, text)` is the reader's rule match."""
    out = list(clauses)
    for i, seg in enumerate(segments):
        if first("template", seg.text) is not None and (seg.closer in _COLON or i == len(segments) - 1
                                                        or segments[i + 1].sentence != seg.sentence):
            return out[:i + 1] + [replace(c, kind="other", retracts=False, admits=False) for c in out[i + 1:]]
        if (i > 0 and out[i].kind == "completion" and segments[i - 1].closer in _COLON
                and segments[i - 1].sentence == seg.sentence and first("status_read", segments[i - 1].text) is not None):
            out[i] = replace(out[i], kind="pre_existing")
    return out
