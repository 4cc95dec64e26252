"""A request's day and clock said in one clause are one time (dev set 15q)."""

from __future__ import annotations

import json

import pytest

from trace_audit.queries.lexicon import compile_lexicon
from trace_audit.queries.reading.stored_values import stored_values
from trace_audit.queries.reading.told_times import one_clause_time
from trace_audit.queries.reading.value_checks import Comparer, _compared


@pytest.fixture(scope="module")
def tools():
    lex = compile_lexicon()
    return lex.value_reader(), Comparer(lex.data)


def asked(tools, text, args, at="2026-12-01T12:30:00+00:00"):
    reader, cmp = tools
    stored = stored_values(json.dumps(args), None, None, None, [])
    wants, join = one_clause_time(text, reader.extract(text))
    return [(r[1], r[-1]) for r in _compared(cmp, wants, stored, at, "America/Chicago", True, join_days=join)]


@pytest.mark.parametrize("text, join", [
    ("book me into the 6pm HIIT class tonight", True),
    ("the 7 AM spin class tomorrow please", True),
    ("明早提醒我，我九点前起不来", False),
    ("remind me tomorrow, I get up at 7", False),
    ("move it from 3pm to tomorrow", False),
])
def test_one_clause(tools, text, join):
    reader, _ = tools
    assert one_clause_time(text, reader.extract(text))[1] is join


def test_the_clock_of_a_day_asked_in_one_clause_is_judged(tools):
    args = {"starts_at": "2026-12-01T17:00:00-06:00"}
    assert asked(tools, "book me into the 6pm HIIT class tonight", args) == [("starts_at", "mismatch")]
    assert asked(tools, "book me into the 5pm HIIT class tonight", args) == [("starts_at", "match")]


@pytest.mark.parametrize("text, roles", [
    # a time in the part that refunds a thing names the thing refunded, as in a cancel
    ("freeze my membership for 2 months and refund the PT session I had booked for Friday", ["from"]),
    ("把周五的私教课退款，再约下周一", ["from", None]),
    # a time in another part is asked
    ("refund my order and rebook me for Friday", [None]),
])
def test_a_time_of_a_thing_refunded_is_no_value_asked(tools, text, roles):
    reader, _ = tools
    assert [v["role"] for v in reader.extract(text) if v["type"] == "time"] == roles


def test_the_refunded_sessions_day_is_not_held_against_another_write(tools):
    args = {"member_id": "GM-1", "start": "2026-12-02", "months": 2}
    said = "can you freeze my membership for 2 months and refund the PT session I had booked for Friday"
    assert all(v == "match" for _, v in asked(tools, said, args))
