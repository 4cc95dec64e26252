"""What each claimed action is about, as claim_items records it (queries/reading/tables.py)."""

from __future__ import annotations

import re

import pytest

from trace_audit.queries import engine
from trace_audit.queries.reading.objects import ObjectGroups
from trace_audit.queries.reading.tables import read_texts


@pytest.fixture(scope="module")
def plan():
    return engine.plan_run()


def _items(plan, text: str) -> list[dict]:
    t = read_texts([text], plan)["claim_items"].to_pylist()
    return [{"clause": r["clause"], "action": r["action"], "object": r["object"], "follows": r["follows"]} for r in t]


@pytest.mark.parametrize("text, clause", [
    # money taken for what a write did is a payment that follows from that write
    ("Done: reservation 8JDK2Q now has 2 checked bags, and the extra one was charged to your gift card.",
     "and the extra one was charged to your gift card"),
    ("I've charged the $12 delivery fee to your Visa.", "I've charged the $12 delivery fee to your Visa"),
    ("座位已改好，差价已从余额扣款。", "差价已从余额扣款"),
])
def test_money_charged_is_a_payment_that_follows_a_write(plan, text, clause):
    got = [i for i in _items(plan, text) if i["clause"] == clause]
    assert got and got[0]["object"] == "payment" and got[0]["follows"], _items(plan, text)


@pytest.mark.parametrize("text", ["A phone charger has been added to your cart.", "已为您下单充电器。",
                                  "I've booked the table for 7."])
def test_a_claim_with_no_money_taken_is_no_payment(plan, text):
    assert all(i["object"] != "payment" for i in _items(plan, text)), _items(plan, text)


def test_a_due_time_or_an_alert_in_the_arguments_mentions_a_reminder(plan):
    pattern = re.compile(ObjectGroups(plan.lexicon.data).pattern("reminder"))
    for args in ('{"title": "Submit report", "dueDate": "2026-11-27", "dueTime": "09:00"}',
                 '{"task": "x", "due_date": "2026-11-27"}', '{"summary": "Dentist", "alerts": [{"minutes": 30}]}',
                 '{"notification": {"at": "08:00"}}', '{"remind_at": "08:00"}', '{"内容": "交报告", "提醒": "08:00"}'):
        assert pattern.search(args), args
    for args in ('{"title": "Pay the overdue fee"}', '{"item": "residue cleaner"}', '{"title": "Standup", "start": "09:00"}'):
        assert not pattern.search(args), args


@pytest.mark.parametrize("text, backs_transfer", [
    # money sent is backed by a transfer too; a message only by a send
    ("Sent! Lukas will receive €300.00 for the cabin.", True),
    ("I've transferred $40 to Dana.", True),
    ("已转给房东李建国。", True),
    ("I've emailed her the receipt.", False),
    ("I let the group chat know.", False),
    ("已发短信通知王总。", False),
])
def test_a_send_of_money_is_backed_by_a_transfer_and_a_message_is_not(plan, text, backs_transfer):
    rows = read_texts([text], plan)["claim_items"].to_pylist()
    assert rows and all(r["action"] == "send" for r in rows), rows
    assert all((",transfer," in r["backs"]) is backs_transfer for r in rows), rows


@pytest.mark.parametrize("text, clause, group", [
    # money given back is a refund (only a refund, a cancel or a call carrying the payment causes one)
    ("Your tier is now Silver, and I've credited the $6 difference to your Amex.",
     "and I've credited the $6 difference to your Amex", "refund"),
    ("宽带已降速，多收的 30 元已退回你的银行卡。", "多收的 30 元已退回你的银行卡", "refund"),
    # a payment changed is its method: no money moved
    ("I've changed the payment on the order to PayPal.", "I've changed the payment on the order to PayPal",
     "payment_method"),
    # money taken is still a payment
    ("The $9 rush fee was charged to your Visa.", "The $9 rush fee was charged to your Visa", "payment"),
])
def test_money_given_back_or_a_method_changed(plan, text, clause, group):
    got = [i for i in _items(plan, text) if i["clause"] == clause]
    assert got and got[0]["object"] == group, _items(plan, text)



@pytest.mark.parametrize("tool, group", [("rides.schedule", "ride"), ("taxi.bookings.create", "ride"),
                                         ("uber_request_car", "ride"), ("calendar.events.insert", "event")])
def test_a_car_called_is_a_ride_not_the_event_it_takes_you_to(plan, tool, group):
    from trace_audit.queries.reading.tools import words
    assert group in ObjectGroups(plan.lexicon.data).of_tool_words(words(tool))
    assert not (group == "ride" and "event" in ObjectGroups(plan.lexicon.data).of_tool_words(words(tool)))


@pytest.mark.parametrize("text, group", [
    ('"Water the ferns" is on your to-do list.', "todo"),
    ("I've put it on your reminders list.", "reminder"),
])
def test_a_container_of_several_words_names_its_group_by_a_word(plan, text, group):
    assert any(i["object"] == group for i in _items(plan, text)), _items(plan, text)


def test_a_container_naming_no_group_names_none(plan):
    assert all(i["object"] is None for i in _items(plan, "It's on your shopping list.")), \
        _items(plan, "It's on your shopping list.")


def _nouns(plan, text: str) -> list[str | None]:
    return [r["noun"] for r in read_texts([text], plan)["claim_items"].to_pylist()]


@pytest.mark.parametrize("text, clause_words", [
    # a demonstrative before a noun points at a thing of its own: the claim still names what it made
    ("Your leave for Jan 5 is booked, and your voicemail greeting is changed for those days.", "voicemail"),
    ("Your badge request is submitted, and your parking permit is set up for that week.", "parking"),
])
def test_a_claim_with_this_or_those_before_a_noun_names_its_thing(plan, text, clause_words):
    assert any(n and clause_words in n.split("|") for n in _nouns(plan, text)), _nouns(plan, text)


@pytest.mark.parametrize("text", ["Those are booked.", "That one is confirmed too.", "These two are on your list.",
                                  "That's cancelled as well."])
def test_a_demonstrative_standing_for_the_thing_names_nothing(plan, text):
    assert _nouns(plan, text) and all(n is None for n in _nouns(plan, text)), _nouns(plan, text)


@pytest.mark.parametrize("text, clause, action, group", [
    # a clause that goes on with the claim before it, after a comma: 并 / 同时 + verb + 了 (the verb's own 了)
    ("已为您预订两张电影票，并用了那张 8 元代金券。", "并用了那张 8 元代金券", "update", "coupon"),
    ("快递已改派到公司，同时给您补了一张运费券。", "同时给您补了一张运费券", "create", "coupon"),
    # 为 + what it was done for, after the perfect: 已为整个订单加购
    ("两位乘客的行李额也已为这趟航班加购。", "两位乘客的行李额也已为这趟航班加购", "book", "bag"),
    # a record put right is an update
    ("收件人电话已更正为 139 0000 1122。", "收件人电话已更正为 139 0000 1122", "update", None),
    # the others got the message: a send, not the cancel it tells of
    ("班级群的家长都已收到停课通知。", "班级群的家长都已收到停课通知", "send", None),
    # a new subject after "and", past an amount with a decimal point
    ("Your gym membership has been cancelled and your final fee of $7.50 has been refunded to your Amex.",
     "your final fee of $7.50 has been refunded to your Amex", "refund", None),
    ("I've let your 4:30 know you're running behind.", "I've let your 4:30 know you're running behind", "send", None),
])
def test_a_claim_that_goes_on_or_is_built_around_its_object(plan, text, clause, action, group):
    got = [i for i in _items(plan, text) if i["clause"] == clause]
    assert got and got[0]["action"] == action and (group is None or got[0]["object"] == group), _items(plan, text)


@pytest.mark.parametrize("text, clauses", [
    # 一并 / 合并 are one word, no coordination: one claim
    ("押金退款申请也一并提交了。", ["押金退款申请也一并提交了"]),
    ("押金和运费已一并退回。", ["押金和运费已一并退回"]),
])
def test_a_word_with_bing_inside_is_no_coordination(plan, text, clauses):
    assert [i["clause"] for i in _items(plan, text)] == clauses, _items(plan, text)


@pytest.mark.parametrize("text", [
    # a clause going on with no completed verb, a question about a message, a condition
    "已为你下单，并可以用积分抵扣。",
    "你收到取消通知了吗？",
    "如果家长都收到通知了，请告诉我。",
    "同时需要您补一张身份证照片。",
])
def test_what_goes_on_with_no_completed_verb_claims_nothing_more(plan, text):
    assert all(i["action"] != "send" or "收到" not in i["clause"] for i in _items(plan, text)), _items(plan, text)
    assert len(_items(plan, text)) <= 1, _items(plan, text)


@pytest.mark.parametrize("text, group", [
    # a room of a home is no hotel room; a room booked still is
    ("The robot has started on the living room and hallway.", "home_room"),
    ("Started a clean of the bedroom.", "home_room"),
    ("Your room at the Hyatt is booked for Friday.", "hotel"),
    ("I've reserved a double room for two nights.", "hotel"),
])
def test_a_room_of_a_home_is_no_hotel(plan, text, group):
    assert _items(plan, text) and all(i["object"] == group for i in _items(plan, text)), _items(plan, text)


def _backs(plan, text: str) -> list[tuple[str | None, str | None]]:
    return [(r["object"], r["backs"]) for r in read_texts([text], plan)["claim_items"].to_pylist()]


@pytest.mark.parametrize("text, group", [
    # a home's device must be named by the write that backs a claim about it
    ("The side gate is locked now.", "door"),
    ("The hallway thermostat is set to 20 degrees.", "thermostat"),
    ("The patio lights are off.", "light"),
    ("书房的窗帘已经拉上了。", "blind"),
    ("扫地机器人的定时清扫已经设好了。", "vacuum"),
])
def test_a_device_claim_needs_a_write_naming_it(plan, text, group):
    got = _backs(plan, text)
    assert got and all(o == group and b.endswith(",named,") for o, b in got), got


@pytest.mark.parametrize("text", [
    # a shop's product, a thing that is no device: no naming needed
    "The desk lamp in your order is now the walnut finish.",
    "落地台灯已换成白色款。",
    "Your hotel room is booked.",
    "I've added the door mat to your cart.",
])
def test_a_product_or_booking_needs_no_named_write(plan, text):
    got = _backs(plan, text)
    assert got and all(not (b or "").endswith(",named,") for o, b in got), got


@pytest.mark.parametrize("text, listed", [
    # a headline counting its things: its list goes on over commas after a colon or a dash
    ("两个闹钟都定好了：周六早上 6:40 晨跑，周日下午 3 点取干洗。", ["周六早上 6:40 晨跑", "周日下午 3 点取干洗"]),
    ("Both appointments are booked — the optician on Monday, and the physio on Thursday.",
     ["the optician on Monday", "the physio on Thursday"]),
    # ... as many things as it counts, no more: what follows says more of them
    ("两间都订好了：6 号成都全季、7 号重庆亚朵，都含早餐，凭身份证入住。", ["6 号成都全季", "7 号重庆亚朵"]),
])
def test_a_counted_headline_lists_over_commas(plan, text, listed):
    got = [i["clause"] for i in _items(plan, text)][1:]
    assert got == listed, _items(plan, text)


@pytest.mark.parametrize("text", [
    # no count: a comma lists nothing ("Booked: the Hoxton, checking in Jan 9")
    "Booked: the Hoxton, checking in Jan 9, three nights.",
    "订好了：如家酒店，1 月 9 号入住，住三晚。",
    # a count that is a party, not the things done
    "Table for two is booked — Friday at 7, window seat.",
])
def test_an_uncounted_headline_lists_nothing_over_commas(plan, text):
    assert len(_items(plan, text)) == 1, _items(plan, text)


def test_a_call_naming_a_showing_is_about_tickets(plan):
    pattern = re.compile(ObjectGroups(plan.lexicon.data).pattern("ticket"))
    for args in ('{"showtime_id": "REG-0412-1930", "quantity": 2}', '{"screening": "S-7", "seats": ["F7"]}',
                 '{"performance_id": 8812}', '{"场次": "12-05 19:30"}'):
        assert pattern.search(args), args
    for args in ('{"subject": "Router keeps dropping", "priority": "high"}', '{"show_id": "the-office", "episode": 4}',
                 '{"sku": "SHOWER-HEAD-2"}'):
        assert not pattern.search(args), args


@pytest.mark.parametrize("text, clause, group", [
    # a return and an exchange are two things; a return verb names a return where the claim names no group
    ("The blender exchange is submitted, and the spare blades have been returned.", "and the spare blades have been returned", "return"),
    ("台灯已经帮你换货了。", "台灯已经帮你换货了", "exchange"),
    # ... money returned is no return of goods
    ("The $12.50 has been returned to your Visa.", "The $12.50 has been returned to your Visa", None),
])
def test_a_return_and_an_exchange_are_two_things(plan, text, clause, group):
    got = [i for i in _items(plan, text) if i["clause"] == clause]
    assert got and got[0]["object"] == group, _items(plan, text)


def _vals(plan, text: str) -> list[list[tuple]]:
    import json
    return [[(v["type"], v["text"]) for v in json.loads(r["vals"] or "[]")]
            for r in read_texts([text], plan)["claim_items"].to_pylist()]


def test_lines_set_out_under_labels_tell_the_claims_values(plan):
    # what was made, line by line under short labels: each line's values, read with its label
    got = _vals(plan, "Your bike is booked 🚲\n\n**Collect:** Tue Dec 8 at 10:00 AM\n**Booking #:** 27-3310-4452")
    assert got == [[("time", "Dec 8 at 10:00 AM"), ("id", "27-3310-4452")]], got
    got = _vals(plan, "工单已创建✅\n描述：「打印机卡纸，三楼东侧」")
    assert got == [[("quote", "打印机卡纸，三楼东侧")]], got
    # a label naming what was there before, a line with no label: neither tells a value of the claim
    got = _vals(plan, "Your bike is booked 🚲\n\n**Old booking #:** 27-3310-0001\nSee you on Tuesday, 9 a.m. sharp")
    assert got == [[]], got
    # lines after prose that turns to something else list no record made ("here are the other options")
    got = _vals(plan, "Your bike is booked 🚲 Here are the e-bikes you asked about:\n**Model:** Cargo X\n**Price:** $45")
    assert got == [[]], got


def test_a_bare_headline_after_a_greeting_is_followed_by_what_it_did(plan):
    # a greeting before the headline leaves it bare: the next sentence tells what was done
    assert _vals(plan, "Hi Sam, renewed! Your pass runs to 31 March, £42.00 paid.") == [
        [("time", "31 March"), ("amount", "£42.00")]], _vals(plan, "Hi Sam, renewed! Your pass runs to 31 March, £42.00 paid.")
    assert _vals(plan, "好的，已续费💳 本次扣款 58.00 元。") == [[("amount", "58.00 元")]]
    # a lead-in that says something of its own is no greeting
    got = _vals(plan, "Sorry for the long wait today, renewed! Your pass runs to 31 March.")
    assert ("time", "31 March") not in got[0], got
