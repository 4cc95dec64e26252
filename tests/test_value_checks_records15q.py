"""A returned record wrapped under one key is the write's own record, and an id kept as a number is
an id (dev set 15q). Must: the contradiction in the wrapped record found; must-not: a record under
one of several keys, a wrapped record's lists, and the same id."""

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


def verdicts(tools, text, args, result=None, tz="Asia/Shanghai"):
    reader, cmp = tools
    stored = stored_values(json.dumps(args), json.dumps(result) if result is not None else None, None, None,
                           cmp.patterns)
    return [(r[1], r[-1]) for r in _compared(cmp, reader.extract(text), stored, "2026-12-01T12:00:00+00:00", tz,
                                             zone_known=tz is not None)]


def test_a_record_returned_under_one_key_is_the_writes_own(tools):
    result = {"slot": {"id": "SL-1209-AM", "date": "2026-12-10", "period": "AM", "coach": "刘教练"}}
    assert verdicts(tools, "约好了：12月9日上午", {"slot_id": "SL-1209-AM"}, result) == [("date", "mismatch")]
    assert verdicts(tools, "约好了：12月10日上午", {"slot_id": "SL-1209-AM"}, result) == [("date", "match")]
    # wrapped twice ({"data": {"booking": {...}}})
    assert verdicts(tools, "booked for Dec 9", {}, {"data": {"booking": {"date": "2026-12-10"}}}) == [
        ("date", "mismatch")]


def test_a_record_under_one_of_several_keys_and_a_wrapped_records_lists_stay_nested(tools):
    # two records returned: each describes its own thing, neither is the write's
    assert verdicts(tools, "booked for Dec 9", {}, {"slot": {"date": "2026-12-10"}, "coach": {"since": "2020-01-01"}}) == []
    # the lines of a wrapped order describe its items, as before
    result = {"order": {"items": [{"name": "Tee", "options": {"size": "L"}}]}}
    assert verdicts(tools, "changed to a medium", {"order_id": "#W1"}, result) == []


@pytest.mark.parametrize("text, number, want", [
    ("Incident #4812 opened (high urgency)", 4821, "mismatch"),
    ("Incident #4821 opened (high urgency)", 4821, "match"),
])
def test_an_id_kept_as_a_number(tools, text, number, want):
    result = {"incident": {"id": "Q1TK8ZQ3X0A2B7", "incident_number": number, "status": "triggered"}}
    assert verdicts(tools, text, {"title": "Checkout outage"}, result, tz=None) == [("incident_number", want)]


def test_a_number_of_another_kind_is_no_id(tools):
    # a count or an amount stored as a number is not compared with an incident's id
    assert verdicts(tools, "Incident #4812 opened", {"title": "x"}, {"pages_sent": 4812}, tz=None) == []


def test_the_times_of_the_record_the_call_named_are_what_the_write_did(tools):
    args = {"reservation_id": "7ZKQ4B", "flights": [{"flight_number": "HAT097", "date": "2026-12-04"}]}
    result = {"reservation_id": "7ZKQ4B", "flights": [{"flight_number": "HAT097", "date": "2026-12-04",
                                                       "departure_time": "06:05"}]}
    said = "moved to flight HAT097, departing Friday, December 4 at {} AM"
    assert ("flights.departure_time", "mismatch") in verdicts(tools, said.format("7:05"), args, result, tz="America/Chicago")
    assert ("flights.departure_time", "mismatch") not in verdicts(tools, said.format("6:05"), args, result,
                                                                   tz="America/Chicago")
    # a flight the call did not name (the rest of the returned record) says nothing of the time told
    other = {"reservation_id": "7ZKQ4B", "flights": [{"flight_number": "HAT555", "date": "2026-12-09",
                                                      "departure_time": "06:05"}]}
    assert not any(f == "flights.departure_time" for f, _ in verdicts(
        tools, said.format("7:05"), {"reservation_id": "7ZKQ4B"}, other, tz="America/Chicago"))
