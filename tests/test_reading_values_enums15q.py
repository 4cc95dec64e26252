"""Choices named by the words people use and stored as a system's codes (dev set 15q): a bank by its
name and its code, a cloud region by the console's name and its id, a car wash's tier, a plan's
tier, hotel rooms coded by their beds. Must: the contradiction found; must-not: the same choice in
other words, and the words in other senses."""

from __future__ import annotations

import json

import pytest

from trace_audit.queries.lexicon import compile_lexicon
from trace_audit.queries.reading.stored_values import stored_values
from trace_audit.queries.reading.value_checks import Comparer, _compared


@pytest.fixture(scope="module")
def tools():
    lex = compile_lexicon()
    return lex.value_reader(), Comparer(lex.data)


def verdicts(tools, text, args, result=None):
    reader, cmp = tools
    stored = stored_values(json.dumps(args), json.dumps(result) if result is not None else None, None, None,
                           cmp.patterns)
    return [(r[1], r[-1]) for r in _compared(cmp, reader.extract(text), stored, "2026-12-01T12:00:00+00:00", None,
                                             zone_known=False)]


@pytest.mark.parametrize("text, args, want", [
    ("已从您尾号 6621 的招商银行卡扣款", {"payment": {"bank": "ICBC", "card_last4": "6621"}}, "mismatch"),
    ("用招行卡付", {"payment": {"bank": "CMB"}}, "match"),
    ("用工行的卡", {"bank": "ICBC"}, "match"),
    ("在华东2（上海）开一台实例", {"RegionId": "cn-hangzhou"}, "mismatch"),
    ("在华东1开一台实例", {"RegionId": "cn-hangzhou"}, "match"),
    ("周六上午 10:00 望京店，精洗套餐", {"service": "basic_wash"}, "mismatch"),
    ("普洗就行", {"service": "basic_wash"}, "match"),
    ("your policy is now on the Plus plan", {"plan": "STANDARD"}, "mismatch"),
    ("your policy is now on the Plus plan", {"plan": "PLUS"}, "match"),
    ("a room with two queen beds", {"room_type": "1KING"}, "mismatch"),
    ("a room with two queen beds", {"room_type": "2QUEEN"}, "match"),
    ("the King room", {"room_type": "1KING"}, "match"),
])
def test_a_choice_against_its_code(tools, text, args, want):
    got = [v for _, v in verdicts(tools, text, args)]
    assert got == [want], verdicts(tools, text, args)


@pytest.mark.parametrize("text", [
    # the words in other senses, or no field of the kind
    "途中行驶注意安全", "提交行程单", "the plus side is the view", "I washed the car myself",
])
def test_no_choice_where_the_words_mean_something_else(tools, text):
    reader, _ = tools
    assert not [v for v in reader.extract(text) if v["type"] == "choice" and v["enum"] in
                ("bank", "region", "wash", "plan")], reader.extract(text)


def test_a_code_in_a_field_of_another_kind_says_nothing(tools):
    # a bank's code stored where no bank is named (an account type "abc") is not compared
    assert verdicts(tools, "用招行卡付", {"account_type": "abc"}) == []
