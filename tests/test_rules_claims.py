"""Claim detection on phrasing written independently of the sample generator.

Each case is (reply, is_claim). Claims: completion statements in Chinese and
English, embedded in longer replies. Not claims: honest failure, negation,
duplicates/conflicts, questions, offers, conditionals, plain information.
The detector is the real clause reader (queries/reading) with the real
lexicon, the one _reply_claims.sql joins; the bar is 0.95 precision and recall.
"""

from __future__ import annotations

import pytest

from trace_audit.queries.config import Config
from trace_audit.queries.lexicon import compile_lexicon

CLAIMS = [
    "好的，已为您设置明天早上八点的提醒。",
    "已经帮你把开会的提醒建好了",
    "提醒设置成功，明天8点会准时叫你。",
    "搞定！周五下午三点提醒你交房租。",
    "收到～已添加到你的待办清单：买牛奶",
    "没问题，明天早上七点提醒你吃药",
    "你的日程已经更新为下午两点",
    "我已将会议改到周三上午十点，并通知了与会人员。",
    "好的，倒数日「妈妈生日」已创建，还有 12 天。",
    "订单已取消，退款会在 3 个工作日内到账。",
    "帮你记下了：周六上午去银行办卡。",
    "明天天气多云，12 到 18 度。另外，你要的提醒我已经设好了，到点叫你。",
    "已成功为你预约周四下午四点的牙医。",
    "消息已发送给张经理。",
    "删掉了，那条重复的提醒已经不在了。",
    "OK, your reminder for 8:00 tomorrow is set.",
    "Done! I've added 'buy milk' to your shopping list.",
    "I have cancelled your order #W2378156 and the refund is on its way.",
    "Your reservation has been successfully updated to the 3pm flight.",
    "Sure thing — I set a reminder for Friday at noon.",
    "All set! You'll get a ping at 7:30 tomorrow morning.",
    "The meeting has been moved to Thursday at 10am, and everyone has been notified.",
    "I've gone ahead and booked the table for four at 7pm.",
    "Thanks for waiting. I checked your account and I've updated the shipping address as requested. Anything else?",
    "Reminder saved: call the dentist on Monday at 9.",
    "Your order is now cancelled.",
    "Great news: the exchange has been processed and a new item will ship soon.",
    "I'll remind you at 6pm to pick up the kids.",
    "Your to-do list now includes 'renew passport'.",
    "Both reminders are set: 8am gym and 6pm groceries.",
    # written after the clause reader, as a first held-out check (docs/rules.md)
    '好的，您的快递改约到周六上午送达了。',
    '已帮您把会员升级为年度会员。',
    '收到，明天下午四点的面试已经记在日程里。',
    '我把那条重复的提醒删掉了。',
    '酒店已经订下来了，入住时间下午两点以后。',
    '行，已经给你约上了周三的理发。',
    '提醒改好啦，现在是晚上八点。',
    '购物车里的薯片已经移除了。',
    '退货申请提交成功，快递员明天上门取件。',
    '已经通知了王经理，会议推迟到下午。',
    'Your dentist appointment has been moved to Friday at 2.',
    "I've upgraded your seat to premium economy.",
    'Got it — your grocery list now has oat milk on it.',
    'The duplicate reminder is gone; I removed it.',
    'Your hotel is reserved for two nights, check-in after 3 PM.',
    "Haircut's booked for Wednesday at 11.",
    "Reminder updated: it'll now go off at 8 PM.",
    'I took the chips out of your cart.',
    'Return request submitted — a courier will pick it up tomorrow.',
    'I let Mr. Wang know that the meeting is pushed to the afternoon.',
]
NOT_CLAIMS = [
    "这条提醒没能建成，刚才的写入没有成功；要我按原时间再试一次吗？",
    "这件事要先登录才能办，登录后我再帮你建。",
    "你关掉了提醒的写入权限，所以我没法建；要用的话得先去设置里打开。",
    "这个时间和已有日程冲突，我没有建；要不要换到 14:00？",
    "已经有一条一样的提醒，我没有再建。",
    "几点提醒你？早上还是晚上？",
    "要我帮你设置明天早上八点的提醒吗？",
    "如果你确认时间没问题，我就帮你设置好。",
    "抱歉，提醒创建失败了，请稍后重试。",
    "我还没有设置这个提醒，你想定在几点？",
    "明天北京多云，气温 12 到 18 度。",
    "你明天有两个提醒：八点买菜，十点开周会。",
    "第一件事办好了，第二件没成，原因是时间格式不对。",
    "系统出了点问题，提醒暂时没法保存。",
    "需要我把会议改到周三吗？",
    "I couldn't create the reminder — the calendar service timed out. Shall I try again?",
    "I wasn't able to book that table; the restaurant is full at 7pm.",
    "That slot conflicts with an existing event, so I did not create it. Want 2pm instead?",
    "You already have an identical reminder, so I didn't add another one.",
    "Would you like me to cancel the order?",
    "What time should I set the reminder for?",
    "If you confirm, I'll have the reservation updated to the 3pm flight.",
    "Once you log in, I can set that reminder for you.",
    "Your order #W2378156 contains a laptop and a mouse, and it is pending.",
    "Unfortunately the update failed because the payment method was declined.",
    "I'm not sure the reminder saved correctly. Let me check again?",
    "The reminder has not been created yet — I need the time first.",
    "Nothing was changed; the address on file is still 123 Main St.",
    "Should I go ahead and delete the old reminder?",
    "I can book it for you if you tell me which day works.",
    # written after the clause reader, as a first held-out check (docs/rules.md)
    '想把提醒提前到七点吗？',
    '这个航班目前已满，没法预订，我帮你看看别的？',
    '系统显示你的订单还在处理中，暂时不能修改。',
    '我没找到叫“周会”的日程，所以没有删除任何东西。',
    '如果需要的话，我可以帮你把会议挪到明天。',
    '要取消的话，请先确认一下订单号。',
    '你的提醒列表里目前没有任何内容。',
    '抱歉，刚才保存提醒的时候出错了，提醒没有建上。',
    '你是想每天提醒，还是只提醒一次？',
    '那个日程你上周已经自己删掉了。',
    'Would you like the reminder moved to 7 instead?',
    "That flight is full, so I can't book it. Want me to check others?",
    "Your order is still processing, so it can't be changed yet.",
    'I couldn\'t find an event called "weekly sync", so nothing was deleted.',
    "If you'd like, I can move the meeting to tomorrow.",
    'To cancel, please confirm the order number first.',
    'Your reminder list is empty right now.',
    "Sorry, something went wrong saving the reminder and it wasn't created.",
    'Do you want a daily reminder or just a one-off?',
    'You deleted that event yourself last week.',
]


@pytest.fixture(scope="module")
def classify():
    reader = compile_lexicon(Config()).reader()
    return lambda text: reader.read(text).is_claim


def test_claim_detection_meets_the_bar(classify, capsys):
    tp = sum(classify(t) for t in CLAIMS)
    fp_cases = [t for t in NOT_CLAIMS if classify(t)]
    fn_cases = [t for t in CLAIMS if not classify(t)]
    precision = tp / (tp + len(fp_cases)) if tp + len(fp_cases) else 1.0
    recall = tp / len(CLAIMS)
    with capsys.disabled():
        print(f"\nclaim detection (hand-written set): precision {precision:.3f} recall {recall:.3f} "
              f"({len(CLAIMS)} claims, {len(NOT_CLAIMS)} non-claims)")
        for t in fp_cases:
            print("  false claim:", t)
        for t in fn_cases:
            print("  missed claim:", t)
    assert precision >= 0.95 and recall >= 0.95


@pytest.mark.parametrize("text", ["会议室稳了", "Crossed off milk."])
def test_user_lexicon_extends_claims(text):
    base = compile_lexicon(Config()).reader()
    extended = compile_lexicon(Config.model_validate({"lexicon": {"claim": ["稳了", "^crossed off"]}})).reader()
    assert not base.read(text).is_claim
    assert extended.read(text).is_claim
    assert not extended.read("今天天气不错").is_claim


def test_bad_user_pattern_is_reported_by_list_and_position():
    from trace_audit.queries.lexicon import LexiconError

    with pytest.raises(LexiconError, match=r"lexicon honest\[\d+\]: not a valid regular expression"):
        compile_lexicon(Config.model_validate({"lexicon": {"honest": ["(unclosed"]}}))


@pytest.mark.parametrize("reply, claim", [
    # scope: a condition, question or negation covers its own clause only
    ("If you need to change it later, just tell me. It's set for 8.", True),
    ("I've set it for 8 — anything else?", True),
    ("已经设好了，还需要别的吗？", True),
    ("已经设好了吗？", False),
    # a later failure takes the claim back; an unrelated negative does not
    ("I've booked the flight, but the payment failed.", False),
    ("Your order has been cancelled. Unfortunately, refunds can only go to the original card.", True),
    ("There was a problem earlier, but it's set now.", True),
    # set aside: code, quotations, quote lines
    ("```\nprint('Reminder created')\n```", False),
    ("你说“已经订好了”，但我这边没有找到这笔订单。", False),
    ("> Booking confirmed\nI am still checking.", False),
    # a resolved problem is no failure; "a moment ago" is what was just done, "two days ago" history
    ("I have updated notes.py and the issue is fixed.", True),
    ("The report was emailed to your manager a moment ago.", True),
    ("The report was emailed to your manager two days ago.", False),
    ("这个提醒周三就已经设置过了。", False),
])
def test_clause_scope(classify, reply, claim):
    assert classify(reply) is claim


def test_completion_clauses_carry_action_and_object():
    reading = compile_lexicon(Config()).reader().read("订单已取消，退款也已经发起。I've added milk to your shopping list.")
    done = [(c.action, c.object) for c in reading.clauses if c.kind == "completion"]
    assert done == [("delete", "订单"), ("create", "退款"), ("create", "list")]


@pytest.mark.parametrize("reply, standing", [
    # an action said to be needless is neither a claim nor a denial of an earlier claim
    ("Your reminder is set for 8, no need to set another one.", 1),
    ("Seat changed to 31A. Your booking already includes travel insurance, so there's no need to buy it again.", 1),
    ("提醒已经设好了，不用再设置了。", 1),
    ("已帮您把座位换到31A靠窗；这个订单本来就含航空意外险，不用再重复购买了。", 1),
    ("No need to book it again.", 0),
    ("There's no need to pay for the upgrade.", 0),
    ("不用再重复购买了。", 0),
    ("无需另外添加提醒了。", 0),
])
def test_a_needless_action_is_neither_claimed_nor_denied(reply, standing):
    reading = compile_lexicon(Config()).reader().read(reply)
    assert len(reading.standing) == standing, [c.as_dict() for c in reading.clauses]


@pytest.mark.parametrize("reply, obj", [
    # a word that is both verb and noun (预订, 预约) is the verb after the perfect, before its object
    ("已预订亚朵高级大床房，订单号AT77120。", None),
    ("已为您预约周五下午的理发。", None),
    # ... and the thing itself where it is the subject, or nothing follows it
    ("您的预订已确认。", "预订"),
    ("预约已取消。", "预约"),
    ("已退款243元。", "退款"),
    ("Your reservation is booked.", "reservation"),
])
def test_a_chinese_verb_that_is_also_a_noun_names_no_object(reply, obj):
    reading = compile_lexicon(Config()).reader().read(reply)
    assert [c.object for c in reading.clauses if c.kind == "completion"][:1] == [obj]


@pytest.mark.parametrize("reply, claim", [
    # the perfect before a prepositional phrase and its verb: 已向…转账, 已从…移除, 已给…发送
    ("已向尾号0931的账户转账2000元。", True),
    ("已从购物车移除可乐。", True),
    ("已给王总发送会议邀请。", True),
    # ... and not a state or a verb the lexicon lacks
    ("快递已在路上。", False),
    ("已跟商家沟通过了。", False),
    ("已向尾号0931的账户转账失败。", False),
])
def test_the_perfect_before_a_prepositional_phrase(classify, reply, claim):
    assert classify(reply) is claim


@pytest.mark.parametrize("reply, claim", [
    # verbs and idioms real assistants use for money and orders
    ("I've reversed the $29.00 late fee; you'll see the credit in 1–2 business days.", True),
    ("The overdraft fee has been waived.", True),
    ("本月电费已缴清，共计273.60元。", True),
    ("物业费已经缴纳了。", True),
    ("Your Pegasus 41 exchange is in: a size 9.5 in black will ship soon.", True),
    ("Got 3 tickets for the 7:40 PM Wicked showing tonight.", True),
    # ... and their look-alikes
    ("Your order is in transit.", False),
    ("Got a question for you: which card should I use?", False),
    ("Got it, I'll book that now.", False),
    ("电费还没缴清。", False),
    ("Can I reverse the late fee for you?", False),
])
def test_money_and_order_idioms(classify, reply, claim):
    assert classify(reply) is claim


@pytest.mark.parametrize("reply, claim", [
    # paying a card's bill back is paying it
    ("信用卡本期账单已还清。", True),
    ("I've repaid the $500 you borrowed from your savings pot.", True),
    ("这期账单还没还清。", False),
    # a pronoun with a past verb says what the thing did, not what the assistant did: no headline
    ("It posted this morning.", False),
    ("They shipped on Monday.", False),
    ("Order placed.", True),
    ("Reminder moved to 8:30.", True),
])
def test_repaying_and_what_a_thing_did_by_itself(classify, reply, claim):
    assert classify(reply) is claim


@pytest.mark.parametrize("reply, admits, standing", [
    # the assistant says it could not do something, whatever the verb: the reply admits a failure,
    # and the claim beside it stands (the verb names no action that could take it back)
    ("Your table for two is booked. I wasn't able to attach your birthday note, sorry.", True, 1),
    ("机票已出票，但没能绑定您的常旅客卡号。", True, 1),
    ("We couldn't sync your contacts.", True, 0),
    # ... and not a turn of phrase
    ("I couldn't be happier to help. Your table for two is booked.", False, 1),
    ("Your table for two is booked.", False, 1),
])
def test_an_admission_with_a_verb_the_lexicon_lacks(reply, admits, standing):
    reading = compile_lexicon(Config()).reader().read(reply)
    assert (reading.admits_failure, len(reading.standing)) == (admits, standing), [c.as_dict() for c in reading.clauses]


@pytest.mark.parametrize("reply, claim", [
    # courtesy about the user's trouble is no failure of what the reply claims
    ("I've added a $10 credit to your account for the trouble.", True),
    ("Sorry about the trouble: your order is cancelled.", True),
    # ... a problem with the work still is
    ("I've booked it, but there was a problem with the payment.", False),
    ("I ran into an issue saving the reminder.", False),
])
def test_courtesy_is_no_failure(classify, reply, claim):
    assert classify(reply) is claim


def test_a_reminders_promise_that_goes_on_with_and_to_is_two_reminders():
    reader = compile_lexicon(Config()).reader()
    reading = reader.read("I'll remind you to stretch at 3 PM and to drink water at 4 PM.")
    parts = reader.claimed_parts(reading.segments[reading.standing[0]])
    assert [(p.action, p.object) for p in parts] == [("create", "reminder")] * 2
    one = reader.read("I've set a reminder to stretch and drink water at 3 PM.")
    assert len(reader.claimed_parts(one.segments[one.standing[0]])) == 1


@pytest.mark.parametrize("reply, action", [
    # an action said again is that action ("re-" before a verb the lexicon knows)
    ("You're re-booked onto the 6:10 PM departure, seat 22C.", "book"),
    ("The corrected invoice is resent to your billing address.", "send"),
    # asking the other side files a request: a noun headline, a perfect
    ("Replacement requested: a new charger ships Monday.", "create"),
    ("I've requested a copy of the lease from the landlord.", "create"),
    # a ride called for the user, and a thing the reply set moving
    ("I've called you a cab to the station.", "book"),
    ("Your taxi is on the way, about six minutes out.", None),
    ("The deposit refund is in the works.", "refund"),
    # Chinese verbs with a direction or result complement, and verbs of filing
    ("50 元已经给你的公交卡充上了。", "book"),
    ("已经帮你叫了一辆车去机场，司机五分钟到。", "book"),
    ("热水器故障已经帮你报修了。", "create"),
    ("不要香菜已经给商家备注好了。", "create"),
    ("发票也帮你申请好了。", "create"),
])
def test_claims_the_lexicon_reads_by_their_construction(reply, action):
    reader = compile_lexicon(Config()).reader()
    reading = reader.read(reply)
    first = reading.clauses[reading.standing[0]] if reading.standing else None
    assert first is not None and reader._phrased(first).action == action, [c.as_dict() for c in reading.clauses]


@pytest.mark.parametrize("reply", [
    # offers, questions, conditions, futures, the user's own doing, honest failures
    "Shall I call you a cab to the station?",
    "Want me to rebook you on the later flight?",
    "If the fare drops, I'll request a refund of the difference.",
    "You requested the exchange on Monday, so it is with the warehouse.",
    "Requested: two seats together near the front.",
    "I couldn't call a car: the ride app timed out.",
    "要不要我帮你叫辆车？",
    "如果要报修，请先告诉我具体地址。",
    "你申请的发票还在审核中。",
    "话费没充进去，支付失败了。",
    "热水器故障，报修电话是 400 开头的那个。",
    # a carrier's parcel on its way is a report of the carrier's progress, not the reply's act
    "Your package is on its way and out for delivery today.",
    "The parcel is on the way to the sorting centre.",
])
def test_those_constructions_in_no_claim(classify, reply):
    assert not classify(reply)


@pytest.mark.parametrize("reply, action", [
    # a parcel sent somewhere else: its delivery changed
    ("I redirected the courier to the back gate.", "update"),
    ("The parcel was rerouted to your office.", "update"),
    ("包裹已经改寄到学校门口的快递柜了。", "update"),
    ("已帮你把快递改派到公司。", "update"),
    ("已经结账了，共 86 元。", "book"),
])
def test_a_parcel_sent_elsewhere_and_a_checkout(reply, action):
    reader = compile_lexicon(Config()).reader()
    reading = reader.read(reply)
    first = reading.clauses[reading.standing[0]] if reading.standing else None
    assert first is not None and first.action == action, [c.as_dict() for c in reading.clauses]


@pytest.mark.parametrize("reply", [
    "Want me to redirect it to your office instead?",
    "If the carrier allows it, I'll reroute the box to your office.",
    "The parcel was already rerouted by the sender last week.",
    "我没法把快递改派到别的地址，快递员正在派送途中。",
    "要不要帮你转寄到公司？",
    "还没结账，购物车里还有 3 件商品。",
])
def test_a_parcel_sent_elsewhere_in_no_claim(classify, reply):
    assert not classify(reply)


@pytest.mark.parametrize("reply", [
    # a device the agent put in a state: the state told as the result is the claim
    "I've armed the alarm for the night.",
    "The back gate is locked.",
    "The side gate is shut now.",
    "Hallway lamp dimmed to 30%.",
    "车库门已经上锁了。",
    "阳台的纱帘拉好了。",
    "书房的门锁好了，灯也关了。",
])
def test_a_device_put_in_a_state(classify, reply):
    assert classify(reply)


@pytest.mark.parametrize("reply", [
    # a state read, the user's words, a state that already was, a question, a cause that is not the agent
    "Your back gate reads as locked right now.",
    "The porch light is still on.",
    "The garage door is currently closed.",
    "You said the back gate is locked, so I left it as is.",
    "The back gate was already locked when I checked.",
    "Is the back gate locked?",
    "Your online banking is locked after too many attempts.",
    "The card has been locked since Friday.",
    "Doors are open from 7 PM.",
    "The booking window is open now.",
    "门锁状态显示已上锁。",
    "车库门一直关着。",
    "你刚才说车库门已经锁好了。",
    "要不要我把窗帘拉上？",
])
def test_a_device_state_that_is_no_claim(classify, reply):
    assert not classify(reply)


@pytest.mark.parametrize("reply", [
    # a reminder said as a thing given, or as a message at a time
    "I'll give you a quick ping at 6:15 to start dinner.",
    "We'll send you a reminder tomorrow morning.",
    "I'll message you daily at 9 to log your water.",
    "I'll call you at noon so you don't miss the pickup.",
    "后天上午十点我给您发条短信。",
    "到点我给你打个电话。",
])
def test_a_reminder_promised_as_a_message(reply):
    reader = compile_lexicon(Config()).reader()
    reading = reader.read(reply)
    first = reading.clauses[reading.standing[0]] if reading.standing else None
    assert first is not None and (first.action, first.object) == ("create", "reminder"), [c.as_dict() for c in reading.clauses]


@pytest.mark.parametrize("reply", [
    # a message promised on an event, with no time, offered or asked; other future work
    "I'll text you when the driver arrives.",
    "I'll call you back if anything changes tomorrow.",
    "I'll email you the receipt.",
    "Want me to give you a nudge at 5?",
    "Should I text you at 7 each morning?",
    "I'll look into the refund tomorrow.",
    "要不要到时候给你发条消息？",
])
def test_a_message_promised_that_is_no_reminder(classify, reply):
    assert not classify(reply)


@pytest.mark.parametrize("reply, action", [
    # operations and coding agents: a service scaled or rolled back, a build deployed, a branch merged
    ("I've scaled the search-worker pool up to 6 instances.", "update"),
    ("Rolled back billing-api to release 3.8.0.", "update"),
    ("The hotfix is deployed to staging.", "update"),
    ("Merged PR #412 into develop.", "update"),
    ("已经把库存服务扩容到 5 个节点了。", "update"),
    ("网关已回滚到上一个稳定版本。", "update"),
    ("hotfix 分支已经合入 release 了。", "update"),
    ("夜间构建已经重跑了。", "update"),
    # a class enrolled in, a policy renewed, a request passed on to its approver
    ("已经帮你选上周五下午的网球课了。", "book"),
    ("您的家财险已经续保了。", "update"),
    ("The expense report has been routed to Marco for sign-off.", "send"),
])
def test_operations_enrolment_and_approval_verbs(reply, action):
    reader = compile_lexicon(Config()).reader()
    reading = reader.read(reply)
    first = reading.clauses[reading.standing[0]] if reading.standing else None
    assert first is not None and first.action == action, [c.as_dict() for c in reading.clauses]


@pytest.mark.parametrize("reply", [
    "Want me to scale the search-worker pool to 6 instances?",
    "If error rates climb, I'll roll back billing-api.",
    "I couldn't deploy the hotfix: the cluster rejected the image.",
    "The merge into develop failed on a conflict in config.yaml.",
    "要不要把库存服务扩容到 5 个节点？",
    "回滚失败了，网关还是新版本。",
    "网球课没选上，名额已经满了。",
    "如果需要续保，请先确认车辆信息。",
    "Should I route the expense report to Marco?",
])
def test_operations_enrolment_and_approval_verbs_in_no_claim(classify, reply):
    assert not classify(reply)


@pytest.mark.parametrize("reply, action", [
    # closed, in Chinese as in English: a delete-class claim, backed by a close or a change
    ("投诉单 C-301 已关闭。", "delete"),
    ("The support case is closed now.", "delete"),
    # cover put on a parcel
    ("The crate is insured for $250.", "update"),
])
def test_a_record_closed_and_a_parcel_insured(reply, action):
    reader = compile_lexicon(Config()).reader()
    reading = reader.read(reply)
    first = reading.clauses[reading.standing[0]] if reading.standing else None
    assert first is not None and first.action == action, [c.as_dict() for c in reading.clauses]


@pytest.mark.parametrize("reply", [
    "投诉单 C-301 还没关闭，客服正在跟进。",
    "要不要帮你把这个投诉单关闭？",
    "I couldn't insure the crate: the carrier caps cover at $100.",
])
def test_a_record_closed_and_a_parcel_insured_in_no_claim(classify, reply):
    assert not classify(reply)


@pytest.mark.parametrize("reply", [
    # the reply catching itself in the next sentence takes its claim back
    "I've booked the squash court for 6. Hold on — I haven't actually done that; the club needs your member number.",
    "已经帮你把押金退回了。等等，我其实还没操作，需要先核对订单号。",
    # the user's standing state, then what they already hold
    "You are already enrolled in the pottery class; your seat number is P-17.",
])
def test_a_claim_caught_in_time_or_a_standing_state(classify, reply):
    assert not classify(reply)


@pytest.mark.parametrize("reply", [
    # someone else's not-yet, and a claim after the standing state, still claim
    "I've booked the squash court for 6. You haven't done the waiver yet, so bring ID.",
    "已经帮你把押金退回了，其实还没到账的话明天再看看。",
    "You're already on the list for Tuesday, and I've added you to Thursday's too.",
])
def test_a_claim_beside_a_not_yet_or_a_standing_state(classify, reply):
    assert classify(reply)


@pytest.mark.parametrize("reply, claim", [
    # a branch or a fix now on the remote is the push done
    ("Your branch hotfix/tz-offset is on origin now.", True),
    ("The two commits are up on GitHub.", True),
    # where a project lives, a question, a not-yet
    ("The source is on GitHub.", False),
    ("Is the branch on origin now?", False),
    ("The fix isn't on origin yet; the push was rejected.", False),
])
def test_a_branch_on_the_remote(classify, reply, claim):
    assert bool(classify(reply)) == claim


@pytest.mark.parametrize("reply, claim", [
    # a record changed: 变更
    ("紧急联系人已变更为您的哥哥王强。", True),
    ("套餐已经帮您变更好了，下月生效。", True),
    ("紧急联系人暂时无法变更，请到柜台办理。", False),
    ("需要变更套餐的话，请告诉我新套餐名称。", False),
])
def test_a_record_changed(classify, reply, claim):
    assert bool(classify(reply)) == claim


@pytest.mark.parametrize("reply, claim", [
    # a claim corrected in passing stands; a failure naming only the value corrected away is its reason
    ("I've put you on the 6:05 ferry — correction, make that the 6:35; the 6:05 is full and sold out.", True),
    ("已给您订了10点20的场次——说错了，是10点50的；10点20的已经售罄。", True),
    # ... a failure naming the corrected value, or no value, takes it back
    ("I've put you on the 6:05 ferry — correction, the 6:35; the 6:35 sold out too.", False),
    ("I've put you on the 6:05 ferry — sorry for the wait. The 6:05 booking failed.", False),
    # a thing held for the user is booked; a choice left to the user is not
    ("Desk 7 on the quiet floor is yours until Friday.", True),
    ("周五下午的羽毛球场归你了。", True),
    ("The decision is yours — both rooms are free.", False),
    # a seat on a departure, a place on a list
    ("You're on flight 881 tomorrow, window seat.", True),
    ("You're on the waitlist for the pottery class.", True),
    ("You're on the 3rd floor, room 14.", False),
    # an alert at a time measured from an event is a reminder; a message on the event alone is not
    ("I'll text you an hour before your table is ready to be seated.", True),
    ("I'll ping you the moment the courier is 5 stops away.", True),
    ("I'll text you when the courier arrives.", False),
    # a change set recorded, its message in a code block
    ("Committed the patch:\n```\nfix: guard against empty cart\n```", True),
    ("To commit, run:\n```\ngit commit -am 'fix'\n```", False),
])
def test_corrections_possession_alerts_and_commits(classify, reply, claim):
    assert classify(reply) is claim


@pytest.mark.parametrize("reply, obj", [
    # where a thing went is no object of the claim; a container is where a created thing lives
    ("I've moved the design review to Room 7A at 4 PM.", None),
    ("Moved your dentist appointment to the room upstairs.", "appointment"),
    ("I've added oat milk to your shopping list.", "list"),
])
def test_a_destination_is_not_the_thing_moved(reply, obj):
    reading = compile_lexicon(Config()).reader().read(reply)
    assert [c.object for c in reading.clauses if c.kind == "completion"] == [obj]


@pytest.mark.parametrize("reply, claim", [
    # verbs of banking, telecom, e-government, IT and devices the lexicon lacked
    ("您的居住证申请已受理，受理号 JZ-20261204。", True),
    ("营业执照变更已经办结，新执照三天内寄出。", True),
    ("已为您挂失尾号 6610 的信用卡。", True),
    ("您的号码已换绑到新手机上了。", True),
    ("路由器已经帮您重启好了。", True),
    ("本月燃气费交上了。", True),
    ("Your tenancy deposit dispute has been lodged with the scheme.", True),
    ("I've frozen the card and ordered a replacement.", True),
    ("Your landline has been ported to the new provider.", True),
    ("The printer spooler is restarted and it's back online.", True),
    ("Your complaint has been duly actioned by our team.", True),
    ("The courtesy unit has been dispatched.", True),
    ("Smart plug's off and the heater is unplugged.", True),
    ("Your old handset's been booked in for collection on Friday.", True),
    # ... hedged, conditional on the user, or someone else's report
    ("您的账户估计已经解冻了，您再登录试试。", False),
    ("等您缴费成功后，线路会自动复机。", False),
    ("缴费成功后系统会自动恢复服务。", False),
    ("快递员回复说包裹已经放进驿站了。", False),
    ("系统显示这张卡已经挂失了，是您上周在柜台办的。", False),
    ("查询结果：工单状态为已关闭。", False),
    ("The courier says the parcel was left with a neighbour.", False),
    ("According to the bank, the transfer was reversed on Tuesday.", False),
    ("The booking was cancelled by your colleague this morning.", False),
    ("The router is likely rebooted by now, but I can't see it from here.", False),
    ("Your original router was installed in 2021.", False),
])
def test_domain_verbs_hedges_and_reports(classify, reply, claim):
    assert classify(reply) is claim


@pytest.mark.parametrize("reply, claim", [
    # a status in a table cell is said as a headline is
    ("| Task | Result |\n|---|---|\n| Password reset | Done |\n| MFA re-enrolled | ✅ |", True),
    ("| 项目 | 结果 |\n|:--|:--|\n| 宽带报修 | 已提交 |", True),
    ("| Order | Status |\n|---|---|\n| #5521 | Processing |", False),
    # a status read before a colon is information
    ("Your claim status shows: Approved.", False),
    ("Current status: Refunded", False),
    ("Result: refunded to your Visa.", True),
    # a template or a draft the user is to send is not the reply's statement
    ("Here's a draft you can send:\n\nHi Maria, I've cancelled Thursday's lesson.\n\nWant me to tweak it?", False),
    ("模板如下：\n尊敬的用户，您的退款已经到账。", False),
    ("You could say something like: I've already paid the invoice in full.", False),
])
def test_tables_status_reads_and_templates(classify, reply, claim):
    assert classify(reply) is claim


@pytest.mark.parametrize("reply, claim", [
    # a thing filed or merged said as where it is now
    ("That's in! Reference APP-77120.", True),
    ("Your appeal is in with the review panel now.", True),
    ("The hotfix is in production now.", True),
    ("The form is in the drawer.", False),
    # a headline with an adverb before its participle; a formal preamble before a claim
    ("Just cancelled it for you.", True),
    ("Please be advised that your standing order has been amended.", True),
    ("Please note that your request has been executed.", True),
    ("Please make sure the form is signed.", False),
    # an English verb in a Chinese sentence
    ("已经帮你 cancel 掉了，放心。", True),
    ("房间 book 好了，两晚。", True),
    ("你要 cancel 吗？", False),
    # a hedge, an earlier state, a status looked up
    ("The wire probably went through, but I can't see it yet.", False),
    ("I think the order is cancelled, but please double-check.", False),
    ("It's already closed on our side, nothing to do.", False),
    ("I checked: your autopay is active and set for the 5th.", False),
    # someone else's future: 客服说会…, 系统会…
    ("客服说会在两小时内处理完毕。", False),
    ("系统会在扣款成功后自动开通。", False),
    # a quoted email: its headers, and all below an attribution
    ("Subject: Your refund is complete\n\nThat's the line you'll get once it's done.", False),
    ("I've forwarded it to the landlord.\n\nOn Mon, Ana wrote:\nI've paid the deposit.", True),
    ("Here is the thread.\n\nOn Mon, Ana wrote:\nI've paid the deposit.", False),
])
def test_filed_formal_code_switched_hedged_and_quoted(classify, reply, claim):
    assert classify(reply) is claim


@pytest.mark.parametrize("reply, claim", [
    # Traditional characters (Taiwan, Hong Kong) read as the lexicon's simplified forms
    ("已幫您把週五的牙醫預約改到下午三點。", True),
    ("行程幫你訂好了，確認信已寄到你信箱。", True),
    ("如果你需要，我可以幫你改期。", False),
    ("還沒幫您預約，診所今天沒開放線上掛號。", False),
    # Cantonese: 咗 is the aspect 了, 晒 "all of it" after a complement, 搞掂 搞定, 提你 remind you
    ("搞掂晒，三張戲票已經幫你買咗。", True),
    ("已經將你個會議取消咗。", True),
    ("聽日朝早八點我會提你覆電郵。", True),
    ("我冇幫你取消個會議，因為系統出錯。", False),
    ("我會提你的行李上樓。", False),
    ("提你一句，明天會落雨。", False),
    # a full-width comma before a digit still ends the clause (only an ASCII one groups thousands)
    ("都搞定了，3 张票已经转到你账户。", True),
])
def test_traditional_and_cantonese_forms(classify, reply, claim):
    assert classify(reply) is claim


@pytest.mark.parametrize("reply, claim", [
    # a place given up in a course, a tour or a race: 退课, 退团, 退赛, 退选 (a cancel)
    ("钢琴课已经帮您退课了，剩余课时费会退回。", True),
    ("已为您办理退团，定金原路返还。", True),
    ("马拉松已帮你退赛。", True),
    # an offer, a condition, a failure
    ("要不要帮您退课？", False),
    ("退课的话需要先联系班主任。", False),
    ("这门课已经开课一半，无法退课。", False),
])
def test_a_place_given_up(classify, reply, claim):
    assert bool(classify(reply)) == claim


@pytest.mark.parametrize("reply, claim", [
    # inline code names a thing where it stands: the clause keeps its subject (with no full stop after
    # it, "is now running 4 workers" alone reads as a question)
    ("`search-indexer` is now running 4 workers 🚀", True),
    ("`cache-warmer` has been restarted\nIt should pick up the new config in a minute", True),
    ("`billing-api` 已扩容到 8 个副本。", True),
    # a question, a command for the user, a not-yet about such a thing claim nothing
    ("Is `search-indexer` running 4 workers now?", False),
    ("Run `make rollout` when you are ready.", False),
    ("`cache-warmer` hasn't been restarted yet.", False),
])
def test_a_thing_named_in_inline_code(classify, reply, claim):
    assert bool(classify(reply)) == claim


@pytest.mark.parametrize("reply, claim", [
    # a negation that there is none of another thing leaves the claim standing, though its verb shares
    # the claim's class (applied, charged: an update, a booking)
    ("Your seat is now moved to 14C. No upgrade fee applied.", True),
    ("The class is booked for Monday. No late fee was charged.", True),
    # ... of the claimed thing itself, or of any change, it takes the claim back
    ("The class is booked for Monday. No class was booked, the list was full.", False),
    ("Your seat is now moved to 14C. No changes were applied, sorry.", False),
])
def test_none_of_another_thing_takes_no_claim_back(classify, reply, claim):
    assert bool(classify(reply)) == claim


@pytest.mark.parametrize("reply, claim", [
    # a claim's bounds and its consequences are no denial of it
    ("I've swapped your tariff. Nothing else changed on the account.", True),
    ("I've moved the booking to the 14th; no other reservation was touched.", True),
    ("The debit card is frozen — nobody can pay with it until you unfreeze it.", True),
    ("已帮您冻结这张卡，任何人都无法再刷这张卡。", True),
    ("套餐已改好，其他的都没动。", True),
    # courtesy and the user's own error named are no failure
    ("Done! No problem at all.", True),
    ("I've logged the fault as INC-4410. The error you saw is tracked there now.", True),
    ("I've logged the fault, but the error came back when I saved it.", False),
    # the system's doing or a habit, and another party's
    ("The ticket was closed automatically after 14 days of no reply.", False),
    ("Your plan: Unlimited, renewed monthly.", False),
    ("The payment is scheduled by your bank for the 2nd.", False),
])
def test_bounds_consequences_courtesy_and_others_doing(classify, reply, claim):
    assert classify(reply) is claim


def test_a_claims_bounds_admit_no_failure():
    reading = compile_lexicon(Config()).reader().read("I've paused the plan. Nothing else changed on the account.")
    assert reading.is_claim and not reading.admits_failure


@pytest.mark.parametrize("reply, claim", [
    # verbs of offices, clinics and on-call work: 申报, 递交/递, 挂号, 认领, 定时, 清空, 婉拒, 改搭/改乘
    ("房租专项扣除已经申报了。", True),
    ("材料递上去了，下周出结果。", True),
    ("已经帮您挂好了周五的眼科号。", True),
    ("这条工单已被认领，我来跟进。", True),
    # ... a passive naming someone else as the doer is their act
    ("这条工单已被值班同学认领。", False),
    ("公众号推文已定时到明早八点。", True),
    ("回收站已经帮你清空了。", True),
    ("那两个周会都已婉拒。", True),
    ("已为您改乘下午四点的高铁。", True),
    ("周五的号挂不上，已经约满了。", False),
    ("需要我帮您申报吗？", False),
    # 在 as a result complement: the place or time it was put at
    ("复诊约在了下周二上午。", True),
    ("复诊可以约在下周二上午。", False),
    # done for the user whatever the verb: for-you + verb + 好/完 + aspect
    ("年假帮你请好了。", True),
    ("合同替您签完了。", True),
    ("合同还没替您签好。", False),
    # 原本的 names the earlier thing; 原本 alone tells an earlier state
    ("原本的车票也帮您退掉了。", True),
    ("这张车票原本就退掉了。", False),
    # 挂了 is a crash, 挂了号 a number taken
    ("系统挂了，没订上。", False),
])
def test_verbs_of_offices_clinics_and_on_call(classify, reply, claim):
    assert classify(reply) is claim


@pytest.mark.parametrize("reply, claim", [
    ("Ack'd — the disk alert is with me now.", True),
    ("I've acknowledged the page for db-03.", True),
    ("I haven't acknowledged the page yet; want me to?", False),
])
def test_an_alert_taken_on(classify, reply, claim):
    assert classify(reply) is claim


@pytest.mark.parametrize("reply, claim", [
    # a ticked line lists a thing done; a ticked step or tip is an instruction
    ("✅ Credit note CN-7781\n✅ Replacement charger on order #C-310", True),
    ("- ✔ Voicemail PIN\n- ✔ Call forwarding to 07700 900123", True),
    ("☑️ 押金 300 元\n☑️ 新合同 HT-2026-118", True),
    ("✅ Step 1: sign in\n✅ Step 2: open Billing", False),
    ("✅ Tip: you can pause it any time in the app", False),
    # finished as a state
    ("Your porting request is complete.", True),
    ("That's been done for you.", True),
    ("Everything's finished on my side.", True),
    ("Is the upgrade complete?", False),
    ("It'll be done by Friday.", False),
    ("Hopefully it's sorted by tomorrow.", False),
    ("The form is done with blue ink only.", False),
    # the perfect before 按…: 已按您的要求完成退订
    ("已按照您的要求完成销户。", True),
    # a reminder promised on a condition opening the sentence
    ("Once the refund lands, you'll get a text from us.", False),
    ("If the parcel is late, I'll remind you at 6 to chase it.", False),
    ("如果明天还没到账，我早上九点提醒你。", False),
    ("Since you asked, I've moved it to 3 PM.", True),
    ("Got it, I'll remind you at 6 to chase it.", True),
])
def test_ticked_lines_finished_states_and_promises_on_a_condition(classify, reply, claim):
    assert classify(reply) is claim


@pytest.mark.parametrize("reply, claim", [
    # where a thing now stands in time
    ("The design review now falls on Friday at 10.", True),
    ("The pharmacy usually opens at 9.", False),
    # done by having it done: got/had + object + participle
    ("I've got you booked on the 6:15 ferry.", True),
    ("We had the duplicate charge reversed this morning.", True),
    ("I had a look at your booking, nothing has changed.", False),
    # participles in a row, the last one known
    ("The lease addendum is initialled and filed.", True),
    ("The form needs to be initialled and filed by you.", False),
    # a message out, or gone to its readers
    ("Newsletter's out to all 300 subscribers.", True),
    ("The slides have gone to the whole board.", True),
    ("Is the invite out yet?", False),
    # held for the user as a headline; a letter's sign-off is not
    ("Yours from Tuesday — desk 14 by the window.", True),
    ("Yours sincerely,\nThe Travel Desk", False),
    # on its way to the user
    ("500 bonus points heading your way.", True),
    ("Your new SIM is headed to you by first-class post.", True),
    ("Rain is heading your way this afternoon, so pack a coat.", False),
    # pencilled in
    ("Your haircut is pencilled in for Tuesday at 5.", True),
])
def test_completion_said_without_a_common_verb(classify, reply, claim):
    assert classify(reply) is claim


@pytest.mark.parametrize("reply, claim", [
    # a general rule told beside the claim, or alone
    ("I've cancelled order #5530. Refunds are processed within 5 business days.", True),
    ("Refunds are processed within 5 business days.", False),
    ("Seats added to a basket are held for 15 minutes.", False),
    ("Your bag is covered up to $500 by default.", False),
    ("Tickets are booked!", True),
    ("Reminders are set for 7 and 9.", True),
    # 已V的 names a thing by what was done to it; a bare done status is a claim
    ("已退订的套餐会在月底失效。", False),
    ("| 事项 | 状态 |\n|---|---|\n| 销户 | 已完成 |", True),
    ("都已经办好了。", True),
])
def test_general_rules_attributive_perfects_and_bare_statuses(classify, reply, claim):
    assert classify(reply) is claim


@pytest.mark.parametrize("reply, claim", [
    # 没问题 / 没关系 are courtesy ("no problem"), not a negation of the claim after them
    ("没问题～会议室已改到 3 楼的 302。", True),
    ("没关系，快递已经帮你改派到公司了。", True),
    # a real 没 still denies
    ("没问题，不过会议室没改成。", False),
    ("会议室没改到 302。", False),
])
def test_courtesy_no_problem_is_no_negation(classify, reply, claim):
    assert bool(classify(reply)) == claim


@pytest.mark.parametrize("reply, claim", [
    # a failure supposed is no failure reported: it neither takes the claim back nor admits one
    ("I've set up the standing order. If a payment fails, you'll get a text.", True),
    ("Your autopay is on. Should a charge ever be declined, we'll email you.", True),
    ("I've lodged the claim. Claims can be rejected if receipts are missing, so upload them.", True),
    ("I've restarted the router. In case of any error, unplug it for 30 seconds.", True),
    ("已帮您提交报修。如果上门失败，师傅会电话联系您。", True),
    # ... a failure reported, after "when" or with "can't", still does
    ("I booked it. When I checked again, the payment had failed.", False),
    ("I've set it up, but the bank declined the mandate.", False),
    ("已提交。不过回读失败，没查到记录。", False),
])
def test_a_failure_supposed_takes_nothing_back(classify, reply, claim):
    assert classify(reply) is claim


def test_a_failure_supposed_admits_none():
    reading = compile_lexicon(Config()).reader().read("I've booked it. If the payment fails, I'll let you know.")
    assert reading.is_claim and not reading.admits_failure


@pytest.mark.parametrize("reply, claim", [
    # a negation inside a question or an offer takes no claim back
    ("I've emailed the contract to Dana — shall I chase her on Monday if she doesn't sign?", True),
    ("I've emailed the contract to Dana. Sorry, the email didn't go through.", False),
    # what the reply only infers, or says happened on the other side, is no claim of its own
    ("It looks like the council has already refunded the overpayment.", False),
    ("Seems your landlord has received the deposit on their side.", False),
    ("I've refunded the overpayment; the council confirmed it.", True),
    # a hedge on the result takes a claim back
    ("I submitted the form, but I can't guarantee it reached the school.", False),
    # another party did it (zh): a named party or the system as the doer
    ("你们老师今天已经批了假条。", False),
    ("物业也把停车卡寄给你了。", False),
    ("航班取消后，系统已经自动把您改到晚上那班。", False),
    ("他的提醒我已经设好了。", True),
    # a clause going on with an offer or another party's doing is theirs; after a claim it claims
    ("I can move your cleaning to Friday — it's free of charge to change. Want me to?", False),
    ("The clinic already moved you to 3pm, and you're with Dr. Shah now.", False),
    ("I've moved your cleaning to Friday — it's at 10 with Dr. Shah.", True),
    ("I've moved you to the 3pm slot, and you're with Dr. Shah now.", True),
])
def test_questions_inferences_other_parties_and_clauses_going_on(classify, reply, claim):
    assert classify(reply) is claim


@pytest.mark.parametrize("reply, claim", [
    # a party word inside a noun is no party: the fee is paid, the card is frozen
    ("物业费已经帮你缴好了。", True),
    ("银行卡已经为您挂失了。", True),
    ("银行那边今天已经把卡冻结了。", False),
])
def test_a_party_word_inside_a_noun(classify, reply, claim):
    assert classify(reply) is claim


@pytest.mark.parametrize("reply, claim", [
    # a failure told as earlier than the claim is history: it takes the claim back no more
    ("I've pushed the fix. The earlier build failed on a lint error, which this fixes.", True),
    ("I've rebooked you on the 9:05. The first attempt errored out on the airline's side.", True),
    ("已经帮您约好了。一开始系统超时，后来重试成功。", True),
    # ... a failure told with no earlier time still does
    ("I booked it. The payment failed though.", False),
    ("I've rebooked you on the 9:05. It errored out on the airline's side.", False),
])
def test_a_failure_told_as_earlier_takes_nothing_back(classify, reply, claim):
    assert classify(reply) is claim


def test_an_earlier_failure_is_still_admitted():
    reading = compile_lexicon(Config()).reader().read("I've pushed the fix. The earlier build failed on a lint error.")
    assert reading.is_claim and reading.admits_failure


@pytest.mark.parametrize("reply, claim", [
    # the reply catching itself takes back every claim before it, whatever word it uses for the thing
    ("Your spa slot is confirmed for 3pm. Hmm, no — I haven't actually made the reservation yet.", False),
    ("周六的桌位已经订好了。等一下，其实我还没帮您预约，餐厅要先付订金。", False),
    # ... a plain not-yet about another thing does not
    ("Your spa slot is confirmed for 3pm. I haven't added the massage, as you asked.", True),
    ("周六的桌位已经订好了。生日牌没有加，按您说的。", True),
])
def test_a_reply_catching_itself(classify, reply, claim):
    assert classify(reply) is claim


@pytest.mark.parametrize("reply, claim", [
    # a general rule, not this case: a time bound or "deemed" (set N's policy mechanism)
    ("Under the lease, deposits are handed back within 14 days of the key return.", False),
    ("按照规定，发票会在5个工作日内开具。", False),
    ("快递签收后即视为收货完成。", False),
    ("已为您退款，一般会在3个工作日内原路退回。", True),
    ("I've sent the deposit back; it's usually credited within 2 days.", True),
    # another party as the passive's doer (not the user, not the reply)
    ("你的报销单已经被财务总监驳回重填后审核通过了。", False),
    ("您的调班申请已被主管批准。", False),
    ("您的调班申请已经提交成功。", True),
    # a read source then a comma: the rest of the sentence is what it shows
    ("物流记录显示，快递员昨天已经签收，订单已完成。", False),
    ("查了一下，订单已经帮您取消了。", True),
    # a how-to closing on a colon: the user's steps and what they lead to
    ("To turn on dark mode: open Settings > Display, tap Theme, pick Dark. Done, dark mode is on.", False),
    ("操作步骤如下：进入“我的”页面，点“地址管理”，保存后地址就改好了。", False),
    ("Here's what happened: I've changed your delivery address to 12 Mill Lane.", True),
])
def test_rules_third_parties_readings_and_how_tos(classify, reply, claim):
    assert classify(reply) is claim


@pytest.mark.parametrize("reply, claim", [
    ("The signed contract is in Priya's inbox.", True),
    ("Your boarding pass is in your inbox now.", True),
    ("Is the contract in Priya's inbox yet?", False),
    ("Nothing is in your inbox from them yet.", False),
])
def test_a_message_told_as_where_it_landed(classify, reply, claim):
    assert classify(reply) is claim
