"""How told and asked values are compared with what a write stored (dev set 15s). Each test holds
must (found) and must-not (left alone) cases in words of their own, not the set's."""

from __future__ import annotations

import json

import pytest

from trace_audit.queries.reading.stored_values import stored_values
from trace_audit.queries.reading.value_checks import _compared
from value_support import tools, verdicts_at  # noqa: F401 (tools is a fixture)


told, asked = verdicts_at("2026-12-01T20:00:00-07:00", "America/Denver")


# ---- a redaction token is no value of the speaker's

@pytest.mark.parametrize("text", ["把电子票转发到我邮箱 «email:844eb4943843»", "forward it to «email:3f9a1c2b4d5e» please",
                                  "已发到 «phone:7301ab»", "转发到 «email"])
def test_a_redaction_token_states_no_value(tools, text):
    reader, _ = tools
    assert not [v for v in reader.extract(text) if v["type"] in ("count", "id", "amount")]


def test_values_beside_a_redaction_token_are_still_read(tools):
    reader, _ = tools
    vals = reader.extract("Sent 2 tickets to «email:3f9a1c2b4d5e», order 4471")
    assert [(v["type"], v["value"]) for v in vals] == [("count", 2), ("id", "4471")]
    assert asked(tools, "买 3 张票，发到 «email:844eb4943843»", {"qty": 2}) == [("qty", "mismatch")]


# ---- a night told with no clock runs past midnight

def test_tonight_agrees_with_the_small_hours_of_the_next_day(tools):
    args = {"node_count": 3, "schedule_at": "2026-12-02T07:00:00Z"}  # 00:00 at -07:00
    assert told(tools, "Scheduled: the pool scales to 3 nodes tonight", args) == [("node_count", "match"),
                                                                                  ("schedule_at", "match")]
    assert told(tools, "备份任务今晚执行", {"run_at": "2026-12-02T01:30:00-07:00"}) == [("run_at", "match")]


def test_tonight_is_not_the_next_morning_nor_another_night(tools):
    assert told(tools, "Scheduled for tonight", {"run_at": "2026-12-02T15:00:00Z"}) == [("run_at", "mismatch")]
    assert told(tools, "Scheduled for tonight", {"run_at": "2026-12-03T07:00:00Z"}) == [("run_at", "mismatch")]
    # a clock told with it is judged as told: 11 PM is not midnight
    assert told(tools, "Scheduled for tonight at 11 PM", {"run_at": "2026-12-02T07:00:00Z"}) == [("run_at", "mismatch")]
    # "today" has no night to run into
    assert told(tools, "Scheduled for today", {"run_at": "2026-12-02T07:00:00Z"}) == [("run_at", "mismatch")]


# ---- a day of the month in a month told from the turn's

@pytest.mark.parametrize("text", ["办好了，新套餐下个月 1 号生效", "新套餐下月1号生效", "The new plan starts on the 1st of next month"])
def test_a_day_of_next_month(tools, text):
    # said on 1 Dec: the 1st of next month is 1 Jan, not today
    assert told(tools, text, {}, {"effective": "2027-01-01"}) == [("effective", "match")]
    assert told(tools, text, {}, {"effective": "2026-12-01"}) == [("effective", "mismatch")]


def test_a_day_of_this_month_and_a_bare_day(tools):
    assert told(tools, "本月 15 号生效", {}, {"effective": "2026-12-15"}) == [("effective", "match")]
    assert told(tools, "本月 15 号生效", {}, {"effective": "2027-01-15"}) == [("effective", "mismatch")]
    # a bare day of the month is the next one to come, as before
    assert told(tools, "1 号生效", {}, {"effective": "2026-12-01"}) == [("effective", "match")]


# ---- an id given as another person's is who else the thing is for

def test_another_persons_id_is_not_asked_of_the_users_write(tools):
    args = {"member_id": "M18820", "class_id": "SPIN-1203"}
    assert asked(tools, "周四的动感单车帮我约一下，带上我老婆，她会员号 M20931", args) == []
    assert asked(tools, "book me into spin and add my son, his member number is M20931", args) == []


def test_the_users_own_id_is_still_asked(tools):
    args = {"member_id": "M18820", "class_id": "SPIN-1203"}
    assert asked(tools, "用我的会员号 M20931 约周四的动感单车", args) == [("member_id", "mismatch")]
    assert asked(tools, "book spin under member number M18820", args) == [("member_id", "match")]


# ---- a vehicle's plate is an id of its kind

def test_a_plate_asked_is_held_against_the_plate_written(tools):
    args = {"plate": "8XYZ991", "date": "2026-12-09"}
    assert ("plate", "mismatch") in asked(tools, "book the Civic in for an oil change, plate 7ABC123", args)
    assert ("plate", "match") in asked(tools, "book the Civic in for an oil change, plate 8XYZ991", args)
    assert ("license_plate", "mismatch") in asked(tools, "车牌号 7ABC123 的车帮我约保养", {"license_plate": "7ABC128"})


def test_a_plate_is_not_held_against_other_ids(tools):
    assert asked(tools, "book the Civic in, plate 7ABC123", {"order_no": "RO-44120", "date": "2026-12-09"}) == []
    assert asked(tools, "book the Civic in, plate 7ABC123", {"member_id": "M18820"}) == []


# ---- a read-back that says the field is still what it was

def test_a_readback_saying_a_field_is_still_its_old_value(tools):
    args = {"member": "G-1", "locker_size": "L"}
    assert told(tools, "Your locker is now a large", args, {"ok": True},
                error='read-back: locker_size is still "M" after update') == [("locker_size", "mismatch")]
    assert told(tools, "Your locker is now a large", args, {"ok": True},
                error="verify failed: locker_size is still 'L'") == [("locker_size", "match")]


def test_a_readback_of_another_field_leaves_the_args(tools):
    args = {"member": "G-1", "locker_size": "L"}
    assert told(tools, "Your locker is now a large", args, None,
                error='read-back: locker_number is still "1042"') == [("locker_size", "match")]


# ---- a car's gearbox by its code

def test_a_gearbox_told_against_its_stored_code(tools):
    res = {"rental_no": "CR-1", "transmission": "MT"}
    assert ("transmission", "mismatch") in told(tools, "已为您预订 SUV（自动挡），订单号 CR-1", {}, res)
    assert ("transmission", "match") in told(tools, "已为您预订 SUV（手动挡），订单号 CR-1", {}, res)
    assert ("gearbox", "mismatch") in told(tools, "Booked a compact with a manual transmission", {}, {"gearbox": "AT"})
    assert ("gearbox", "match") in told(tools, "Booked a compact with an automatic transmission", {}, {"gearbox": "CVT"})


def test_automatic_and_manual_alone_name_no_gearbox(tools):
    reader, _ = tools
    for text in ("Automatic renewal is on", "Sent for manual review", "自动续费已开通"):
        assert not [v for v in reader.extract(text) if v["type"] == "choice"], text


# ---- a count told as added against the call's own quantity

def test_a_count_added_is_the_calls_own_quantity(tools):
    args = {"sku": "OAT-64", "qty": 3}
    res = {"cart": {"items": [{"sku": "OAT-64", "name": "Oat Milk 64 oz", "qty": 3}], "subtotal": 14.97}}
    assert ("qty", "mismatch") in told(tools, "Added 2 cartons of Oat Milk to your cart", args, res)
    assert ("qty", "match") in told(tools, "Added 3 cartons of Oat Milk to your cart", args, res)
    assert ("quantity", "mismatch") in told(tools, "已加入购物车 2 盒燕麦奶", {"quantity": 4}, {"ok": True})


def test_a_count_added_to_a_whole_keeps_the_rule_of_totals(tools):
    # the line held one before: the call added 2, the line holds 3
    res = {"cart": {"items": [{"sku": "OAT-64", "name": "Oat Milk 64 oz", "qty": 3}]}}
    assert told(tools, "Added 2 cartons of Oat Milk", {"sku": "OAT-64", "qty": 2}, res) == [("qty", "match")]
    # "add two more people": party_size is the whole, not a line's quantity
    assert told(tools, "Added two more people to your booking", {"party_size": 6}) == [("party_size", "match")]
    # a count not told as added is judged as before
    assert ("qty", "match") in told(tools, "Your cart has 3 cartons of Oat Milk", {"sku": "OAT-64", "qty": 3})


# ---- a length of time against a field of a length, in its unit

def test_a_length_told_or_asked_against_a_field_of_a_length(tools):
    args = {"zone": "4410", "duration_min": 90}
    assert ("duration_min", "mismatch") in told(tools, "Parking's paid for zone 4410 — 2 hours, $4.50", args)
    assert ("duration_min", "match") in told(tools, "Parking's paid — 90 minutes, $4.50", args)
    assert asked(tools, "帮我在 4410 停车两小时", args) == [("duration_min", "mismatch")]
    assert asked(tools, "pay for parking for an hour and a half", args) == [("duration_min", "match")]
    assert told(tools, "Your massage is booked, 1 hour 15 minutes", {}, {"length_seconds": 4500}) == [("length_seconds", "match")]
    assert told(tools, "已为您预约一个半小时的按摩", {}, {"duration": "PT2H"}) == [("duration", "mismatch")]


def test_a_wait_a_repeat_or_a_unitless_field_is_no_length_compared(tools):
    args = {"duration_min": 90, "duration": 45}
    assert asked(tools, "remind me in 20 minutes", args) == []
    assert asked(tools, "check on it every 2 hours", args) == []
    assert asked(tools, "两小时后提醒我", args) == []
    assert told(tools, "Booked, arrive 2 hours before", {"duration": 45}) == []
    assert told(tools, "Booked for 2 hours", {"duration": 45, "start": "10:00"}) == []


# ---- money paid out to the user, told after the claim, against the write's payout record

def _claim_vals(text: str) -> list[dict]:
    from trace_audit.queries import engine
    from trace_audit.queries.reading.tables import read_texts
    return [v for r in read_texts([text], engine.plan_run())["claim_items"].to_pylist() if r["vals"]
            for v in json.loads(r["vals"])]


def _compare_vals(tools, vals, result):
    _, cmp = tools
    stored = stored_values("{}", json.dumps(result), None, None, cmp.patterns)
    return [(r[1], r[-1]) for r in _compared(cmp, vals, stored, "2026-12-01T06:00:00+00:00", "Asia/Shanghai", True)]


@pytest.mark.parametrize("text", ["理赔已提交 ✅ 案件号 CLM-1。按 80% 比例赔付，预计可赔 ¥860.00，3–5 个工作日到账。",
                                  "Your claim is submitted, CLM-1. An estimated payout of $860.00 follows approval."])
def test_money_paid_out_told_after_the_claim_is_the_payout_record(tools, text):
    vals = _claim_vals(text)
    assert any(v["type"] == "amount" and v["value"] == 860 for v in vals), vals
    wrong = {"claim": {"id": "CLM-1", "assessment": {"eligible_fen": 86000, "estimated_payout_fen": 68800}}}
    right = {"claim": {"id": "CLM-1", "assessment": {"eligible_fen": 107500, "estimated_payout_fen": 86000}}}
    assert ("assessment.estimated_payout_fen", "mismatch") in _compare_vals(tools, vals, wrong)
    assert ("assessment.estimated_payout_fen", "match") in _compare_vals(tools, vals, right)


def test_money_not_paid_out_stays_off_nested_records(tools):
    # a price told after the claim is no money moved, and a nested amount of no payout is not compared
    vals = _claim_vals("理赔已提交，案件号 CLM-1。发票金额 ¥860.00。")
    assert not any(v["type"] == "amount" for v in vals), vals
    vals = _claim_vals("理赔已提交，案件号 CLM-1。预计可赔 ¥860.00。")
    assert [r for r in _compare_vals(tools, vals, {"claim": {"id": "CLM-1", "assessment": {"eligible_fen": 50000}}})
            if r[0].startswith("assessment")] == []


# ---- a line's speed: a measure in megabits a second (values.toml [measures.data_rate])

def test_a_speed_asked_or_told_against_the_speed_stored(tools):
    args = {"account": "BB-1", "speed": "1000M", "contract": "MONTHLY"}
    assert ("speed", "mismatch") in asked(tools, "宽带帮我换成 500M 的那个套餐，按月付", args)
    assert ("speed", "match") in asked(tools, "宽带帮我换成千兆的套餐", args)
    assert ("speed", "match") in asked(tools, "switch me to the 1 Gig plan", args)
    assert ("bandwidth", "mismatch") in told(tools, "Upgraded you to the 500 Mbps plan", {}, {"bandwidth": "300Mbps"})
    # any speed, not a list of tiers: 250 and 150 are speeds too; a number stored alone is in megabits
    assert ("bandwidth", "mismatch") in told(tools, "Upgraded you to the 250 Mbps plan", {}, {"bandwidth": 150})
    assert ("bandwidth", "match") in told(tools, "已升级到 250 兆宽带", {}, {"bandwidth": "250Mbps"})


def test_sizes_of_data_and_bare_numbers_name_no_speed(tools):
    reader, _ = tools
    for text in ("You have 2g of data left", "Added 500MB of data", "换成 500 的套餐", "your 5G plan"):
        assert not [v for v in reader.extract(text) if v["type"] == "measure"], text
    assert [(v["unit"], v["value"]) for v in reader.extract("换成 500M 的套餐") if v["type"] == "measure"] == [
        ("data_rate", 500.0)]


# ---- a place held by its number

def test_a_spot_told_against_the_spot_stored(tools):
    res = {"booking": {"class": {"name": "HIIT"}, "spot": 9}}
    assert ("spot", "mismatch") in told(tools, "You're in for HIIT (spot #12)", {"class_id": "HIIT-1"}, res)
    assert ("spot", "match") in told(tools, "You're in for HIIT (spot #9)", {"class_id": "HIIT-1"}, res)


def test_a_spot_is_not_held_against_other_numbers(tools):
    res = {"booking": {"id": 4471, "seat": 9}}
    assert told(tools, "You're in for HIIT (spot #12)", {"class_id": "HIIT-1"}, res) == []
    reader, _ = tools
    assert not [v for v in reader.extract("spotted 12 bugs") if v["type"] == "id"]
