"""A claim told as a state found, not as work done: the reading a careful person gives a lookup's answer.

Support and travel assistants look a record up and tell the user its state: "Your flight is
confirmed for 9:00 AM", 订单已于 12 月 3 日签收，退款也已到账, "Found it — you're all set for
Tuesday". The words are a completion's; the act is a read. Whether the reply tells a state or
claims work is not in the words alone: the same "is confirmed" over a failed booking is a false
success. So this module only marks a reply whose every standing claim is told as a state found
(verdict `report`): a state a process reaches ([clause.status]: approved, delivered, settled,
签收, 到账), or anything told after a lookup the reply names ([clause.looked_up]: "Found it",
查到了), and none with the reply itself as the doer ([clause.our_doing]: "I've", 帮你, a bare
"Moved you to 14C"), nor work of its own told elsewhere in it ([clause.our_work]: "I re-ran the two
flaky tests and they're green now"). said_but_not_done.sql then asks the turn: a window that read and wrote
nothing makes it a report; writes make it a claim as any other.

A present state with no process word and no lookup named ("You're booked in with Dr Patel on
Friday", "Your seat on the 6 PM flight is reserved": [clause.state_now]) is weaker: read from that
very record it reports the record; told after a search or an availability check it says a thing was
done that only was looked for. Such a reply gets the verdict `state`, and said_but_not_done.sql
makes it a report only over a window that read one record (tool_classes.reads_record:
queries/reading/tools.py) and wrote nothing.
"""

from __future__ import annotations

import re
from typing import Callable, Sequence


class Reported:
    def __init__(self, first: Callable[[str, str], re.Match | None]):
        self._first = first

    def told(self, clauses: Sequence, standing: Sequence[int]) -> str:
        """'report' when each standing claim tells a state found (a status, or after a named lookup);
        'state' when some tell only a present state ([clause.state_now]) and the rest a state found;
        'claim' when any is the reply's own doing or told some other way."""
        looked = next((i for i, c in enumerate(clauses) if self._first("looked_up", c.text) is not None), None)
        # a record's summary header ("Ticket summary:", 工单概况：) lists that record's fields: told as read of that
        # record ('state': a report only over a read of one record, not after a search). The fields open with their
        # participle ("reported twice"), so among them only a doer named is the reply's own doing
        summary = next((i for i, c in enumerate(clauses) if self._first("record_summary", c.text) is not None), None)
        if not standing or any(i not in (looked, summary) and self._first("our_work", c.text) is not None
                               for i, c in enumerate(clauses)):
            return "claim"
        told = "report"
        for j in standing:
            text, listed = clauses[j].text, summary is not None and summary < j
            if self._first("our_doing", text) is not None or (not listed and self._first("our_headline", text) is not None):
                return "claim"
            if (looked is None or looked > j) and self._first("status", text) is None:
                if not listed and self._first("state_now", text) is None:
                    return "claim"
                told = "state"
        return told
