"""A promise put to the user for consent: "到时候我提醒您来约，好吗？", "I'll ping you Friday morning, OK?".

A reminder's promise reads as done (a reminder is itself a promise: clauses.py). Closed in its sentence by a
consent tag asked as a question ([clause.consent_tag]: 好吗, 行吗, 可以吗, OK?, sound good?), it is proposed:
the reply asks whether to make it, so it is an offer, not a reminder set. A claim of work done keeps its
reading whatever tag follows it ("I've booked it for 8, OK?").
"""

from __future__ import annotations

from dataclasses import replace


def propose(first, clauses: list, segments: list) -> list:
    out = list(clauses)
    for i in range(1, len(out)):
        before = out[i - 1]
        if (out[i].kind == "question" and segments[i - 1].sentence == segments[i].sentence
                and before.kind == "completion" and (before.action, before.object) == ("create", "reminder")
                and first("promise", segments[i - 1].text) is not None
                and first("consent_tag", segments[i].text) is not None):
            out[i - 1] = replace(before, kind="offer")
    return out
