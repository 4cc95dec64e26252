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
    return [{"clause": r["clause"], "action": r["action"], "object": r["object"], "backs": r["backs"]}
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


# ---- money taken off or let go is a thing of its own: a coupon applied, a fine or a late fee cleared
@pytest.mark.parametrize("text, obj", [
    ("Your $2.75 library fine is cleared.", "fee"), ("The late fee has been waived.", "fee"),
    ("滞纳金已经帮你结清了。", "fee"), ("那张满50减8的券已抵扣。", "coupon"), ("红包已抵用。", None),
])
def test_a_coupon_or_a_fine_is_a_thing_a_write_must_name(plan, text, obj):
    got = _items(plan, text)
    assert got and got[0]["object"] == obj, got
    if obj:
        assert got[0]["backs"].endswith("named,"), got


@pytest.mark.parametrize("text", ["That's fine, I'll keep the 7 PM slot for you.", "No late fee applies to this renewal."])
def test_fine_as_a_word_or_a_fee_denied_claims_no_fee(plan, text):
    assert all(i["object"] != "fee" for i in _items(plan, text)), _items(plan, text)


@pytest.mark.parametrize("text", ["Re-sent to the backup printer and all 40 labels came out fine.",
                                  "The replacement works fine now, I've closed the ticket."])
def test_fine_as_an_adverb_names_no_fee(plan, text):
    assert all(i["object"] != "fee" for i in _items(plan, text)), _items(plan, text)


# ---- a thing on its way to the user's inbox or phone was sent; a copy a write makes follows from it
@pytest.mark.parametrize("text", ["The intake forms are on their way to your inbox.",
                                  "Your signed lease is on its way to your email now."])
def test_a_thing_on_its_way_to_the_users_inbox_is_a_send(plan, text):
    got = _items(plan, text)
    assert got and got[0]["action"] == "send" and got[0]["object"] is None, got


@pytest.mark.parametrize("text", ["Your receipt is on its way to your inbox.", "电子登机牌已发到你手机上。",
                                  "登机牌已经发到您的 App 里了。"])
def test_a_copy_a_write_makes_sent_to_the_user_follows_from_it(plan, text):
    got = _items(plan, text)
    assert got and got[0]["object"] == "mailed_copy", got


@pytest.mark.parametrize("text", ["体检报告已发到你手机上。", "Your package is on its way to your door."])
def test_a_report_sent_or_a_parcel_on_its_way_is_no_copy_of_a_write(plan, text):
    assert all(i["object"] != "mailed_copy" for i in _items(plan, text)), _items(plan, text)


@pytest.mark.parametrize("name, is_write", [("checkin_passenger", True), ("hotel.check_in", True),
                                            ("flight_checkin", True), ("checkin.status", False),
                                            ("get_check_in_status", False)])
def test_a_check_in_changes_the_booking_its_status_is_read(typer, name, is_write):
    c = typer.classify(name)
    assert c.is_write == is_write and (c.action == "update" or not is_write), c
