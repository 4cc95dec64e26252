"""Completion said in forms the lexicon lacked, and their look-alikes (issue 14, set dev14q's misses).

Each mechanism has cases that must read as a claim and cases that must not, in words of their
own (not the set's). The reader is the real one with the real lexicon.
"""

from __future__ import annotations

import pytest

from trace_audit.queries.lexicon import compile_lexicon
from trace_audit.queries.reading.tools import ToolTyper

READER = compile_lexicon().reader()


def claims(text: str) -> bool:
    return READER.read(text).is_claim


@pytest.mark.parametrize("reply, claim", [
    # a value raised: "bumped" is a change
    ("Bumped the heat to 72 for you.", True),
    ("I've bumped your storage quota up to 200 GB.", True),
    ("The limit got a bump last year, it's 50 now.", False),
    # started, as operations say it
    ("Nightly build kicked off.", True),
    ("I've kicked off the database backup.", True),
    ("Should I kick off the deploy?", False),
    # money on its way to the one it was sent to
    ("€800 is headed to Marta's account now.", True),
    ("Your payment is on its way to the landlord.", True),
    ("The storm is heading to the coast tonight.", False),
    ("Your package is headed to the Memphis hub.", False),
    ("Your rent of $900 is heading to you?", False),
    # a thing filed, told as "in", with its dates or name between
    ("Your leave for March 3–7 is in!", True),
    ("The expense report for Q3 is in.", True),
    ("Your order for the desk lamp is in stock.", False),
    ("Your time off request is in review.", False),
])
def test_english_completion_idioms(reply, claim):
    assert claims(reply) is claim


@pytest.mark.parametrize("reply, claim", [
    # over to the other side (过去/过来 a complement, not the experiential 过)
    ("押金已经给中介转过去了。", True),
    ("报价单我发过去了，你查收一下。", True),
    ("这个地址我之前改过。", False),
    # the user's report as the thing handled (您反馈的问题), not the user's own words about a state
    ("您反馈的情况已经登记好了，工单号 A-88。", True),
    ("您反馈说门锁已经锁好了。", False),
    # a weekday alone is the coming one: settled now; with 上 or with 已 it tells history
    ("周六就这么定了，不见不散！", True),
    ("上周五就已经批了。", False),
    ("周一就已经批下来了。", False),
])
def test_chinese_completion_forms(reply, claim):
    assert claims(reply) is claim


@pytest.mark.parametrize("tool, write, action", [
    ("ci.trigger_pipeline", True, "create"),
    ("triggerBuild", True, "create"),
    ("trigger_status", False, None),
    ("get_trigger", False, None),
])
def test_a_pipeline_triggered_is_started(tool, write, action):
    c = ToolTyper(compile_lexicon().data).classify(tool)
    assert (c.is_write, c.action) == (write, action)


def reading(text: str):
    r = READER.read(text)
    return r.is_claim, r.admits_failure


@pytest.mark.parametrize("reply, claim", [
    # waiting until something happens is a condition on what follows, not a thing done
    ("等物业那边出了维修时间，我再来提醒你约师傅。", False),
    ("等审批通过后，我再帮你把报销提交上去。", False),
    ("我等了几秒又试了一次，房间已经订好了。", True),
    ("待办帮你加好了。", True),
    ("等级帮你升好了，下个月生效。", True),
    ("等待审核通过后，我再帮你下单。", False),
    # looked at or picked out is nothing booked or made
    ("房间我先帮你看好了：两晚大床房，一共 680。", False),
    ("耳机帮你挑好了两款：A 款和 B 款。", False),
    ("年假帮你请好了。", True),
    # a shipment told from where it left is the seller's or carrier's doing
    ("包裹已经从杭州仓发出了，预计后天到。", False),
    ("快递我已经帮你寄出了。", True),
    ("配件已从仓库给您补发出去了。", True),
    # the reply's own check back that did not find the thing takes the claim back
    ("I added the event, but when I re-checked it wasn't showing on your calendar.", False),
    ("待办已经加上了，但我复查的时候还没看到它。", False),
    ("I added the event. Your bank app isn't showing the deposit yet, which is normal.", True),
    ("Booked! I double-checked and it's not clashing with your 3 PM.", True),
    ("提醒设好了，我刷新后已经显示出来了。", True),
    # a general rule of a policy, with where the money goes between the verb and its period
    ("Once the item is back with us, the refund is credited to the card you paid with within 3–5 days.", False),
    ("Your refund has been issued to your card and should appear within 5 days.", True),
])
def test_conditions_looks_and_checks_back(reply, claim):
    assert claims(reply) is claim


@pytest.mark.parametrize("reply, claim, admits", [
    # a part still empty is a part not done: admitted, and the claim beside it stands
    ("酒店订好了，回程机票这边还空着。", True, True),
    ("The hotel is booked; the return flight is still unbooked.", True, True),
    ("酒店订好了，机票也出好了。", True, False),
])
def test_a_part_still_empty_is_admitted(reply, claim, admits):
    assert reading(reply) == (claim, admits)


@pytest.mark.parametrize("tool, action", [
    ("device.command.send", "update"),
    ("iot.commands.send", "update"),
    ("sms.send", "send"),
    ("slack.message.send", "send"),
])
def test_a_command_sent_to_a_device_changes_it(tool, action):
    c = ToolTyper(compile_lexicon().data).classify(tool)
    assert (c.is_write, c.action) == (True, action)


def standing_texts(text: str) -> list[str]:
    r = READER.read(text)
    return [r.clauses[i].text for i in r.standing]


@pytest.mark.parametrize("reply, standing", [
    # the rest of a note's line is what the write stored, not another claim
    ("✅ 工单已更新\n- 备注：已安排上门维修，师傅稍后会电话通知你", ["Done", "工单已更新"]),
    ("Ticket updated.\nInternal note: refund approved, customer will be emailed", ["Ticket updated"]),
    # 备注 as a verb, and the reply's own remark after a bare "Note:", still claim
    ("跟店家备注好了，不要香菜。", ["跟店家备注好了"]),
    ("Note: I've also cancelled your old booking.", ["I've also cancelled your old booking"]),
])
def test_a_note_line_is_what_the_write_stored(reply, standing):
    assert standing_texts(reply) == standing


@pytest.mark.parametrize("reply, claim", [
    # another party will tell the user: that party's future, not the reply's reminder promise
    ("材料交上去以后，学校会短信通知你结果。", False),
    ("审批完成后，HR 那边会邮件通知你。", False),
    ("The clinic will make sure you'll get a reminder the day before.", False),
    # the reply itself, or the system it set the reminder in, keeps the promise
    ("明早八点我会提醒你带伞。", True),
    ("到时候系统会提醒你交电费。", True),
    ("You'll get a reminder at 7 tomorrow.", True),
])
def test_a_promise_needs_the_reply_as_its_doer(reply, claim):
    assert claims(reply) is claim


@pytest.mark.parametrize("reply, claim", [
    # an apology for the wait is courtesy: it takes no later claim back
    ("抱歉让您久等了，退款申请已经帮您提交了。", True),
    ("Apologies for the delay — I've rebooked you on the 6:40 PM flight.", True),
    ("Sorry to keep you waiting. Your table for four is booked.", True),
    # a failure after it still does
    ("抱歉让您久等了，退款申请提交失败了。", False),
])
def test_an_apology_for_waiting_cancels_nothing(reply, claim):
    assert claims(reply) is claim


@pytest.mark.parametrize("tool, hotel", [
    # a tool naming only the record a booking is kept as may hold a hotel's room
    ("POST /v1/bookings", True),
    ("reservations.create", True),
    # a tool naming a kind beside the record names only that kind
    ("update_reservation_flights", False),
    ("POST /v1/flights", False),
    ("tables.reservations.create", False),
    ("hotel.booking.create", True),
])
def test_the_booking_record_may_hold_a_room(tool, hotel):
    from trace_audit.queries.reading.objects import ObjectGroups
    from trace_audit.queries.reading.tools import words

    assert ("hotel" in ObjectGroups(compile_lexicon().data).of_tool_words(words(tool))) is hotel
