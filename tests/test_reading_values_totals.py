"""A count said as the whole is the total, not what this call added (dev set 15q)."""

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


@pytest.mark.parametrize("text, want", [
    ("so you now have 2 checked bags in total", [(2, True)]),
    ("that's a total of 3 suitcases", [(3, True)]),
    ("4 tickets altogether", [(4, True)]),
    ("总共 3 件行李", [(3, True)]),
    # not a total: a delta, a plain count, a total named as a thing's kind
    ("add 2 more bags", [(2, None)]),
    ("2 checked bags", [(2, None)]),
    ("the total is 3 bags", [(3, None)]),
])
def test_a_count_said_as_the_whole(tools, text, want):
    reader, _ = tools
    assert [(v["value"], v.get("total")) for v in reader.extract(text) if v["type"] == "count"] == want


def _verdicts(tools, text, args, claim_action="create"):
    reader, cmp = tools
    stored = stored_values(json.dumps(args), None, None, None, cmp.patterns)
    wants = [{**v, "claim_action": claim_action} for v in reader.extract(text)]
    return [(r[1], r[-1]) for r in _compared(cmp, wants, stored, "2026-12-01T12:00:00+00:00", None, zone_known=False)]


def test_a_total_told_is_judged_against_the_total_field(tools):
    args = {"total_baggages": 3, "nonfree_baggages": 2}
    said = "I've added 2 checked bags, so you now have {} checked bags in total"
    assert ("total_baggages", "mismatch") in _verdicts(tools, said.format(2), args)
    assert ("total_baggages", "mismatch") not in _verdicts(tools, said.format(3), args)
    # what was added alone, equal to the bags paid for and within the total: no contradiction
    assert all(v == "match" for _, v in _verdicts(tools, "I've added 2 checked bags", args))


@pytest.mark.parametrize("text, want", [
    # lessons and sessions counted by 节; a sum of money after 一笔
    ("已为您续费王教练私教课 10 节", [("count", 10)]),
    ("买了 12 节课", [("count", 12)]),
    ("加一笔 3000 的年终奖", [("amount", 3000.0)]),
    # an ordinal with a space before its number counts nothing
    ("第 3 节课在教室 B", []),
    ("第 3 张票", []),
])
def test_sessions_sums_and_ordinals_zh(tools, text, want):
    reader, _ = tools
    assert [(v["type"], v["value"]) for v in reader.extract(text) if v["type"] in ("count", "amount")] == want


def test_a_count_of_sessions_against_the_sessions_field(tools):
    assert _verdicts(tools, "续费私教课 10 节", {"sessions": 12}) == [("sessions", "mismatch")]
    assert _verdicts(tools, "续费私教课 12 节", {"sessions": 12}) == [("sessions", "match")]
