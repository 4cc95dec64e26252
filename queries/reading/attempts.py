"""An attempt told, then what stopped it ([clause.attempt]).

"I tried to escalate this to tier 2 but their queue is closed for the night": the first clause tells an
attempt and no result; the clause its contrast word opens (the segmenter cuts before but, however,
但是, and keeps the word: Clause.opener; [clause.contrast]) tells why the attempt did not go. A completion rule
reads that obstacle's state ("is closed", "is taken") as a claim; it is a failure of the attempted
action, taking back what a failure of that action takes back; read otherwise (a state that held
already, "the order is already packed") it still admits the attempt failed, so `partial` does not fire. With the reply as its doer ("but I've
booked the 7:30 instead") the clause is work of its own and keeps its reading; an attempt whose own
clause claims ("I tried again and it's booked") tells its result and frames nothing.
"""

from __future__ import annotations

from dataclasses import replace


def obstruct(first, ours, clauses: list, segments: list) -> list:
    out = list(clauses)
    for i in range(1, len(out)):
        prev, seg = segments[i - 1], segments[i]
        if (prev.sentence != seg.sentence or not seg.opener or first("contrast", seg.opener) is None
                or out[i - 1].kind == "completion" or first("attempt", prev.text) is None or ours(seg.text)):
            continue
        if out[i].kind == "completion":
            out[i] = replace(out[i], kind="failure", action=out[i - 1].action or out[i].action,
                             object=out[i - 1].object or out[i].object, retracts=True, admits=True)
        else:  # (an obstacle read otherwise, "the slot is taken", "is already packed", admits it all the same)
            out[i] = replace(out[i], admits=True)
    return out
