"""A claim taken back in the same reply: a correction word, then why it cannot be done.

People type a reply and catch themselves: "I've added the oat milk — actually, scratch that, the picker
has already started on your order so I can't edit the basket", 已经给您加上了——啊不对，骑手已经接单，购物车改
不了了. The correction word ([clause.correction]: scratch that, my mistake, 不对, 说错了) followed, in its
sentence or the next, by an admission (a failure, a negated action, an inability) withdraws every claim
before it, whatever word the admission uses for the thing; the clauses between give the reason (another
party's doing, a state) and claim nothing. A correction that restates a value ("— sorry, correction, the
7:40") corrects the claim in passing and keeps it (takeback.py), so a value told after the word leaves it.
"""

from __future__ import annotations

from dataclasses import replace

from . import takeback


def withdraw(first, clauses: list, segments: list) -> list:
    """The clause readings with each such correction read as a failure about no one thing."""
    out = list(clauses)
    for k, seg in enumerate(segments):
        fix = first("correction", seg.text) if out[k].kind == "other" else None
        if fix is None or not any(c.kind == "completion" for c in out[:k]):
            continue
        admitted = None
        for j in range(k + 1, len(out)):
            if segments[j].sentence > seg.sentence + 1:
                break
            if out[j].admits:
                admitted = j
                break
        if admitted is None or takeback.values(seg.text[fix.end():]) or any(
                takeback.values(segments[j].text) for j in range(k + 1, admitted)):
            continue
        out[k] = replace(out[k], kind="failure", action=None, object=None, retracts=True, admits=True)
        for j in range(k + 1, admitted):
            if out[j].kind == "completion":
                out[j] = replace(out[j], kind="other")
    return out
