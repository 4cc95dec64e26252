"""Claimed actions read as dev set 15T showed them (fixg, issue 15 check 1), each in words of its own:
a change set to happen is that change, a print is a thing as often as a job sent to a printer, a
device set is put in a state."""

from __future__ import annotations

import pytest

from trace_audit.queries import engine
from trace_audit.queries.config import Config
from trace_audit.queries.lexicon import compile_lexicon
from trace_audit.queries.reading.tables import read_texts
from trace_audit.queries.reading.tools import ToolTyper


@pytest.fixture(scope="module")
def plan():
    return engine.plan_run()


@pytest.fixture(scope="module")
def typer():
    return ToolTyper(compile_lexicon(Config()).data)


def _items(plan, text: str) -> list[dict]:
    return [{"clause": r["clause"], "action": r["action"], "object": r["object"]}
            for r in read_texts([text], plan)["claim_items"].to_pylist()]


# ---- a change set to happen is that change: the verb after "to", not "set"
@pytest.mark.parametrize("text, action", [
    ("Your gym plan is set to cancel at the end of January.", "delete"),
    ("The water service is scheduled to stop on the 3rd.", "delete"),
    ("Your insurance policy's set to renew on March 1.", "update"),
])
def test_a_change_set_to_happen_is_that_change(plan, text, action):
    got = _items(plan, text)
    assert got and got[0]["action"] == action, got


@pytest.mark.parametrize("text", ["The heat is set to 21°C now.", "Your alarm is set for 6:15 tomorrow."])
def test_set_to_a_value_or_a_time_stays_a_setting(plan, text):
    got = _items(plan, text)
    assert got and got[0]["action"] == "create", got


# ---- a print is a thing as often as a job sent to a printer
@pytest.mark.parametrize("name, action", [("print_order_create", "create"), ("photo_prints.create", "create"),
                                          ("prints.order.place", "book")])
def test_a_tool_that_makes_an_order_of_prints_makes_it(typer, name, action):
    c = typer.classify(name)
    assert c.is_write and c.action == action, c


@pytest.mark.parametrize("name", ["print_label", "label.print", "printer.print_document", "reprint_receipt"])
def test_a_job_sent_to_a_printer_is_still_a_send(typer, name):
    c = typer.classify(name)
    assert c.is_write and c.action == "send", c


# ---- a device set is put in a state, not made
@pytest.mark.parametrize("name", ["home.light.set", "smarthome.humidifier.set", "set_fan", "plug.set",
                                  "climate.set", "devices.set"])
def test_a_device_set_is_a_change(typer, name):
    c = typer.classify(name)
    assert c.is_write and c.action == "update", c


@pytest.mark.parametrize("name", ["reminders.set", "alarm_set", "set_timer", "lights.status.get"])
def test_a_thing_set_that_is_no_device_is_still_made_or_read(typer, name):
    c = typer.classify(name)
    assert c.action in ("create", None), c
