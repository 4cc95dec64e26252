"""How told and asked values are read and compared with what a write stored (dev set 15w, fixk). Each
test holds must (found) and must-not (left alone) cases in words of their own, not the set's."""

from __future__ import annotations

import pytest

from value_support import tools, verdicts_at  # noqa: F401 (tools is a fixture)


told, asked = verdicts_at("2026-12-01T20:00:00-07:00", "America/Denver")


# ---- a length in days or weeks is a length, held by a field of days

def test_a_length_in_days_is_compared_with_a_field_of_days(tools):
    assert asked(tools, "pause my gym membership for 21 days", {"member": "G-1", "pause_days": 14}) == [
        ("pause_days", "mismatch")]
    assert asked(tools, "把会员暂停 10 天", {"member": "G-1", "days": 10}) == [("days", "match")]
    assert asked(tools, "keep the backups for 2 weeks", {"bucket": "b", "retentionDays": 7}) == [
        ("retentionDays", "mismatch")]
    assert told(tools, "Done, the archive now keeps 30 days of logs", {"keepDays": 30}) == [("keepDays", "match")]


def test_a_rate_an_ordinal_or_a_wait_in_days_is_no_length(tools):
    reader, _ = tools
    for text in ("take one twice a day", "3 times a week", "第三天再来", "remind me in 2 days", "三天后提醒我",
                 "booked at $25 a day", "1 pill a day", "50 km an hour"):
        assert not [v for v in reader.extract(text) if v["type"] == "duration"], text
    # a day of the month or a date is no length either
    assert asked(tools, "extend it to Dec 20", {"days": 5, "end_date": "2026-12-20"}) == [("end_date", "match")]


# ---- a bare word that is also an adjective names the member where it is a change's target

def test_a_bare_cabin_word_as_the_target_of_a_change_is_compared(tools):
    args = {"reservation_id": "QX12AB", "cabin": "economy"}
    assert ("cabin", "mismatch") in asked(tools, "bump reservation QX12AB to business", args)
    assert ("cabin", "mismatch") in asked(tools, "switch QX12AB to business, thanks", args)
    assert ("cabin", "match") in asked(tools, "downgrade QX12AB to economy", args)


def test_a_bare_cabin_word_that_is_no_target_is_still_left_alone(tools):
    args = {"reservation_id": "QX12AB", "cabin": "economy"}
    assert ("cabin", "mismatch") not in asked(tools, "I fly business a lot, can you add a bag to QX12AB", args)
    assert ("cabin", "mismatch") not in asked(tools, "first, add a bag to QX12AB", args)


# ---- a shop or a seating section held by its number

def test_a_store_or_section_number_is_compared_with_its_field(tools):
    assert asked(tools, "send my refill to branch #5120 please", {"rx": "99120", "to_branch": "5210"}) == [
        ("to_branch", "mismatch")]
    assert ("section", "match") in asked(tools, "4 seats in section 214", {"event": "E1", "section": "214", "qty": 4})
    assert ("section", "mismatch") in asked(tools, "4 seats in section 214", {"event": "E1", "section": "241", "qty": 4})
    assert told(tools, "Your prescription is ready at store 3301", {"rx": "5521"}, {"store": 3310}) == [
        ("store", "mismatch")]


def test_a_store_field_holding_a_name_holds_no_number(tools):
    assert ("store", "mismatch") not in asked(tools, "pick it up at store #4410", {"store": "Main Street"})
    # no word of the kind before the number: not a store's number
    assert ("to_store", "mismatch") not in asked(tools, "transfer 4410 units", {"to_store": "4401"})


# ---- counts: people by another word, and what the record says was done

def test_a_count_of_people_meets_a_field_naming_them_by_another_word(tools):
    args = {"adults": 2, "children": 1}
    assert asked(tools, "a room for 2 adults and 3 kids", args) == [("adults", "match"), ("children", "mismatch")]
    assert asked(tools, "两个大人一个孩子", {"adult_count": 2, "child_count": 1}) in (
        [("adult_count", "match"), ("child_count", "match")], [("child_count", "match")])
    # kids are not adults, nor nights
    assert ("adults", "mismatch") not in asked(tools, "just my 2 kids", {"adults": 1, "children": 2})


def test_a_returned_count_of_what_was_done_outranks_the_count_asked(tools):
    args, result = {"event": "E1", "quantity": 4}, {"order": "O-1", "issued": 3}
    assert told(tools, "All 4 tickets are issued, order O-1", args, result)[0] == ("issued", "mismatch")
    assert told(tools, "4 张票已出票", {"qty": 4}, {"issued": 4})[0] == ("issued", "match")
    # no count of what was done in the record: the call's count is what the write holds
    assert told(tools, "All 4 tickets are booked", args, {"order": "O-1", "status": "ok"}) == [("quantity", "match")]


# ---- a day of the month against a field keeping only a day

def test_a_day_of_the_month_is_compared_with_a_day_field(tools):
    assert told(tools, "Autopay is on: you'll be charged on the 12th of every month", {"charge_day": 21}) == [
        ("charge_day", "mismatch")]
    assert asked(tools, "每月 8 号自动还款", {"repay_day": 8}) == [("repay_day", "match")]
    assert told(tools, "Done, your rent goes out on the 1st each month", {"pay_day": "1"}) == [("pay_day", "match")]


def test_a_date_or_a_day_count_is_no_day_of_the_month(tools):
    # a date told is a date; a field of days counted is no day of the month
    assert ("due_day", "mismatch") not in told(tools, "Moved to Dec 12", {"due_day": 21})
    assert told(tools, "Set for the 12th", {"days": 21}) == []


# ---- cloud instance types

def test_an_instance_type_is_compared_with_the_type_field(tools):
    args = {"InstanceId": "i-0abc123", "InstanceType": "m5.xlarge"}
    assert ("InstanceType", "mismatch") in asked(tools, "resize i-0abc123 to m5.2xlarge", args)
    assert ("machine_type", "match") in asked(tools, "create a VM, n2.large please", {"machine_type": "gce.n2.large"})
    assert ("instance_class", "mismatch") in asked(tools, "把数据库规格改成 db.r6g.xlarge", {"instance_class": "db.r6g.large"})


def test_an_instance_type_is_no_size_and_no_id_of_the_instance(tools):
    reader, _ = tools
    vals = reader.extract("spin up a c7g.large in us-east-1")
    assert [(v["type"], v.get("kind")) for v in vals if v["text"] != "us-east-1"] == [("id", "instance_type")]
    assert ("InstanceId", "mismatch") not in asked(tools, "start a t3.small", {"InstanceId": "i-99f", "InstanceType": "t3.small"})
    # a large coffee is a size, not an instance
    assert [v["type"] for v in reader.extract("a large latte")] == ["choice"]


# ---- a nested returned record holding an id the call sent is the thing the write acted on

def test_a_nested_record_named_by_the_call_is_compared(tools):
    args = {"booking": "B-7781", "from_slot": "SL-1001", "to_slot": "SL-2002"}
    result = {"booking": "B-7781", "slot": {"id": "SL-2002", "start": "2026-12-09T10:00:00-07:00"}}
    assert told(tools, "Moved! You're now in the Dec 9 class at 11 AM", args, result) == [("slot.start", "mismatch")]
    assert told(tools, "Moved! You're now in the Dec 9 class at 10 AM", args, result) == [("slot.start", "match")]


def test_a_nested_record_the_call_did_not_name_or_left_is_not_compared(tools):
    args = {"booking": "B-7781", "from_slot": "SL-1001", "to_slot": "SL-2002"}
    # the record of the slot left (named only by from_slot), and a record the call never named
    result = {"booking": "B-7781", "old": {"id": "SL-1001", "start": "2026-12-08T10:00:00-07:00"},
              "venue": {"code": "GYM-4", "opens": "2026-12-09T06:00:00-07:00"}}
    assert told(tools, "Moved! You're now in the Dec 9 class at 11 AM", args, result) == []


# ---- a quotation longer than the text the write stored

def test_a_quote_that_adds_to_what_was_sent_is_a_mismatch(tools):
    args = {"to": "DR-W", "body": "Max has been limping since Sunday"}
    assert told(tools, 'Message sent: "Max has been limping since Sunday, please call us back today."', args) == [
        ("body", "mismatch")]
    assert told(tools, "已留言：“猫咪两天没吃饭，请尽快回电。”", {"body": "猫咪两天没吃饭"}) == [("body", "mismatch")]


def test_a_quote_of_the_text_sent_or_a_part_of_it_agrees(tools):
    args = {"to": "DR-W", "body": "Max has been limping since Sunday, please call."}
    assert told(tools, 'Message sent: "Max has been limping since Sunday"', args) == [("body", "match")]
    assert told(tools, 'Message sent: "Max has been limping since Sunday — please call"', args) == [("body", "match")]
    # a thing's inscription is a text it stores
    assert told(tools, "Your cake is ordered, inscription: “Go Team!”", {"inscription": "Go Team!"}) == [
        ("inscription", "match")]
    assert told(tools, "Your cake is ordered, inscription: “Go Team!”", {"inscription": "Go Tigers!"}) == [
        ("inscription", "mismatch")]


# ---- "from 2:00 to 5:00 PM" with nothing moved is a range

def test_a_from_to_of_two_clocks_with_no_move_is_a_range(tools):
    args = {"room": "R1", "from": "2026-12-04 14:00", "to": "2026-12-04 16:00"}
    assert ("to", "mismatch") in told(tools, "Room R1 is yours on Dec 4 from 2:00 to 5:00 PM", args)
    assert ("to", "match") in told(tools, "Room R1 is yours on Dec 4 from 2:00 to 4:00 PM", args)


def test_a_from_to_of_two_clocks_with_a_move_stays_a_change(tools):
    reader, _ = tools
    vals = [v for v in reader.extract("I moved your slot from 2:00 to 5:00 PM") if v["type"] == "time"]
    assert [(v["role"], v.get("span")) for v in vals] == [("from", None), ("to", None)]


# ---- money named by its participle

def test_money_named_by_its_participle_is_an_amount_field(tools):
    assert told(tools, "续费成功，本次扣款 ¥380.00", {"months": 1}, {"charged_fen": 40000}) == [("charged_fen", "mismatch")]
    assert told(tools, "Refund issued: $12.50", {"order": "A1"}, {"refunded_cents": 1250}) == [("refunded_cents", "match")]


# ---- a slot stored as a day and two clocks

def test_a_slot_stored_as_two_clocks_holds_both_ends(tools):
    result = {"ticket": "T-1", "window": "2026-12-03 09:00-11:00"}
    assert told(tools, "Booked for Dec 3, 9:00-11:00", {"ticket": "T-1"}, result, at="2026-12-01T20:00:00+08:00",
                zone="Asia/Shanghai").count(("window", "match")) >= 1
    assert ("window", "mismatch") in told(tools, "Booked for Dec 3, 13:00-15:00", {"ticket": "T-1"}, result,
                                          at="2026-12-01T20:00:00+08:00", zone="Asia/Shanghai")


def test_a_real_offset_after_a_t_is_still_an_offset(tools):
    # 09:00-05:00 written with a "T" is 9:00 at -05:00, no slot ending at 5:00
    result = {"ticket": "T-1", "start": "2026-12-03T09:00-05:00"}
    assert told(tools, "Booked for Dec 3 at 5:00 AM", {"ticket": "T-1"}, result, at="2026-12-01T20:00:00+08:00",
                zone="Asia/Shanghai") == [("start", "mismatch")]


def test_a_length_of_days_is_no_supply(tools):
    # a supply's field holds only a supply told (tests/test_value_checks15t.py), never a freeze's or a stay's days
    assert asked(tools, "freeze my plan for 14 days", {"plan": "P1", "days_supply": 30}) == []
    assert asked(tools, "refill it as a 30-day supply", {"rx": "R1", "days_supply": 30}) == [("days_supply", "match")]


def test_a_slot_says_nothing_of_the_users_zone(tools):
    from trace_audit.queries.reading.stored_values import local_offset, stored_values
    stored = stored_values('{"ticket": "T-1"}', '{"window": "2026-12-03 14:00-16:00"}', None, None, [])
    assert local_offset(stored) is None
    stored = stored_values('{"ticket": "T-1"}', '{"start": "2026-12-03T14:00:00-05:00"}', None, None, [])
    assert local_offset(stored) is not None
