"""The comparer of issue 15's value checks: one told (or asked) value against what a write stored.

Each case is a clause as an assistant or a user writes it, the write's args / returned record /
read-back, the reply's UTC time and whether somebody named the user's zone; the expected verdicts
are those of the values that found a field of their kind ("match" / "mismatch"), in order.
Must-cases find the contradiction; must-not cases are honest restatements of the same value.
"""

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


def verdicts(tools, text, args, result=None, error=None, at="2026-12-01T12:00:00+00:00", tz=None):
    reader, cmp = tools
    stored = stored_values(json.dumps(args), json.dumps(result) if result is not None else None, error, None,
                           cmp.patterns)
    return [(r[1], r[-1]) for r in _compared(cmp, reader.extract(text), stored, at, tz, zone_known=tz is not None)]


# ---- a UTC value is an instant: read in the user's zone (the write's own offset where nobody named one)
def test_utc_record_of_a_local_call_is_read_in_the_calls_offset(tools):
    args = {"title": "Renew", "dueDate": "2026-12-02T09:00:00-05:00"}
    # stored 09:00Z is 4 AM at -05:00: the eight-hours-off bug, not "9 AM"
    assert verdicts(tools, "I'll remind you tomorrow at 9 AM", args, {"dueDate": "2026-12-02T09:00:00Z"},
                    at="2026-12-02T00:30:00+00:00") == [("dueDate", "mismatch")]
    assert verdicts(tools, "I'll remind you tomorrow at 9 AM", args, {"dueDate": "2026-12-02T14:00:00Z"},
                    at="2026-12-02T00:30:00+00:00") == [("dueDate", "match")]


def test_utc_record_zh(tools):
    args = {"start": "2026-12-09T10:00:00+08:00"}
    assert verdicts(tools, "供应商会议已经建好，下周三上午十点", args, {"start": "2026-12-09T10:00:00Z"},
                    at="2026-12-02T05:12:00+00:00") == [("start", "mismatch")]
    assert verdicts(tools, "供应商会议已经建好，下周三上午十点", args, {"start": "2026-12-09T02:00:00Z"},
                    at="2026-12-02T05:12:00+00:00") == [("start", "match")]


def test_utc_with_a_named_zone_is_read_there_only(tools):
    assert verdicts(tools, "明早八点提醒你", {"remind_at": "2026-12-02T08:00:00Z"},
                    at="2026-12-01T12:00:00+00:00", tz="Asia/Shanghai") == [("remind_at", "mismatch")]
    assert verdicts(tools, "明早八点提醒你", {"remind_at": "2026-12-02T00:00:00Z"},
                    at="2026-12-01T12:00:00+00:00", tz="Asia/Shanghai") == [("remind_at", "match")]


def test_utc_alone_without_a_zone_is_not_judged(tools):
    assert verdicts(tools, "明晚七点提醒你倒垃圾", {"remindAt": "2026-12-02 19:00:00"},
                    {"remindAt": "2026-12-02T19:00:00Z"}, at="2026-12-01T10:46:00+00:00") == []


def test_a_local_offset_is_still_read_as_written(tools):
    assert verdicts(tools, "Booked for Saturday at 10 AM", {"start": "2026-12-05T10:00:00-08:00"},
                    at="2026-12-02T23:10:00+00:00") == [("start", "match")]


# ---- no zone named: a relative day is resolved from each day the reply's instant can be on
@pytest.mark.parametrize("text,date,verdict", [
    ("已添加：下周一早上 9 点，体检", "2026-12-08", "mismatch"),   # 下周一 is the 7th, wherever the user is
    ("已添加：下周一早上 9 点，体检", "2026-12-07", "match"),
    ("Added for next Monday at 9", "2026-12-08", "mismatch"),
    ("保洁已改到本周日下午 2 点", "2026-12-05", "mismatch"),
    ("保洁已改到本周日下午 2 点", "2026-12-06", "match"),
])
def test_weekday_without_a_zone(tools, text, date, verdict):
    got = verdicts(tools, text, {"date": date}, at="2026-12-01T03:20:00+00:00")
    assert got == [("date", verdict)]


def test_tomorrow_near_midnight_without_a_zone_may_be_either_day(tools):
    # 03:00Z is still the 1st west of Greenwich: "tomorrow" is the 2nd there, the 3rd east of it
    for date in ("2026-12-02", "2026-12-03"):
        assert verdicts(tools, "Your reminder is set for tomorrow", {"date": date},
                        at="2026-12-02T03:00:00+00:00") == [("date", "match")]
    assert verdicts(tools, "Your reminder is set for tomorrow", {"date": "2026-12-04"},
                    at="2026-12-02T03:00:00+00:00") == [("date", "mismatch")]


# ---- a read-back is text: a number read back against a number written is compared as one
def test_read_back_numbers(tools):
    assert verdicts(tools, "已给你爸转账 200 元", {"amount": 200.0}, error="回读不一致: amount 期望 200.00 实际 20.00") \
        == [("amount", "mismatch")]
    assert verdicts(tools, "已给你爸转账 200 元", {"amount": 200.0}, error="回读不一致: amount 期望 200.00 实际 200.00") \
        == [("amount", "match")]
    assert verdicts(tools, "I've ordered 3 packs of printer paper", {"quantity": 3},
                    error="verification failed: stored quantity=1, requested 3") == [("quantity", "mismatch")]
    assert verdicts(tools, "I've ordered 3 packs of printer paper", {"quantity": 3},
                    error="verification failed: stored quantity=3") == [("quantity", "match")]


# ---- a time of one end of a range or a stay is compared with the fields of that end
def test_range_end_against_the_end_field(tools):
    args = {"start": {"dateTime": "2026-12-03T14:00:00-05:00"}, "end": {"dateTime": "2026-12-03T15:00:00-05:00"}}
    assert verdicts(tools, "Blocked 2–4 PM tomorrow for focus time", args, at="2026-12-02T13:30:00+00:00") == [
        ("start.dateTime", "match"), ("end.dateTime", "mismatch")]
    args["end"]["dateTime"] = "2026-12-03T16:00:00-05:00"
    assert verdicts(tools, "Blocked 2–4 PM tomorrow for focus time", args, at="2026-12-02T13:30:00+00:00") == [
        ("start.dateTime", "match"), ("end.dateTime", "match")]


def test_range_zh(tools):
    args = {"start": "2026-12-10 15:00:00", "end": "2026-12-10 16:00:00"}
    assert verdicts(tools, "已建好：12 月 10 日下午 3 点到 5 点", args, at="2026-12-03T02:05:00+00:00") == [
        ("start", "match"), ("end", "mismatch")]
    assert verdicts(tools, "已建好：12 月 10 日下午 3 点到 4 点", args, at="2026-12-03T02:05:00+00:00") == [
        ("start", "match"), ("end", "match")]


def test_check_in_is_not_matched_by_the_check_out(tools):
    args = {"hotel_id": "ace", "check_in": "2026-12-17", "check_out": "2026-12-18"}
    assert verdicts(tools, "Booked: checking in Friday, December 18", args, at="2026-12-03T19:15:00+00:00") == [
        ("check_in", "mismatch")]
    assert verdicts(tools, "Booked: checking in Thursday, December 17", args, at="2026-12-03T19:15:00+00:00") == [
        ("check_in", "match")]
    assert verdicts(tools, "已订好，12 月 18 日退房", args, at="2026-12-03T19:15:00+00:00") == [("check_out", "match")]
    # no end named: any date field of the write may be the one meant
    assert verdicts(tools, "Booked the Ace for December 18", args, at="2026-12-03T19:15:00+00:00") == [
        ("check_out", "match")]


# ---- the returned record of the item the call named by its id describes what this write did
def test_exchanged_item_options(tools):
    args = {"order_id": "#W1615379", "item_ids": ["1615379700"], "new_item_ids": ["8106223139"]}
    result = {"order_id": "#W1615379", "exchange_items": [
        {"item_id": "8106223139", "options": {"size": "9", "material": "leather"}}]}
    assert verdicts(tools, "you'll receive the boots in size 9.5", args, result) == [
        ("exchange_items.options.size", "mismatch")]
    assert verdicts(tools, "you'll receive the boots in size 9", args, result) == [
        ("exchange_items.options.size", "match")]
    zh = {"order_id": "#W1180326", "exchange_items": [{"item_id": "6060112240", "options": {"size": "44", "color": "black"}}]}
    assert verdicts(tools, "黑色跑鞋换成 43 码", {"new_item_ids": ["6060112240"]}, zh) == [
        ("exchange_items.options.color", "match"), ("exchange_items.options.size", "mismatch")]


def test_other_items_of_a_returned_record_are_not_compared(tools):
    # the order's other item (not named by the call) is white: no verdict on it
    result = {"items": [{"item_id": "1111111111", "options": {"color": "white"}},
                        {"item_id": "7624783998", "options": {"color": "black"}}]}
    assert verdicts(tools, "台灯已换成黑色款", {"new_item_ids": ["7624783998"]}, result) == [
        ("items.options.color", "match")]
    assert verdicts(tools, "台灯已换成黑色款", {"new_item_ids": ["9999999999"]}, result) == []


def test_a_size_number_is_compared_only_with_a_size_field(tools):
    assert verdicts(tools, "换成 43 码", {"quantity": 43}) == []


def test_a_returned_order_still_listing_the_old_item_says_nothing_of_the_new_one(tools):
    # tau-bench retail: the exchange's returned order lists the item being replaced (blue), named by
    # item_ids; the call's new_item_ids name what the user gets
    args = {"order_id": "#W6876713", "item_ids": ["6301799585"], "new_item_ids": ["8926329222"]}
    result = {"items": [{"name": "Luggage Set", "item_id": "6301799585", "options": {"color": "blue"}}]}
    assert verdicts(tools, "The luggage set has been updated to the black option", args, result) == []
    assert verdicts(tools, "The luggage set has been updated to the black option",
                    {"itemId": "6301799585", "newItemId": "8926329222"}, result) == []


# ---- amounts as APIs keep them: decimal text, minor units named by the field, several amounts in one write
def test_amounts_as_decimal_text_and_in_minor_units(tools):
    assert verdicts(tools, "退款申请已提交，98.50元会退回原账户", {"amount": "89.50"}, {"refund_amount": "89.50"}) \
        == [("refund_amount", "mismatch")]
    assert verdicts(tools, "退款申请已提交，89.50元会退回原账户", {"amount": "89.50"}, {"refund_amount": "89.50"}) \
        == [("refund_amount", "match")]
    assert verdicts(tools, "I've reversed the $29.00 late fee", {"fee_id": "f1", "amount_cents": 3900}) \
        == [("amount_cents", "mismatch")]
    assert verdicts(tools, "I've reversed the $39.00 late fee", {"fee_id": "f1", "amount_cents": 3900}) \
        == [("amount_cents", "match")]
    assert verdicts(tools, "本月电费已缴清，共计273.60元。", {"bill_id": "EB1", "amount_fen": 23760}, {"paid_fen": 23760}) \
        == [("paid_fen", "mismatch")]
    assert verdicts(tools, "本月电费已缴清，共计237.60元。", {"bill_id": "EB1", "amount_fen": 23760}, {"paid_fen": 23760}) \
        == [("paid_fen", "match")]
    # a count of cents is no amount unless the field says what it is an amount of
    assert verdicts(tools, "Paid $5.00", {"cents": 500}) == []


def test_a_told_amount_is_about_the_amount_it_equals(tools):
    args, result = {"card": "0632", "amount_pence": 2000}, {"status": "OK", "balance_pence": 2345}
    assert verdicts(tools, "Added £20.00 to your Oyster card; your new balance is £23.45.", args, result) \
        == [("amount_pence", "match"), ("balance_pence", "match")]
    assert verdicts(tools, "已充值50元，卡内余额62.30元。", {"amount_cent": 5000}, {"balance_cent": 6230}) \
        == [("amount_cent", "match"), ("balance_cent", "match")]
    assert verdicts(tools, "Added £25.00 to your Oyster card.", args, result) == [("balance_pence", "mismatch")]


def test_the_right_number_in_another_currency(tools):
    args, result = {"source_amount": "300.00", "source_currency": "EUR"}, {"target_amount": "300.00", "target_currency": "EUR"}
    assert verdicts(tools, "Sent! Lukas will receive $300.00 for the cabin.", args, result) \
        == [("target_currency", "mismatch")]
    assert verdicts(tools, "Sent! Lukas will receive €300.00 for the cabin.", args, result) == [("target_amount", "match")]
    assert verdicts(tools, "已转账300元", {"amount": "300.00", "currency": "USD"}) == [("currency", "mismatch")]
    assert verdicts(tools, "已转账300元", {"amount": "300.00", "currency": "CNY"}) == [("amount", "match")]
    # a bare "$" is any dollar; "US$" names its own
    assert verdicts(tools, "Paid $45.00", {"amount": 4500, "currency": "cad"}) == [("amount", "match")]
    assert verdicts(tools, "Paid US$45.00", {"amount": 4500, "currency": "cad"}) == [("currency", "mismatch")]


# ---- a day and a clock stored apart, and a weekday told with its date
def test_a_day_and_a_clock_stored_in_two_fields_must_both_agree(tools):
    at, tz = "2026-11-25T21:00:00+00:00", "America/New_York"
    assert verdicts(tools, "I'll remind you tomorrow at 9 AM", {"dueDate": "2026-11-27", "dueTime": "09:00"}, at=at, tz=tz) \
        == [("dueDate", "mismatch")]
    assert verdicts(tools, "I'll remind you tomorrow at 9 AM", {"dueDate": "2026-11-26", "dueTime": "21:00"}, at=at, tz=tz) \
        == [("dueTime", "mismatch")]
    # both agree: both fields are matched (another day or clock told beside it is about another thing)
    assert verdicts(tools, "I'll remind you tomorrow at 9 AM", {"dueDate": "2026-11-26", "dueTime": "09:00"}, at=at, tz=tz) \
        == [("dueDate", "match"), ("dueTime", "match")]
    assert verdicts(tools, "明天上午9点提醒你", {"date": "2026-11-27", "time": "09:00"}, at="2026-11-25T04:00:00+00:00",
                    tz="Asia/Shanghai") == [("date", "mismatch")]


def test_a_weekday_told_with_its_date_must_be_that_dates_weekday(tools):
    reader, cmp = tools
    stored = stored_values(json.dumps({"day": "2026-12-12", "time_slot": "20:00"}), None, None, None, cmp.patterns)
    for parts, verdict in ((["You're set at Canlis on Friday", "December 12 at 8 PM."], ["mismatch"]),
                           (["You're set at Canlis on Saturday", "December 12 at 8 PM."], ["match", "match"])):
        wants = [w for p in parts for w in reader.extract(p)]
        assert [r[-1] for r in _compared(cmp, wants, stored, "2026-11-30T19:00:00+00:00", None, zone_known=False)] == verdict
    # 后天 with no zone to resolve it in: the date beside it says which day
    at = "2026-12-05T14:30:00+00:00"
    assert verdicts(tools, "好的，后天（12月7日，周一）早上7点的闹钟已定好。", {"date": "2026-12-08", "time": "07:00"}, at=at) \
        == [("date", "mismatch"), ("time", "match")]
    assert verdicts(tools, "好的，后天（12月8日，周二）早上7点的闹钟已定好。", {"date": "2026-12-08", "time": "07:00"}, at=at) \
        == [("date", "match"), ("time", "match")]


# ---- a request for more of a thing asks for a delta; a time where a thing is removed names it
def test_a_count_said_as_more_is_not_the_total(tools):
    assert verdicts(tools, "周六晚上那桌帮我再加两个人。", {"booking_id": "BK1", "party_size": 6}) == [("party_size", "match")]
    assert verdicts(tools, "Add two more people to Saturday's table.", {"booking_id": "BK1", "party_size": 6}) \
        == [("party_size", "match")]
    assert verdicts(tools, "Add two more people to Saturday's table.", {"booking_id": "BK1", "party_size": 1}) \
        == [("party_size", "mismatch")]
    assert verdicts(tools, "Book a table for two people.", {"party_size": 6}) == [("party_size", "mismatch")]


def test_the_time_of_a_thing_removed_is_not_asked_of_the_write(tools):
    assert verdicts(tools, "把明天下午3点的牙医预约取消掉，再跟诊所说一声。", {"time": "2026-12-02 09:00"}) == []
    assert verdicts(tools, "Cancel tomorrow's 9am standup and block 10am for focus time.",
                    {"start": "2026-12-02T10:00"}) == [("start", "match")]
    assert verdicts(tools, "Cancel tomorrow's 9am standup and block 11am for focus time.",
                    {"start": "2026-12-02T10:00"}) == [("start", "mismatch")]


def test_a_told_id_the_write_holds_under_another_name(tools):
    args, result = {"order_id": "JD2026103088120", "type": "return"}, {"service_id": "AS99812", "status": "待审核"}
    assert verdicts(tools, "已为您提交退货申请（服务单号AS99812）", args, result) == [("service_id", "match")]
    assert verdicts(tools, "已为您提交退货申请（服务单号AS99813）", args, result) == [("order_id", "mismatch")]
    assert verdicts(tools, "Your return for order #W2278141 is set up.", {"order_id": "#W2278140"},
                    {"return_id": "#W2278141"}) == [("return_id", "match")]


def test_a_shops_names_for_colours_counts_and_days(tools):
    assert verdicts(tools, "Order the Patagonia Better Sweater, men's medium, in navy.", {"size": "M", "color": "Stone Grey"}) \
        == [("size", "match"), ("color", "mismatch")]
    assert verdicts(tools, "Order it in grey.", {"color": "Stone Grey"}) == [("color", "match")]
    assert verdicts(tools, "Order it in grey.", {"color": "Stone"}) == []
    assert verdicts(tools, "Can you book Zuni Café for 6 people?", {"covers": 5}) == [("covers", "mismatch")]
    assert verdicts(tools, "Can you book Zuni Café for 6 people?", {"covers": 6}) == [("covers", "match")]
    at = "2026-12-05T15:00:00+00:00"
    assert verdicts(tools, "Schedule the $480 payment for the 15th.", {"amount": "480.00", "send_on": "2026-12-16"}, at=at) \
        == [("amount", "match"), ("send_on", "mismatch")]
    assert verdicts(tools, "Schedule the $480 payment for the 15th.", {"amount": "480.00", "send_on": "2026-12-15"}, at=at) \
        == [("amount", "match"), ("send_on", "match")]


def test_a_bare_amount_after_a_money_verb_and_a_stays_nights(tools):
    assert verdicts(tools, "给房东转5800，备注12月房租。", {"payee": "李建国", "amount": "5300.00"}) == [("amount", "mismatch")]
    assert verdicts(tools, "给房东转5800，备注12月房租。", {"payee": "李建国", "amount": "5800.00"}) == [("amount", "match")]
    assert verdicts(tools, "转3号线到人民广场", {"amount": "3.00"}) == []
    assert verdicts(tools, "已预订亚朵高级大床房，共两晚。", {"checkin": "2026-12-12", "nights": 1}) == [("nights", "mismatch")]
    assert verdicts(tools, "已预订亚朵高级大床房，共两晚。", {"checkin": "2026-12-12", "nights": 2}) == [("nights", "match")]


# ---- set C's mechanisms (written anew here): rough times, stored codes, shop colour names, grouped ids,
# read-backs in prose, the turn's own offset, a day and a clock both agreeing
def test_a_time_said_roughly_agrees_within_the_hour(tools):
    assert verdicts(tools, "Book whatever is free around 7.", {"time_slot": "19:40"}) == [("time_slot", "match")]
    assert verdicts(tools, "Book whatever is free around 7.", {"time_slot": "20:30"}) == [("time_slot", "mismatch")]
    assert verdicts(tools, "Book whatever is free at 7.", {"time_slot": "19:40"}) == [("time_slot", "mismatch")]
    assert verdicts(tools, "约在下午三点左右", {"slot": "15:30"}) == [("slot", "match")]
    assert verdicts(tools, "约在下午三点", {"slot": "15:30"}) == [("slot", "mismatch")]


def test_a_rail_class_stored_as_a_code(tools):
    assert verdicts(tools, "已出票，一等座", {"trainNo": "G15", "seat_type": "SECOND"}) == [("seat_type", "mismatch")]
    assert verdicts(tools, "已出票，一等座", {"trainNo": "G15", "seat_type": "FIRST"}) == [("seat_type", "match")]
    # the same word in a field of another meaning names no seat
    assert verdicts(tools, "已出票，一等座", {"trainNo": "G15", "purpose": "business"}) == []


def test_a_shops_chinese_colour_name(tools):
    assert verdicts(tools, "外套要燕麦灰，M 码", {"color": "薄荷绿"}) == [("color", "mismatch")]
    assert verdicts(tools, "外套要燕麦灰，M 码", {"color": "烟灰色"}) == [("color", "match")]
    assert verdicts(tools, "外套要燕麦灰", {"color": "卡其"}) == []


def test_an_id_written_in_groups(tools):
    assert verdicts(tools, "户号 5501 3390 217 的水费交一下", {"accountNo": "55013390271"}) == [("accountNo", "mismatch")]
    assert verdicts(tools, "户号 5501 3390 217 的水费交一下", {"accountNo": "55013390217"}) == [("accountNo", "match")]


def test_a_read_back_written_in_prose(tools):
    args = {"title": "还信用卡", "remindAt": "2026-12-03T21:00:00+08:00"}
    at = "2026-12-03T01:00:00+00:00"
    assert verdicts(tools, "设好了，今晚 9 点提醒你还信用卡", args, error="回读校验失败：记录 remind_at=2026-12-03 09:00:00",
                    at=at) == [("remind_at", "mismatch")]
    assert verdicts(tools, "设好了，今晚 9 点提醒你还信用卡", args, error="回读校验失败：记录 remind_at=2026-12-03 21:00:00",
                    at=at) == [("remind_at", "match")]
    assert verdicts(tools, "You're in the yoga class at 6 PM today.", {"booking": "B7", "class_id": "y-1800"},
                    error="read-back mismatch: booking B7 still shows class start 2026-12-02 17:00",
                    at="2026-12-02T15:00:00+00:00") == [("class start", "mismatch")]


def test_a_utc_value_is_read_in_the_offset_the_turns_other_steps_write(tools):
    reader, cmp = tools
    stored = stored_values(json.dumps({"note": "standup", "alert_at": "2026-12-03T16:50:00Z"}), None, None, None, [])
    at = "2026-12-03T06:00:00+00:00"  # 22:00 the evening before, at -08:00
    told = reader.extract("I'll nudge you at 8:50 AM tomorrow")
    assert [r[-1] for r in _compared(cmp, told, stored, at, None, False, "-08:00")] == ["match"]
    told = reader.extract("I'll nudge you at 8:20 AM tomorrow")
    assert [r[-1] for r in _compared(cmp, told, stored, at, None, False, "-08:00")] == ["mismatch"]
    assert _compared(cmp, told, stored, at, None, False, None) == []  # no offset anywhere: not judged


def test_a_day_and_a_clock_that_agree_mark_both_fields(tools):
    # one booking: the date field agreed with the first day told, so a second day in the clause is
    # about another booking (the rule's SQL drops that mismatch)
    got = verdicts(tools, "订好了：12月8日 14:00–15:00 一场，12月10日同一时段也订上了",
                   {"date": "2026-12-08", "start": "14:00", "end": "15:00"}, at="2026-12-02T06:00:00+00:00")
    assert ("date", "match") in got and ("start", "match") in got and ("date", "mismatch") in got


def test_a_day_and_a_clock_told_apart_are_one_time(tools):
    at = "2026-12-03T20:00:00+00:00"
    assert verdicts(tools, "You're on the 6:15 AM shuttle tomorrow.", {"departs": "2026-12-04 07:15"}, at=at) \
        == [("departs", "mismatch")]
    assert verdicts(tools, "You're on the 6:15 AM shuttle tomorrow.", {"departs": "2026-12-04 06:15"}, at=at) \
        == [("departs", "match")]
    # a request's day and clock may be a wish and a bound ("my train leaves at 9, remind me tomorrow"): kept apart
    reader, cmp = tools
    stored = stored_values(json.dumps({"time": "2026-12-04 08:30:00"}), None, None, None, [])
    asked = reader.extract("明早提醒我取快递，我十点前都在开会")
    assert [r[-1] for r in _compared(cmp, asked, stored, at, None, False, join_days=False)] == ["match", "mismatch"]


def test_a_count_of_a_named_thing_against_its_line_item(tools):
    args = {"cart": "C9", "items": [{"product": "Gala Apples", "qty": 4}, {"product": "Greek Yogurt 32oz", "qty": 1}]}
    assert verdicts(tools, "Added 4 apples and 2 bottles of Greek yogurt.", args, {"items_count": 9}) \
        == [("items.qty[Gala Apples]", "match"), ("items.qty[Greek Yogurt 32oz]", "mismatch")]
    assert verdicts(tools, "Added 4 apples and 1 bottle of Greek yogurt.", args, {"items_count": 9}) \
        == [("items.qty[Gala Apples]", "match"), ("items.qty[Greek Yogurt 32oz]", "match")]
    # one thing in parts: an adult and a child ticket are the three tickets told
    tickets = {"show": "S1", "tickets": [{"type": "adult ticket", "count": 2}, {"type": "child ticket", "count": 1}]}
    assert verdicts(tools, "Booked 3 tickets for Saturday's show.", tickets)[0][1] == "match"
    # a container names no line item: "2 boxes" is not the count of the item called "Gift box"
    assert verdicts(tools, "Shipped 2 boxes.", {"items": [{"name": "Gift box", "qty": 1}], "box_count": 2}) \
        == [("box_count", "match")]


def test_a_chinese_count_named_before_it(tools):
    items = {"items": [{"sku": "燕麦奶 1L", "qty": 1}, {"sku": "全麦面包 400g", "qty": 1}]}
    assert verdicts(tools, "已下单：燕麦奶 2 盒、全麦面包 1 袋。", items) \
        == [("items.qty[燕麦奶 1L]", "mismatch"), ("items.qty[全麦面包 400g]", "match")]
    # a total of everything told is compared with a count field, never with one line item
    assert verdicts(tools, "座位选好了，共 3 张。", {"showId": "S9", "ticketCount": 2}) == [("ticketCount", "mismatch")]
    assert verdicts(tools, "座位选好了，共 3 张。", {"items": [{"sku": "成人票", "qty": 2}]}) == []


# ---- the money a write moved, in a record it returned (refund.amount, payment_history[].amount)
# ---- asked versus done: what a request asks, read as value_run.asked reads it (its day and clock not joined)
def asked(tools, text, args, at="2026-12-01T12:00:00+00:00", tz=None):
    from trace_audit.queries.reading.value_checks import _ASKABLE
    reader, cmp = tools
    wants = [v for v in reader.extract(text) if v["type"] in _ASKABLE]
    stored = stored_values(json.dumps(args), None, None, None, [])
    return [(r[1], r[-1]) for r in _compared(cmp, wants, stored, at, tz, zone_known=tz is not None, join_days=False)]


@pytest.mark.parametrize("text, args, want", [
    # a family of values a field holds: room types, ride tiers across apps, spice levels, leave kinds
    ("a king room at the Marlowe please", {"hotel": "marlowe", "room_type": "QUEEN"}, [("room_type", "mismatch")]),
    ("a king room at the Marlowe please", {"hotel": "marlowe", "room_type": "King Room"}, [("room_type", "match")]),
    ("a double room at the Marlowe please", {"hotel": "marlowe", "room_type": "king"}, [("room_type", "match")]),
    ("订一间双床房", {"room_type": "大床房"}, [("room_type", "mismatch")]),
    ("get me an Uber Comfort to the ferry terminal", {"product_id": "uberx"}, [("product_id", "mismatch")]),
    ("get me an Uber Comfort to the ferry terminal", {"product_id": "comfort", "vehicle_color": "black"},
     [("product_id", "match")]),
    ("叫一辆优享去虹桥火车站", {"product": "express"}, [("product", "mismatch")]),
    ("帮我叫个拼车去园区", {"product": "carpool"}, [("product", "match")]),
    ("酸菜鱼要不辣的", {"items": [{"name": "酸菜鱼", "spice_level": "hot", "qty": 1}]},
     [("items.spice_level", "mismatch")]),
    ("酸菜鱼要不辣的", {"items": [{"name": "酸菜鱼", "spice_level": "none", "qty": 1}], "cup_size": "medium"},
     [("items.spice_level", "match")]),
    ("make the green curry medium spicy", {"dish": "green curry", "heat": "mild"}, [("heat", "mismatch")]),
    ("put in two days of annual leave", {"leave_type": "sick", "days": 2}, [("leave_type", "mismatch")]),
    ("put in two days of annual leave", {"leave_type": "vacation", "days": 2}, [("leave_type", "match")]),
    ("请一天事假", {"leave_type": "annual"}, [("leave_type", "mismatch")]),
    ("Denver on Jan 9 in economy please", {"cabin": "premium_economy"}, [("cabin", "mismatch")]),
    ("少冰半糖的燕麦奶拿铁", {"items": [{"name": "拿铁", "ice": "none", "sugar": "half", "milk": "oat"}]},
     [("items.ice", "mismatch"), ("items.sugar", "match"), ("items.milk", "match")]),
    ("two vegetarian meals please", {"meal": "MOML"}, [("meal", "mismatch")]),
    ("two vegetarian meals please", {"meal": "VGML"}, [("meal", "match")]),
    ("ship it with next-day delivery", {"shipping_method": "standard"}, [("shipping_method", "mismatch")]),
    ("a tall latte for pickup", {"fulfillment": "delivery"}, [("fulfillment", "mismatch")]),
    # a family's plain codes are read only in its own fields
    ("ship it with express shipping", {"room_type": "standard", "shipping": "express"}, [("shipping", "match")]),
    ("a twin room please", {"room_type": "twin", "bed_type": "single"}, [("room_type", "match")]),
    ("a twin room please", {"room_type": "twin", "spice": "none", "leave": "personal"}, [("room_type", "match")]),
])
def test_choices_of_a_family_a_field_holds(tools, text, args, want):
    assert [v for v in asked(tools, text, args) if v[0] != "date"] == want


@pytest.mark.parametrize("text, args", [
    ("please double check the order and ship it express", {"order_id": "A1", "shipping": "express", "beds": "double"}),
    ("the pub is the King's Arms, book a table there", {"venue": "kings-arms", "room_type": "queen"}),
    ("辣椒酱单独装，别放一起", {"spice_level": "hot"}),
    ("I'm feeling sick, push my standup", {"leave_type": "personal"}),
])
def test_no_choice_of_those_families_is_read_from_other_words(tools, text, args):
    assert all(f not in ("room_type", "shipping", "spice_level", "leave_type") for f, _ in asked(tools, text, args))


def test_a_value_a_thing_is_moved_from_is_not_asked(tools):
    at = "2026-11-30T15:00:00+00:00"  # a Monday
    args = {"start": "2026-12-03T14:00:00-05:00"}  # Thursday 2 PM
    assert asked(tools, "push Wednesday's 1:1 to Thursday at 2", args, at) == [("start", "match")]
    assert asked(tools, "push Wednesday's 1:1 to Thursday at 2", {"start": "2026-12-03T15:00:00-05:00"}, at) == \
        [("start", "mismatch")]
    assert asked(tools, "把周三的组会挪到周四下午两点", {"start": "2026-12-03T14:00:00+08:00"}, at) == [("start", "match")]
    # a time in another part of the request is still asked
    assert asked(tools, "book Wednesday at 10, then move the gym to Friday",
                 {"start": "2026-12-02T11:00:00-05:00"}, at)[0] == ("start", "mismatch")


def test_an_end_told_as_a_length_from_a_start(tools):
    args = {"start": "2026-12-02 14:00", "end": "2026-12-02 15:00"}
    assert asked(tools, "一个半小时的会议，明天下午两点开始", args) == [("start", "match"), ("end", "mismatch")]
    assert asked(tools, "一个半小时的会议，明天下午两点开始", {**args, "end": "2026-12-02 15:30"}) == \
        [("start", "match"), ("end", "match")]
    assert asked(tools, "a 90-minute massage at 3 PM", {"slot": "15:00", "slot_end": "16:00"})[-1] == ("slot_end", "mismatch")
    # no end field: the end is compared with nothing; a lead or a wait is no length of the thing
    assert asked(tools, "a 90-minute massage at 3 PM", {"slot": "15:00"}) == [("slot", "match")]
    # a lead is no length: the time asked is 7:00 (the flight's 9 AM is about another field: ASKED_VERDICTS)
    assert asked(tools, "remind me 2 hours before the 9 AM flight", {"remind_at": "07:00", "end": "07:05"}) == \
        [("remind_at", "mismatch"), ("remind_at", "match")]
    assert asked(tools, "两小时后提醒我，九点的会", {"at": "09:00", "end_time": "09:30"}) == [("at", "match")]


def test_a_reminder_asked_as_a_lead_before_an_event(tools):
    # the asked time is the event's less the lead: where the field agrees with it, the event's clock is
    # about another field (ASKED_VERDICTS drops a mismatch on a field another value of the request matched)
    assert asked(tools, "后天上午九点体检，提前二十分钟提醒我", {"remind_at": "2026-12-03 08:40:00"}) == \
        [("remind_at", "mismatch"), ("remind_at", "match")]
    assert asked(tools, "后天上午九点体检，提前二十分钟提醒我", {"remind_at": "2026-12-03 08:20:00"}) == \
        [("remind_at", "mismatch"), ("remind_at", "mismatch")]
    assert asked(tools, "ping me 10 minutes before my 4 PM standup", {"alert_at": "15:50"}) == \
        [("alert_at", "mismatch"), ("alert_at", "match")]
    assert asked(tools, "ping me 10 minutes before my 4 PM standup", {"alert_at": "16:50"}) == \
        [("alert_at", "mismatch"), ("alert_at", "mismatch")]


def test_a_clock_range_in_bare_numbers_under_a_day_part(tools):
    args = {"start": "2026-12-05T09:00:00-05:00", "end": "2026-12-05T10:00:00-05:00"}
    assert asked(tools, "reserve the studio Saturday morning, 9 to 11", args) == [("start", "match"), ("end", "mismatch")]
    assert asked(tools, "reserve the studio Saturday morning, 9 to 11", {**args, "end": "2026-12-05T11:00:00-05:00"}) == \
        [("start", "match"), ("end", "match")]
    # counts, not clocks
    assert [f for f, _ in asked(tools, "a table Saturday evening, 2 to 4 people", args)] == ["start"]


def test_a_wake_up_clock_tied_to_a_day_or_a_repeat_is_in_the_morning(tools):
    assert asked(tools, "wake me at 5:45 every day", {"time": "17:45"}) == [("time", "mismatch")]
    assert asked(tools, "wake me at 5:45 every day", {"time": "05:45"}) == [("time", "match")]
    assert asked(tools, "明天五点半叫我起床", {"time": "17:30"}) == [("time", "mismatch")]
    # no day and no repeat (a nap), or no wake-up: either half of the dial
    assert asked(tools, "wake me at 5:45", {"time": "17:45"}) == [("time", "match")]
    assert asked(tools, "call me tomorrow at 5:45", {"time": "17:45"}) == [("time", "match")]


def test_a_count_with_a_verb_after_its_thing_and_a_minute_after_a_space(tools):
    assert asked(tools, "咖啡豆买 2 包，周末送到", {"sku": "BEAN-1", "quantity": 3}) == [("quantity", "mismatch")]
    assert asked(tools, "咖啡豆买 2 包，周末送到", {"sku": "BEAN-1", "quantity": 2}) == [("quantity", "match")]
    assert asked(tools, "明早 6 点 45 叫车去机场", {"pickup_time": "2026-12-02 06:50:00"}) == [("pickup_time", "mismatch")]
    assert asked(tools, "明早 6 点 45 叫车去机场", {"pickup_time": "2026-12-02 06:45:00"}) == [("pickup_time", "match")]


@pytest.mark.parametrize("at, stored, verdict", [
    # said on a Friday: "next Wednesday" is the coming one, never a week after it
    ("2026-12-04T15:00:00+00:00", "2026-12-09T11:00:00-05:00", "match"),
    ("2026-12-04T15:00:00+00:00", "2026-12-16T11:00:00-05:00", "mismatch"),
    # said on a Monday: this week's or next week's Wednesday, either; not the one after
    ("2026-11-30T15:00:00+00:00", "2026-12-02T11:00:00-05:00", "match"),
    ("2026-11-30T15:00:00+00:00", "2026-12-09T11:00:00-05:00", "match"),
    ("2026-11-30T15:00:00+00:00", "2026-12-16T11:00:00-05:00", "mismatch"),
])
def test_next_weekday_from_the_turns_weekday(tools, at, stored, verdict):
    assert asked(tools, "move my physio to next Wednesday at 11", {"start": stored}, at) == [("start", verdict)]


def test_money_the_write_moved_in_its_returned_record(tools):
    args = {"order_id": "#K1102", "reason": "duplicate"}
    back = {"order_id": "#K1102", "status": "cancelled", "refund": {"amount": 61.5, "method": "gift_card_01"}}
    assert verdicts(tools, "A refund of $16.50 is on its way", args, back) == [("refund.amount", "mismatch")]
    assert verdicts(tools, "A refund of $61.50 is on its way", args, back) == [("refund.amount", "match")]
    # a list of payments: the one the told amount equals (this write's charge beside the original fare)
    hist = {"booking": "QX71", "payment_history": [{"payment_id": "pp_1", "amount": 312}, {"payment_id": "pp_1", "amount": 45}]}
    assert verdicts(tools, "扣了 54 元手续费", {"booking": "QX71", "payment_id": "pp_1"}, hist) == \
        [("payment_history.amount", "mismatch")]
    assert verdicts(tools, "扣了 45 元手续费", {"booking": "QX71", "payment_id": "pp_1"}, hist) == \
        [("payment_history.amount", "match")]


def test_nested_amounts_of_other_things_stay_unjudged(tools):
    # a returned order's line prices describe what it holds, not money this write moved
    back = {"order_id": "#K1102", "items": [{"name": "Desk lamp", "price": 39.0}], "shipping": {"fee": 5.0}}
    assert verdicts(tools, "Your $29 lamp is on order", {"sku": "LMP-2"}, back) == []


def test_money_records_only_where_money_is_said_to_move_and_the_write_added_it(tools):
    back = {"order_id": "#K1102", "refund": {"amount": 61.5}}
    # a price told is no money moved
    assert verdicts(tools, "Your lamp, priced at $16.50, is swapped", {"order_id": "#K1102"}, back) == []
    # a history of one payment is what was there before this write (a return refunds later)
    once = {"order_id": "#K1102", "payment_history": [{"type": "payment", "amount": 230.0}]}
    assert verdicts(tools, "Return filed; $88.40 will be refunded to your card", {"order_id": "#K1102"}, once) == []
    # money given back stored negative is the same amount
    twice = {"booking": "QX71", "payment_history": [{"amount": 312}, {"amount": -312}]}
    assert verdicts(tools, "已取消，312 元会原路退回", {"booking": "QX71"}, twice) == [("payment_history.amount", "match")]


# ---- an id told with no word for its kind, in the shape of the write's id
def test_id_of_the_same_shape_is_about_the_write(tools):
    args = {"booking_code": "QX4TRM"}
    assert verdicts(tools, "QX4TRN is cancelled too", args) == [("booking_code", "mismatch")]
    assert verdicts(tools, "QX4TRM is cancelled", args) == [("booking_code", "match")]


def test_id_of_another_shape_says_nothing(tools):
    # a flight number, a short code, a plain number: other shapes than the stored code
    assert verdicts(tools, "you're on UA455 now; bay 12B", {"booking_code": "QX4TRM"}) == []


# ---- more read-back forms: "<field> expected X, found Y", "verify failed: ... has field=Y", 期望 … 实际 … with clocks
@pytest.mark.parametrize("text, args, error, want", [
    ("3 checked bags are on the booking", {"total_baggages": 3},
     "read-back mismatch: total_baggages expected 3, found 2", [("total_baggages", "mismatch")]),
    ("3 checked bags are on the booking", {"total_baggages": 3},
     "read-back mismatch: total_baggages expected 3, found 3", [("total_baggages", "match")]),
    ("I'll remind you Friday at 7 PM", {"due": "2026-12-04T19:00:00-06:00"},
     "verification failed: task tsk_9 has due=2026-12-04T19:00:00Z", [("due", "mismatch")]),
    ("明晚 9:30 提醒你", {"at": "2026-12-02 21:30:00"},
     "回读不一致：at 期望 2026-12-02 21:30:00，实际 2026-12-02 09:30:00", [("at", "mismatch")]),
    ("明晚 9:30 提醒你", {"at": "2026-12-02 21:30:00"},
     "回读不一致：at 期望 2026-12-02 21:30:00，实际 2026-12-02 21:30:00", [("at", "match")]),
])
def test_read_back_forms(tools, text, args, error, want):
    assert verdicts(tools, text, args, error=error, at="2026-12-01T12:00:00+00:00") == want


def test_a_verification_note_with_no_field_reads_nothing(tools):
    # no field named: the arguments stand
    assert verdicts(tools, "3 checked bags are on the booking", {"total_baggages": 3},
                    error="verification failed: timeout after 3 tries") == [("total_baggages", "match")]


def test_a_count_is_about_the_count_field_it_equals(tools):
    # another count field's read-back (the paid bags) says nothing of the total told
    args = {"total_baggages": 3, "nonfree_baggages": 1}
    assert verdicts(tools, "3 checked bags are on the booking", args,
                    error="read-back mismatch: nonfree_baggages expected 1, found 0") == [("total_baggages", "match")]
    assert verdicts(tools, "4 checked bags are on the booking", args,
                    error="read-back mismatch: nonfree_baggages expected 1, found 0") == [("nonfree_baggages", "mismatch")]


# ---- read-backs that name no field the call knows: the argument holding the value expected, or the
# call's one date-time argument for the time a write reports it kept
@pytest.mark.parametrize("text, args, error, want", [
    # the value read back first, the one expected after it: about the argument that holds the expected one
    ("公交卡已充值 300 元", {"card": "NB-7781", "amount": 300},
     "readback: credited total 30.00, expected 300.00", [("amount", "mismatch")]),
    ("公交卡已充值 300 元", {"card": "NB-7781", "amount": 300},
     "readback: credited total 300.00, expected 300.00", [("amount", "match")]),
    ("Topped up $80 on your transit pass", {"pass_id": "TP-19", "load": {"amount": 80}},
     "verify: wallet delta 8.00, expected 80.00", [("load.amount", "mismatch")]),
    # a time the write reports with a key of its own words, or none, after a word of making
    ("12 月 5 日 18:30 提醒你取快递", {"title": "取快递", "fire_at": "2026-12-05 18:30"},
     "提醒已创建：2026-12-06 18:30 取快递", [("fire_at", "mismatch")]),
    ("12 月 5 日 18:30 提醒你取快递", {"title": "取快递", "fire_at": "2026-12-05 18:30"},
     "提醒已创建：2026-12-05 18:30 取快递", [("fire_at", "match")]),
    ("已约好 12 月 9 日早上 6:20 的车", {"from": "家", "board_time": "2026-12-09 06:20:00"},
     "预约成功，上车时间 2026-12-09 18:20:00，请提前下楼", [("board_time", "mismatch")]),
    ("Your massage is set for Dec 9 at 3:15 PM", {"slot": "2026-12-09 15:15"},
     "Appointment booked for 2026-12-09 16:15", [("slot", "mismatch")]),
    ("The van is booked for Dec 9 at 7:50 AM", {"van": "V2", "collect_at": "2026-12-09 07:50"},
     "ok; collect_at saved as 2026-12-09 19:50", [("collect_at", "mismatch")]),
    ("The van is booked for Dec 9 at 7:50 AM", {"van": "V2", "collect_at": "2026-12-09 07:50"},
     "ok; collect_at saved as 2026-12-09 07:50", [("collect_at", "match")]),
])
def test_read_back_with_a_field_of_its_own_words(tools, text, args, error, want):
    assert verdicts(tools, text, args, error=error, at="2026-12-01T12:00:00+00:00") == want


@pytest.mark.parametrize("text, args, error", [
    # when the record was made is no value of it (创建于, 创建时间, "created at")
    ("12 月 5 日 18:30 提醒你取快递", {"fire_at": "2026-12-05 18:30"}, "已创建（创建于 2026-12-01 10:02）"),
    ("12 月 5 日 18:30 提醒你取快递", {"fire_at": "2026-12-05 18:30"}, "已创建，创建时间 2026-12-01 10:02"),
    ("Your massage is set for Dec 9 at 3:15 PM", {"slot": "2026-12-09 15:15"}, "created at 2026-12-01 10:02"),
    # two date-time arguments: a time with no key could be either, so the arguments stand
    ("Your massage is set for Dec 9 at 3:15 PM", {"slot": "2026-12-09 15:15", "ends": "2026-12-09 16:15"},
     "Appointment booked for 2026-12-09 16:15"),
    # an expected value no argument holds: the read-back keeps its own words and is of no kind
    ("公交卡已充值 300 元", {"card": "NB-7781", "amount": 300}, "readback: credited total 30.00, expected 45.00"),
])
def test_read_back_of_no_field_of_the_call_says_nothing(tools, text, args, error):
    assert all(v == "match" for _, v in verdicts(tools, text, args, error=error, at="2026-12-01T12:00:00+00:00"))


# ---- a field of people (guests, party_size) counts people: a count of nights or rooms is of another thing
@pytest.mark.parametrize("text, args, want", [
    ("民宿订好了，住三晚", {"homestay": "hs_77", "guests": 1}, []),
    ("民宿订好了，住三晚", {"homestay": "hs_77", "guests": 2, "nights": 3}, [("nights", "match")]),
    ("Both rooms are booked at the Grove", {"hotel": "grove", "guests": 2}, []),
    ("Booked 2 rooms at the Grove", {"hotel": "grove", "party_size": 4}, []),
    # a count of people still is
    ("民宿订好了，三位客人", {"homestay": "hs_77", "guests": 2}, [("guests", "mismatch")]),
    ("民宿订好了，两个大人", {"homestay": "hs_77", "guests": 2}, [("guests", "match")]),
    ("The Grove is booked for 3 guests", {"hotel": "grove", "guests": 2}, [("guests", "mismatch")]),
    ("Table for 5 at Osteria Ludo is set", {"venue": "ludo", "party_size": 5}, [("party_size", "match")]),
])
def test_a_field_of_people_counts_people(tools, text, args, want):
    assert [v for v in verdicts(tools, text, args) if v[0] in ("guests", "party_size", "nights")] == want


# ---- the clock an activity lasts until is its end: compared with the end field, not hidden by the start's
@pytest.mark.parametrize("text, args, want", [
    ("包厢订好了，晚上 8 点开始，唱到 12 点", {"room": "K12", "start_time": "20:00", "end_time": "23:00"},
     [("start_time", "match"), ("end_time", "mismatch")]),
    ("包厢订好了，晚上 8 点开始，唱到 11 点", {"room": "K12", "start_time": "20:00", "end_time": "23:00"},
     [("start_time", "match"), ("end_time", "match")]),
    ("保龄球道订好了，下午 4 点开始，玩到 6 点", {"lane": 4, "starts": "16:00", "ends": "17:00"},
     [("starts", "match"), ("ends", "mismatch")]),
    ("保龄球道订好了，下午 4 点开始，玩到 5 点", {"lane": 4, "starts": "16:00", "ends": "17:00"},
     [("starts", "match"), ("ends", "match")]),
])
def test_a_clock_an_activity_lasts_until_is_its_end(tools, text, args, want):
    assert verdicts(tools, text, args) == want


# ---- a field named as its ids begin (rma: RMA-8830412) holds ids: an id told with no word for its kind, of
# the same shape, is about it
@pytest.mark.parametrize("text, result, want", [
    ("Your exchange is open — EXC-551207.", {"exc": "EXC-551270", "status": "open"}, [("exc", "mismatch")]),
    ("Your exchange is open — EXC-551270.", {"exc": "EXC-551270", "status": "open"}, [("exc", "match")]),
    # a field named otherwise, or by one or two letters, says nothing of the id told
    ("Your exchange is open — EXC-551207.", {"slip": "EXC-551270", "status": "open"}, []),
    ("Your exchange is open — EX-551207.", {"ex": "EX-551270", "status": "open"}, []),
])
def test_a_field_named_as_its_ids_begin(tools, text, result, want):
    assert verdicts(tools, text, {"order": "112-77"}, result) == want



# ---- a listed thing's count after a times sign, against that thing's line in the order the call wrote and
# the write returned
@pytest.mark.parametrize("text, args, result, want", [
    ("下单成功：杨枝甘露×3 + 烧麦", {"items": [{"name": "杨枝甘露", "qty": 3}, {"name": "烧麦", "qty": 1}]},
     {"order_no": "WM1", "items": [{"name": "杨枝甘露", "qty": 2}, {"name": "烧麦", "qty": 1}]}, "mismatch"),
    ("下单成功：杨枝甘露×2 + 烧麦", {"items": [{"name": "杨枝甘露", "qty": 2}, {"name": "烧麦", "qty": 1}]},
     {"order_no": "WM1", "items": [{"name": "杨枝甘露", "qty": 2}, {"name": "烧麦", "qty": 1}]}, "match"),
    ("Order placed: Cold Brew x3, Bagel x1", {"items": [{"name": "Cold Brew 16oz", "quantity": 3}]},
     {"id": "o1", "items": [{"name": "Cold Brew 16oz", "quantity": 2}, {"name": "Plain Bagel", "quantity": 1}]},
     "mismatch"),
    ("Order placed: Cold Brew x2, Bagel x1", {"items": [{"name": "Cold Brew 16oz", "quantity": 2}]},
     {"id": "o1", "items": [{"name": "Cold Brew 16oz", "quantity": 2}, {"name": "Plain Bagel", "quantity": 1}]},
     "match"),
])
def test_a_listed_things_count_after_a_times_sign(tools, text, args, result, want):
    got = [v for f, v in verdicts(tools, text, args, result) if f.startswith("items.")]
    assert got and (want in got if want == "mismatch" else set(got) == {"match"})


# ---- which stored fields hold money and ids ([fields] in values.toml)
def test_a_payout_and_a_price_difference_are_money(tools):
    # a payout kept in minor units, a difference settled on an exchange (stored negative: money back)
    assert verdicts(tools, "A payout of $8,400.00 is on its way", {"case": "C-1"},
                    {"payout_cents": 804000}) == [("payout_cents", "mismatch")]
    assert verdicts(tools, "A payout of $8,040.00 is on its way", {"case": "C-1"},
                    {"payout_cents": 804000}) == [("payout_cents", "match")]
    # a difference is no price: the items an exchange lists are not compared with it
    assert verdicts(tools, "Exchanged the kettle for the 1.7L one at $64.90", {"order": "O-1"},
                    {"exchange_price_difference": 15.3}) == []
    # a field named for no money says nothing of an amount
    assert verdicts(tools, "you get $15.30 back", {"order": "O-1"}, {"difference_days": 15}) == []


def test_an_id_of_a_kind_kept_under_the_kinds_field_words(tools):
    # a waybill is what a parcel is tracked by; a policy number is the policy's
    assert verdicts(tools, "运单号 YT8812003456", {"to": "成都"}, {"waybill_no": "YT8812003465"}) == [
        ("waybill_no", "mismatch")]
    assert verdicts(tools, "tracking number YT8812003456", {"to": "Leeds"}, {"waybill_no": "YT8812003456"}) == [
        ("waybill_no", "match")]
    assert verdicts(tools, "新保单号 GPX20270055871", {"plan": "same"}, {"policy_no": "GPX20270055817"}) == [
        ("policy_no", "mismatch")]


def test_an_id_of_a_kind_no_field_names_against_the_one_field_of_its_shape(tools):
    # a booking reference kept as the record's "slip_code": the one id field with a code of its shape
    assert verdicts(tools, "your booking reference is QX-77120B", {"room": "2"}, {"slip_code": "QX-77210B"}) == [
        ("slip_code", "mismatch")]
    assert verdicts(tools, "your booking reference is QX-77120B", {"room": "2"}, {"slip_code": "QX-77120B"}) == [
        ("slip_code", "match")]
    # two id fields of that shape: which one it is, nobody can say; a code of another shape is no such id
    assert verdicts(tools, "your booking reference is QX-77120B", {"room": "2"},
                    {"slip_code": "QX-77210B", "gate_code": "QX-10000A"}) == []
    assert verdicts(tools, "your booking reference is QX-77120B", {"room": "2"}, {"slip_code": "7721"}) == []


# ---- a read-back that names its field by a path, or says what it found with a verb
def test_a_read_back_by_a_path_into_the_object_and_with_a_verb(tools):
    args = {"namespace": "shop", "name": "thumbnailer", "replicas": 5}
    assert verdicts(tools, "thumbnailer is now running 5 replicas", args,
                    error="post-check failed: spec.replicas is 2 after apply") == [("replicas", "match")]  # no read-back word
    assert verdicts(tools, "thumbnailer is now running 5 replicas", args,
                    error="verification failed: spec.replicas is 2 after apply") == [("replicas", "mismatch")]
    assert verdicts(tools, "thumbnailer is now running 5 replicas", args,
                    error="verification: spec.replicas is 5") == [("replicas", "match")]
    # a path whose end is no argument keeps its own words, and is compared with nothing
    assert verdicts(tools, "thumbnailer is now running 5 replicas", args,
                    error="verification failed: status.readyReplicas is 2") == [("replicas", "match")]


def test_a_read_back_expected_and_found_of_any_value(tools):
    args = {"pnr": "KQ7TT2", "cabin": "economy"}
    assert verdicts(tools, "已为您改为经济舱", args, error="回读校验失败：cabin 期望 economy，实际 business") == [
        ("cabin", "mismatch")]
    assert verdicts(tools, "已为您改为经济舱", args, error="回读校验：cabin 期望 economy，实际 economy") == [
        ("cabin", "match")]


# ---- families of choices a field holds: a rental car's class, who pays the freight, a plan's tier
def test_a_car_class_a_freight_payer_and_a_plan_tier(tools):
    assert verdicts(tools, "Reserved a full-size SUV for the week", {"vehicle_class": "ICAR"}) == [
        ("vehicle_class", "mismatch")]
    assert verdicts(tools, "Reserved a midsize car for the week", {"vehicle_class": "ICAR"}) == [
        ("vehicle_class", "match")]
    assert verdicts(tools, "包裹运费寄付", {"freight_payer": "CONSIGNEE"}) == [("freight_payer", "mismatch")]
    assert verdicts(tools, "包裹运费到付", {"freight_payer": "CONSIGNEE"}) == [("freight_payer", "match")]
    assert verdicts(tools, "已升级为专业版", {"tier": "basic"}) == [("tier", "mismatch")]
    assert verdicts(tools, "已升级为专业版", {"tier": "pro"}) == [("tier", "match")]
    # a code of the family in a field of another kind says nothing (a cabin's "economy", a plan named in a note)
    assert verdicts(tools, "Reserved a midsize car for the week", {"cabin": "economy"}) == []
    assert verdicts(tools, "已升级为专业版", {"note": "basic"}) == []


def test_a_count_of_a_compound_thing_against_the_field_of_its_head(tools):
    # "guest passes" are passes: a field of passes holds them, a field of guests does not
    assert verdicts(tools, "3 guest passes are ready", {"member": "M-1"}, {"passes_issued": 2}) == [
        ("passes_issued", "mismatch")]
    assert verdicts(tools, "3 guest passes are ready", {"member": "M-1"}, {"passes_issued": 3}) == [
        ("passes_issued", "match")]
    assert verdicts(tools, "3 guest passes are ready", {"member": "M-1"}, {"guests_max": 1}) == []


def test_a_change_reports_the_time_it_kept(tools):
    # the write's own report after a change (its step detail) names the time it kept, with no key
    args = {"booking": "RB-7", "slot": "2026-12-05 09:30"}
    assert verdicts(tools, "已改到周六上午 9:30", args, error=None, at="2026-12-02T02:00:00+00:00", tz="Asia/Shanghai",
                    ) == [("slot", "match")]
    assert verdicts(tools, "已改到周六上午 9:30", args, error="已更新预约时间为 2026-12-05 21:30",
                    at="2026-12-02T02:00:00+00:00", tz="Asia/Shanghai") == [("slot", "mismatch")]
    assert verdicts(tools, "Moved to Saturday 9:30 AM", args, error="Booking rescheduled for 2026-12-05 09:30",
                    at="2026-12-02T02:00:00+00:00", tz="Asia/Shanghai") == [("slot", "match")]
    # a record time is no report of what was kept
    assert verdicts(tools, "已改到周六上午 9:30", args, error="更新于 2026-12-02 10:00",
                    at="2026-12-02T02:00:00+00:00", tz="Asia/Shanghai") == [("slot", "match")]


def test_a_relative_days_clock_with_its_date_beside_it(tools):
    # the date in the aside (read apart: 改到本周六（12月5日）上午 9:30) is the weekday's: the clock is judged
    # with it, not hidden by the date agreeing alone
    reader, cmp = tools
    stored = stored_values(json.dumps({"booking": "RB-7", "slot": "2026-12-05 21:30"}), None, None, None, cmp.patterns)

    def told(clause):
        wants = reader.extract(clause) + reader.extract("12月5日")
        return [(r[1], r[-1]) for r in _compared(cmp, wants, stored, "2026-12-02T02:00:00+00:00", "Asia/Shanghai")]
    assert told("已改到本周六上午 9:30") == [("slot", "mismatch")]
    assert told("已改到本周六晚上 9:30") == [("slot", "match")]
    # a date with a clock of its own is no aside of the weekday's
    wants = reader.extract("已改到本周六晚上 9:30") + reader.extract("12月6日 10:00")
    assert len(_compared(cmp, wants, stored, "2026-12-02T02:00:00+00:00", "Asia/Shanghai")) == 2
