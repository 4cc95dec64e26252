"""States told as found (queries/reading/reported.py): a reply whose every standing claim tells a
state a process reached, or what a lookup it names found, and none the reply's own doing, is read
`report`; said_but_not_done then asks the turn (fixtures said_but_not_done/*state*)."""

from __future__ import annotations

import pytest

from trace_audit.queries.lexicon import compile_lexicon


@pytest.fixture(scope="module")
def reader():
    return compile_lexicon().reader()


# states a process reaches, or what a named lookup found: told as read
REPORTS = [
    "Your flight is confirmed for 9:00 AM on Friday (UA 1187, seat 14C).",
    "Good news: the claim has been approved and the payment has cleared.",
    "Your parcel was delivered at 2:14 PM and signed for by R. Diaz.",
    "Found it — you're all set for Tuesday at 10:30 with Dr. Patel.",
    "I checked: the refund has been processed and should show on your card.",
    "Looks like your order has shipped; it's in transit with DHL.",
    "查到了：订单已于 12 月 3 日签收。",
    "你上次的报销已经审批通过了，款项也已到账。",
    "系统显示这张保单已经生效。",
    "您的机票已出票，票号 781-2345678901。",
]

# the reply's own work, or an action the reply did: a claim whatever the turn
CLAIMS = [
    "I've confirmed your flight for 9:00 AM on Friday.",       # the reply as the doer
    "Moved you to 14C; your seat is confirmed.",                # a bare past verb: its own work
    "Your reminder has been created for 8 AM.",                 # the reply's kind of work, not a state
    "Friday's meeting has been added to your calendar.",
    "I re-ran the two flaky tests and they're green now, so staging is good to go.",  # work, then its result
    "我已经帮您确认了预订，明早 9 点。",
    "帮你把请假单提交了，现在已经审批通过。",
    "提醒已创建：每周一早上九点提交周报。",
]


@pytest.mark.parametrize("text", REPORTS)
def test_a_state_told_as_found_is_never_a_plain_claim(reader, text):
    # a report, a present state (a report over a read of one record: test_reading_record_reads.py), or
    # (where the reader knows no completion in it) no claim or an unmarked statement:
    # each is judged by the turn's writes, never fired over a window that only read
    r = reader.read(text)
    assert r.verdict in ("report", "state", "unmarked", "no_claim"), [c.as_dict() for c in r.clauses]


def test_a_report_keeps_its_claims_for_the_value_checks(reader):
    r = reader.read("Your table is confirmed for 7:30 PM tonight, party of four.")
    assert r.is_claim and r.verdict in ("report", "state") and r.standing  # (a state: test_reading_record_reads.py)


@pytest.mark.parametrize("text", CLAIMS)
def test_own_work_stays_a_claim(reader, text):
    r = reader.read(text)
    assert r.is_claim and r.verdict == "claim", [c.as_dict() for c in r.clauses]
