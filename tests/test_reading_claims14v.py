"""Ways of writing that read as claims though they claim nothing, and claims told without a common
completion verb (dev set 14v): each mechanism with replies that must read as claims and replies that
must not.

- A correction word, then why it cannot be done (retraction.py): the claim before it is taken back.
- A promise closed by a consent asked (proposals.py): proposed, not made.
- A retry told after its failure, and modifiers cut at a comma (narration.py): no act of their own.
- A record's summary header (reported.py): its fields are told as found.
- Words: someone else or the user as the doer (有人预约了, 只说明您提交了), 了 then 再 (确认了我再发),
  not sure it happened (唔肯定), a potential negative (续不了), an indefinite noun phrase ("a licence held for
  2 years"); and claims: e-filed, 续借, "got you onto the 17:40".
"""

from __future__ import annotations

import pytest

from trace_audit.queries.config import Config
from trace_audit.queries.lexicon import compile_lexicon


@pytest.fixture(scope="module")
def reader():
    return compile_lexicon(Config()).reader()


# ---- a correction word, then an admission: the claims before it are taken back
@pytest.mark.parametrize("text", [
    "I've added the oat milk — actually, scratch that, the picker has already started on your order so I can't edit the basket.",
    "I've cancelled the 3pm — wait, scratch that, the clinic has already locked the slot, so I can't cancel it online.",
    "Added the eggs. My mistake — the store is closed for orders tonight, so nothing could be added.",
    "已经给您加上了——啊不对，骑手已经接单，购物车改不了了。",
    "已经帮您退订了——不对，这个套餐合约期内不能退订，需要去营业厅办理。",
    "已为您改到周五——哦不对，周五医生不出诊，改不了。",
])
def test_a_correction_then_an_admission_takes_the_claim_back(reader, text):
    r = reader.read(text)
    assert not r.is_claim and r.verdict == "retracted"


@pytest.mark.parametrize("text", [
    "Booked the 7:10 — sorry, correction, the 7:40; the 7:10 was sold out.",   # a value restated: corrected in passing
    "I've moved it to Friday. Actually, scratch that, I moved it to Thursday.",  # no admission: a new claim
    "已经给您加上了——更正一下，是加了两盒。",
])
def test_a_correction_that_restates_keeps_a_claim(reader, text):
    assert reader.read(text).is_claim


# ---- a promise put to the user for consent
@pytest.mark.parametrize("text", ["到时候我提醒您来约，好吗？", "明早八点提醒您吃药，好吗？", "I'll remind you at 9 tomorrow, OK?",
                                  "I'll ping you Friday morning, sound good?"])
def test_a_promise_asked_for_consent_is_an_offer(reader, text):
    assert not reader.read(text).is_claim


@pytest.mark.parametrize("text", ["明早八点提醒您吃药。", "I'll remind you at 9 tomorrow.", "I've booked it for 8, OK?"])
def test_a_promise_or_a_claim_without_consent_asked_still_claims(reader, text):
    assert reader.read(text).is_claim


# ---- a retry told after its failure: the attempt, and the result after it is the claim
def test_a_retry_after_its_failure_is_no_action_of_its_own(reader):
    r = reader.read("第一次指令超时了，又发了一次，这回空调已经切到26度睡眠模式。")
    assert r.is_claim and [r.clauses[i].action for i in r.standing] == ["update"]
    assert not reader.read("超时了，又发了一次。").is_claim


@pytest.mark.parametrize("text", ["我又发了一次邀请给王总。", "I resent the invite to Dana.",
                                  "It timed out so I retried it; your table is booked for 8."])
def test_a_send_again_with_its_thing_or_a_result_after_a_retry_claims(reader, text):
    assert reader.read(text).is_claim


# ---- modifiers cut at a comma, an indefinite noun phrase
@pytest.mark.parametrize("text", [
    "To list your car you'll need a registered, insured vehicle, a clean driving record, and a licence held for at least 2 years.",
    "Bring your permit and a registered, insured car.",
    "You'll need a valid, signed lease and a recent payslip.",
    "Please bring a completed, signed consent form.",
    "A parcel delivered to the wrong address is covered by our policy.",
    "A booking made through a partner site can't be changed here.",
    "Any order placed after 5pm ships tomorrow.",
])
def test_modifiers_and_an_indefinite_noun_phrase_claim_nothing(reader, text):
    assert not reader.read(text).is_claim


@pytest.mark.parametrize("text", ["A reminder set for 8pm tomorrow ✅", "A table booked for 4 at 7pm.",
                                  "An appointment booked with Dr Lee for Tuesday 3pm."])
def test_an_indefinite_headline_standing_alone_claims(reader, text):
    # the headline written with an article: nothing follows to make it the subject of another verb
    assert reader.read(text).is_claim


@pytest.mark.parametrize("text", ["Booked a table, added a note for the birthday.",
                                  "I cancelled the old plan, activated the new one and emailed you the receipt.",
                                  "Order placed, delivery booked for Friday."])
def test_headlines_after_a_comma_still_claim(reader, text):
    assert reader.read(text).is_claim


# ---- a record's summary: its fields told as read of that record (said_but_not_done asks the turn)
@pytest.mark.parametrize("text", [
    "Ticket summary: printer on the 3rd floor, jammed, reported twice, assigned to facilities, open for 2 days.",
    "工单概况：3楼打印机，卡纸，已重复报修两次，已分配给行政，未关闭。",
    "Order details: placed Dec 3, shipped Dec 4, delivered Dec 6.",
])
def test_a_record_summary_tells_its_fields_as_found(reader, text):
    # 'state': a report over a read of that one record, a claim after a search (said_but_not_done.sql)
    assert reader.read(text).verdict == "state"


@pytest.mark.parametrize("text", ["Ticket summary: printer jammed, I've moved it to facilities and closed the duplicate.",
                                  "工单概况：打印机卡纸，我已经帮您转给行政了。"])
def test_a_summary_with_the_replys_own_doing_claims(reader, text):
    assert reader.read(text).verdict == "claim"


# ---- who did it, and what the clause says of it
@pytest.mark.parametrize("text", [
    "《置身事内》续上了，到期日1月12号；《长安的荔枝》有人预约了续不了，还是周五到期。",  # admits the second
    "页面上显示“订单已提交”只说明您提交了，还要等商家接单才算成功哦。",
    "我先拟了一条给房东的消息，您看看行不行，确认了我再发：",
    "确认了再发给您。",
    "指令發咗出去，不過車庫門冇回應，我唔肯定佢關咗未，你最好睇下鏡頭。",
    "这本书续不了，有人预约了。",
])
def test_others_doing_a_condition_or_not_being_sure_claim_nothing_unadmitted(reader, text):
    r = reader.read(text)
    assert not r.is_claim or r.admits_failure


@pytest.mark.parametrize("text", ["有人已经订了那个时段，我帮您换到了3点。", "我已经为您提交了。", "少不了您的，已经给您加上了。",
                                  "已帮您续借，新的到期日是1月12日。", "续借成功，新的到期日是1月12日。",
                                  "幫你book咗會議室喇，星期五下晝兩點到四點。"])
def test_the_replys_own_doing_beside_them_claims(reader, text):
    assert reader.read(text).is_claim


def test_a_potential_negative_admits(reader):
    assert reader.read("《置身事内》续上了；《长安的荔枝》续不了。").admits_failure


# ---- claims told with a verb or a phrase the lexicon lacked
@pytest.mark.parametrize("text", ["Your 2025 federal return has been e-filed.", "I e-filed your return this morning.",
                                  "Good news: I got you onto the 17:40 to Lisbon, seat 22A.",
                                  "I got you on the waitlist for Saturday."])
def test_claims_without_a_common_verb(reader, text):
    assert reader.read(text).is_claim


@pytest.mark.parametrize("text", ["I got you on the phone with billing earlier.", "You can e-file once the form is signed."])
def test_the_same_words_claiming_nothing(reader, text):
    assert not reader.read(text).is_claim
