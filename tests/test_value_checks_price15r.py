"""The write's own price returned as a record of one level (dev set 15r): "total": {"amount_cents": …},
"premium": {"total_cents": …} are what the write cost. Must: a total told otherwise is found; must-not:
the same total, a price in a list of items, a price deeper in another record."""

from __future__ import annotations

import json

import pytest

from trace_audit.queries.config import Config
from trace_audit.queries.lexicon import compile_lexicon
from trace_audit.queries.reading.stored_values import stored_values
from trace_audit.queries.reading.value_checks import Comparer, _compared


@pytest.fixture(scope="module")
def tools():
    lex = compile_lexicon()
    return lex.value_reader(), Comparer(lex.data)


def verdicts(tools, text, args, result):
    reader, cmp = tools
    stored = stored_values(json.dumps(args), json.dumps(result), None, None, cmp.patterns)
    return [(r[1], r[-1]) for r in _compared(cmp, reader.extract(text), stored, "2026-12-01T12:00:00+00:00",
                                             "Asia/Shanghai", zone_known=True)]


def test_a_price_record_of_one_level_is_the_writes_own(tools):
    result = {"id": "Q-1", "total": {"amount_cents": 480000, "currency": "CNY"}}
    assert verdicts(tools, "报价已接受，总金额 ¥4,850.00", {"id": "Q-1"}, result) == [("total.amount_cents", "mismatch")]
    assert verdicts(tools, "报价已接受，总金额 ¥4,800.00", {"id": "Q-1"}, result) == [("total.amount_cents", "match")]
    result = {"policy_no": "P-1", "premium": {"total_cents": 31000, "per_person_cents": 15500}}
    assert ("premium.total_cents", "mismatch") in verdicts(tools, "Your policy is issued, premium $320 in all", {}, result)
    assert verdicts(tools, "Your policy is issued, $155 per person", {}, result) == [("premium.per_person_cents", "match")]


def test_a_price_in_a_list_or_deeper_in_another_record_stays_nested(tools):
    items = {"order_id": "O-1", "items": [{"name": "lamp", "price": {"cents": 2000}}, {"name": "rug", "price": {"cents": 9000}}]}
    assert verdicts(tools, "Ordered! $75 in all", {}, items) == []
    deeper = {"order_id": "O-2", "seller": {"fees": {"total_cents": 900}}}
    assert verdicts(tools, "Ordered! $75 in all", {}, deeper) == []


@pytest.mark.parametrize("text", ["报价 Q-9 已接受", "两位的旅行险已出单，保单号 TI-1"])
def test_a_quote_accepted_and_a_policy_issued_claim(text):
    r = compile_lexicon(Config()).reader().read(text)
    assert r.is_claim, r


@pytest.mark.parametrize("text", ["对方已接受您的邀请", "如果您接受这个报价，我就下单", "保单还没出单"])
def test_accepted_by_another_or_not_yet_issued_claims_nothing(text):
    assert not compile_lexicon(Config()).reader().read(text).is_claim
