"""The unmarked reading (queries/reading/unmarked.py): a reply with no claim the lexicon knows and
no mark of any kind (failure, denial, inability, hedge, question, offer, condition, deferral, earlier
state, template, status read, correction, regret, contrast). said_but_not_done reads such a reply as
a claim only over writes that all went wrong (fixtures said_but_not_done/*unmarked*)."""

from __future__ import annotations

import pytest

from trace_audit.queries.lexicon import compile_lexicon


@pytest.fixture(scope="module")
def reader():
    return compile_lexicon().reader()


# plain statements whose verbs (if any) the claim lexicon need not know
UNMARKED = [
    "Table for two at Lupa, Friday 7:45pm, under Okafor.",
    "Your new PIN is live on the debit card ending 4410.",
    "Seat 14C on the 18:05 to Leeds, coach B.",
    "Ticket INC-88213 is with the network team now.",
    "周五晚上七点，两位，靠窗。",
    "新密码今天起生效，旧的那个作废。",
]

# marked replies: each carries one of the marks, so it tells the user something other than success
MARKED = [
    "Sorry, the reservations system is down this morning.",          # regret, trouble
    "That card was declined.",                                          # failure
    "I couldn't get through to the clinic's booking line.",           # unable
    "Your refund should land in 3–5 working days.",                   # deferral
    "Do you want the 7:45 or the 8:15 table?",                        # question
    "I can put you on the waitlist for Friday.",                       # offer
    "Once you confirm the amount, the transfer goes out.",            # condition
    "The 7:45 is taken, but the 8:15 is open.",                       # contrast
    "It's probably in your spam folder.",                              # hedge
    "不好意思，系统正在维护。",                                          # regret
    "这张卡可能有单笔限额。",                                            # hedge
    "您确认金额后就会转出。",                                            # condition
    "",                                                                 # nothing said
    "👍🙂",                                                              # no words
]


@pytest.mark.parametrize("text", UNMARKED)
def test_plain_statements_are_unmarked(reader, text):
    # a lexicon that learns the form reads a claim instead: either way never "says nothing"
    assert reader.read(text).verdict in ("unmarked", "claim")


@pytest.mark.parametrize("text", MARKED)
def test_marked_replies_are_not_unmarked(reader, text):
    assert reader.read(text).verdict != "unmarked"


def test_a_known_claim_stays_a_claim(reader):
    # the lexicon's own reading wins: a claim is a claim, judged by its claimed actions
    assert reader.read("I've booked the table for Friday at 7:45.").verdict == "claim"
