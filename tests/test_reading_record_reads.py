"""A present state told after a read of that very record is a report; after a search it is a claim.

"You're booked in with the hygienist on Monday" over get_appointment tells what the record says; the same
words over search_slots or list_availability say a booking was made that only was looked for. The reader
marks such a reply `state` ([clause.state_now], queries/reading/reported.py), the tool typing marks a read
of one record (tool_classes.reads_record: [tools] record_read / many, queries/reading/tools.py), and
said_but_not_done.sql makes a `state` a report only over a window that read one record and wrote nothing
(fixtures said_but_not_done/pass_present_state_over_a_record_read, fire_present_state_over_a_search_only).
"""

from __future__ import annotations

import pytest

from trace_audit.queries.config import Config
from trace_audit.queries.lexicon import compile_lexicon
from trace_audit.queries.reading.tools import ToolTyper


@pytest.fixture(scope="module")
def reader():
    return compile_lexicon().reader()


@pytest.fixture(scope="module")
def typer():
    return ToolTyper(compile_lexicon(Config()).data)


# a state in the present, of the user or the thing, with nobody doing it: the turn decides
STATES = [
    "You're booked in with the hygienist on Monday at 8:15. Please floss beforehand.",
    "Your spot on the 7 AM shuttle is reserved.",
    "The kids' swim lesson is scheduled for Saturday at 9.",
    "Both of you are registered for the pottery workshop.",
    "You're confirmed for the 4:45 screening, row F.",
    "Your table's all set for Friday at 8.",
    "The supplier agreement is fully executed.",
    "您的复诊已确认，周三上午 10 点。",
]

# a change said as one (now, successfully, for you, the reply as the doer), or a perfect: a claim as before
CLAIMS = [
    "You're now booked in with the hygienist on Monday at 8:15.",
    "Your spot on the 7 AM shuttle is reserved for you.",
    "I've reserved your spot on the 7 AM shuttle.",
    "Your table has been booked for Friday at 8.",
    "Booked! You're in for Friday.",
    "The swim lesson is scheduled successfully for Saturday.",
    "已经帮您确认了周三上午 10 点的复诊。",
]


@pytest.mark.parametrize("text", STATES)
def test_a_present_state_is_told_as_a_state(reader, text):
    r = reader.read(text)
    assert r.is_claim and r.verdict == "state" and r.standing, [c.as_dict() for c in r.clauses]


@pytest.mark.parametrize("text", CLAIMS)
def test_a_change_or_own_doing_stays_a_claim(reader, text):
    r = reader.read(text)
    assert r.is_claim and r.verdict == "claim", [c.as_dict() for c in r.clauses]


def test_a_process_state_stays_a_report(reader):
    # a state others' process reaches (shipped, approved) is a report over any read, as before
    assert reader.read("Your parcel has shipped and the refund was approved.").verdict == "report"


@pytest.mark.parametrize("name", [
    "get_appointment", "lookup_booking", "clinic.visits.get", "booking_details", "getPolicyStatus",
    "GET /v1/reservations/{code}", "GET /orders/50213", "reservations.fetch", "ehr.patient.lookup",
])
def test_a_read_of_one_record(typer, name):
    c = typer.classify(name)
    assert not c.is_write and typer.reads_record(name, c.is_write)


@pytest.mark.parametrize("name", [
    "search_slots", "list_availability", "get_available_slots", "check_availability", "find_tables",
    "get_reminders", "calendar.events.list", "GET /v1/reservations", "fares.quote.get", "createBooking",
    "hr.leave.balance",
])
def test_a_search_a_list_or_a_write_reads_no_one_record(typer, name):
    c = typer.classify(name)
    assert not typer.reads_record(name, c.is_write)
