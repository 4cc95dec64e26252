"""Claim forms of dev set 15q the reader did not read, in words of their own (queries/lexicon/claims.toml)."""

from __future__ import annotations

import pytest

from trace_audit.queries.config import Config
from trace_audit.queries.lexicon import compile_lexicon


@pytest.fixture(scope="module")
def reader():
    return compile_lexicon(Config()).reader()


@pytest.mark.parametrize("text, action", [
    # a thing rented for the user
    ("储物柜也给你租好了，到前台报会员号就行", "book"),
    ("已经帮你租到一辆七座车，明早九点取", "book"),
    # V过了 is done now (V过 alone tells what was done before)
    ("王老师那边我也发消息通知过了", "send"),
    ("供应商我已经通知过了", "send"),
])
def test_claims(reader, text, action):
    r = reader.read(text)
    assert r.is_claim and any(r.clauses[i].action == action for i in r.standing), r


@pytest.mark.parametrize("text", [
    "这边还没租到合适的车",
    "租好之后记得拍照留底哦？",
    "如果租到了我再告诉你",
    "之前通知过了，不用再发",
    "宽带您已经开通过了，一直在用",
    "这家店我们上周就预约过",
])
def test_not_claims(reader, text):
    assert not reader.read(text).is_claim, reader.read(text)


@pytest.mark.parametrize("text", [
    # a noun headline with what it is for before its participle, ending the line
    "Museum field trip permission for Dec 11 submitted",
    "Tickets for Friday booked",
    "Your seat for the 7:40 show reserved",
])
def test_noun_headline_with_what_it_is_for(reader, text):
    assert reader.read(text).is_claim, reader.read(text)


@pytest.mark.parametrize("text", [
    "Nothing for today scheduled",
    "Flights to Denver canceled by the airline",
    "Want me to get the tickets for Friday booked?",
    "The form for Dec 11 is not submitted",
])
def test_noun_headline_look_alikes(reader, text):
    assert not reader.read(text).is_claim, reader.read(text)
