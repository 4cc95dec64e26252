"""Claim and tool forms of dev set 15r, in words of their own (queries/lexicon/claims.toml)."""

from __future__ import annotations

import pytest

from trace_audit.queries.config import Config
from trace_audit.queries.lexicon import compile_lexicon
from trace_audit.queries.reading.objects import ObjectGroups
from trace_audit.queries.reading.tools import ToolTyper, words


@pytest.fixture(scope="module")
def lex():
    return compile_lexicon(Config())


# a reminder at a time told from another thing is a promise on that thing ("I'll text you when it ships")
@pytest.mark.parametrize("text", [
    "We'll text you a reminder the day before.",
    "I'll remind you the night before your flight.",
    "We will call you the morning before the move to confirm.",
])
def test_a_reminder_the_day_before_something_claims_nothing(lex, text):
    assert not lex.reader().read(text).is_claim, lex.reader().read(text)


@pytest.mark.parametrize("text", [
    "I'll notify you 15 minutes before Monday's meeting.",
    "I'll remind you tomorrow at 9.",
    "I'll text you at 7 AM the day after tomorrow.",
])
def test_a_reminder_at_its_own_time_claims(lex, text):
    assert lex.reader().read(text).is_claim, lex.reader().read(text)


# money taken from a balance or a card is a charge
@pytest.mark.parametrize("name", ["wallet/debit", "balance.deduct", "accounts.debit_funds"])
def test_a_debit_is_a_charge(lex, name):
    r = ToolTyper(lex.data).classify(name, None, None)
    assert r.is_write and r.action == "book", r


@pytest.mark.parametrize("name", ["get_debit_cards", "wallet/balance"])
def test_reading_about_debits_is_no_write(lex, name):
    assert not ToolTyper(lex.data).classify(name, None, None).is_write


def test_a_work_order_is_a_ticket_and_a_meeting_room_a_room(lex):
    g = ObjectGroups(lex.data)
    assert "ticket" in g.of_tool_words(words("fleetService.workOrders.create"))
    assert g.of_tool_words(words("shop.orders.create")) == ["order"]
    assert g.of_word("小会议室") == "hotel" and g.of_word("会议") == "event"
    r = lex.reader().read("已预订周四下午的小会议室")
    assert r.is_claim and r.clauses[r.standing[0]].object == "会议室"


# a transfer started for the user is the transfer, not a thing made
@pytest.mark.parametrize("text", ["已发起转赠，转赠单号 TRF-1", "两张票已经转赠给同事了"])
def test_a_transfer_started_is_a_transfer(lex, text):
    r = lex.reader().read(text)
    assert r.is_claim and r.clauses[r.standing[0]].action == "transfer", r


@pytest.mark.parametrize("text", ["我还没发起转赠", "要不要我帮你发起转赠？"])
def test_a_transfer_not_started_claims_nothing(lex, text):
    assert not lex.reader().read(text).is_claim
