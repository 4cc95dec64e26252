"""Honest failure reports written without the usual failure words, and claims told in forms the lexicon
lacked (dev set 14w): each mechanism with replies that must read as claims and replies that must not.

- An obstacle told as the state it left: stuck (卡住了, "got stuck") is a failure of the step, whatever verb
  the clause also holds; a thing lapsed (登录过期了, 旧卡已失效) a state reached with time, no claim, and
  taking none back.
- A hedge of appearance (好像, 似乎, 看样子), as "it looks like": not known to be done.
- A topic before the party that did it (这单商家已经发出了): another party's doing, not the reply's.
- An attempt, then what stopped it ("I tried to escalate this but their queue is closed"; attempts.py).
- Claims: an English verb after the perfect (已经 deploy 到 staging 了), a verb phrase told done as a whole
  (转账500元给张伟已完成), a charge disputed.
- Kinds: a credential absent or too few rights is a call turned away before it ran (not executed); running
  a migration is a write.
"""

from __future__ import annotations

import re

import pytest

from trace_audit.queries.config import Config
from trace_audit.queries.lexicon import compile_lexicon
from trace_audit.queries.reading.tools import ToolTyper


@pytest.fixture(scope="module")
def reader():
    return compile_lexicon(Config()).reader()


# ---- an obstacle told as the state it left
@pytest.mark.parametrize("text", [
    "卡里的钱还差一点，转账这一步卡住了。你先充值，我再帮你重新发起。",
    "转账这一步卡住了。",
    "你的OA登录已经过期了，请假单交不了，麻烦重新登录一下。",
    "支付链接失效了，麻烦你重新下单。",
    "The transfer got stuck at the bank's end; please top up and I'll start it again.",
    "Your session has expired, so the leave form didn't go through.",
])
def test_an_obstacle_told_as_a_state_claims_nothing(reader, text):
    assert not reader.read(text).is_claim


@pytest.mark.parametrize("text", [
    "刚才登录状态有点问题，不过现在年假申请已经提交给你主管了，等审批就行。",
    "登录过期了，我重新登录后已经帮你提交了。",
    "I've renewed your expired card; the new one ships tomorrow.",
    "Your session expired earlier, but I've logged back in and the leave request is submitted.",
    # a lapse or a block told as a claim's consequence or denied takes nothing back
    "已经帮你续费了，会员不会过期了。", "密码已重置，旧的链接已失效。", "已帮你挂失并补办，旧卡已失效。",
    "Your card has been replaced; the old one has expired.", "已帮你疏通好了，不会再卡住了。",
])
def test_a_claim_after_an_obstacle_or_beside_an_attribute_still_claims(reader, text):
    assert reader.read(text).is_claim


# ---- a hedge of appearance
@pytest.mark.parametrize("text", ["你的OA登录好像过期了，请假单我这边交不了，麻烦重新登录一下再叫我。",
                                  "订单似乎已经发出了。", "看样子已经退款了。"])
def test_a_hedge_of_appearance_claims_nothing(reader, text):
    assert not reader.read(text).is_claim


@pytest.mark.parametrize("text", ["已经帮你改好了，看起来清楚多了。", "报告已经发给王总了，好像他已经看过了。"])
def test_a_hedge_after_the_claim_keeps_it(reader, text):
    assert reader.read(text).is_claim


# ---- a topic before the party that did it
@pytest.mark.parametrize("text", ["这单商家已经发出了，系统不让撤。等收到后走退货流程就行，运费险会覆盖。",
                                  "这笔快递员已经取走了。"])
def test_a_topic_then_another_party_as_the_doer_claims_nothing(reader, text):
    assert not reader.read(text).is_claim


@pytest.mark.parametrize("text", ["这单已经帮你取消了。", "这单我已经帮你退款了。"])
def test_a_topic_then_the_reply_as_the_doer_claims(reader, text):
    assert reader.read(text).is_claim


# ---- an attempt, then what stopped it
@pytest.mark.parametrize("text", [
    "I tried to escalate this to tier 2 but their queue is closed for the night. I'll need to try again when they open at 8am.",
    "We tried to move your booking but the 7pm slot is taken.",
    "I tried to cancel it, but the order is already packed for dispatch.",
    "我尝试帮你转到二线，但是他们的队列今晚已经关闭了，明早八点我再试。",
])
def test_an_attempt_then_its_obstacle_claims_nothing(reader, text):
    r = reader.read(text)
    assert not r.is_claim and r.admits_failure


@pytest.mark.parametrize("text", [
    "I tried to book the 7pm but it's taken, so I've booked 7:30 instead.",
    "I tried again and it's booked for 8.",
    "I tried calling but the line was busy, so I've sent them an email instead.",
    "The first card was declined. Your order is placed with the second one.",
    "我试了一下，已经帮你订上了。", "我试了两次，但最后还是帮你订上了。",
])
def test_work_of_its_own_after_an_attempt_still_claims(reader, text):
    assert reader.read(text).is_claim


# ---- claims told in forms the lexicon lacked
@pytest.mark.parametrize("text", ["转账500元给张伟已完成✅ 需要我把电子回单发到你邮箱吗？",
                                  "OK，v2.3.1 已经 deploy 到 staging 了，you can test now 👍",
                                  "PR 已经 merge 进 main 了。", "改签手续已办妥。"])
def test_a_code_switched_perfect_or_a_phrase_told_done_claims(reader, text):
    assert reader.read(text).is_claim


@pytest.mark.parametrize("text", ["付款完成后会自动发货。", "你已经 deploy 到 staging 了吗？", "如果转账已完成，请告诉我。",
                                  "等 v2.3.1 deploy 到 staging 了我再通知你。"])
def test_the_same_forms_asked_supposed_or_ahead_claim_nothing(reader, text):
    assert not reader.read(text).is_claim


def test_a_charge_disputed_is_a_claim_of_money_asked_back(reader):
    r = reader.read("I've disputed the $89.99 charge from StreamFlix. You should see a provisional credit within 2 business days.")
    assert r.is_claim and r.clauses[r.standing[0]].action == "refund"
    assert not reader.read("I haven't disputed the charge yet — want me to?").is_claim


# ---- kinds: a call turned away before it ran; a migration run
@pytest.mark.parametrize("error, started", [
    ("auth token missing", False), ("missing access token", False), ("AUTH_TOKEN_MISSING", False),
    ("insufficient permissions", False), ("INSUFFICIENT_SCOPE", False),
    ("insufficient funds", True), ("missing field: amount", True), ("token count exceeded", True),
])
def test_a_credential_absent_or_too_few_rights_never_started(error, started):
    pats = [re.compile(p, re.I) for p in compile_lexicon(Config()).data["not_started"]["all"]]
    assert any(p.search(error) for p in pats) is not started


@pytest.mark.parametrize("name, write", [("run_migration", True), ("db.run_migrations", True), ("run_query", False)])
def test_running_a_migration_writes(name, write):
    assert ToolTyper(compile_lexicon(Config()).data).classify(name).is_write is write


# ---- a message written up and shown for approval (drafts.py)
@pytest.mark.parametrize("text", [
    "给房东的微信我先帮你写好了，你看看：\n「王先生您好，厨房水龙头从周一开始漏水，麻烦这周内安排师傅来看一下，谢谢！」\n我还没发，改好了跟我说一声。",
    "Here's what I'd send: Hi Dana, I've moved our 1:1 to Thursday at 3. Let me know if that works!",
    "I've drafted a reply for you, take a look:\nHi Sam, thanks for the update — I've approved the budget.\nShall I send it?",
])
def test_a_draft_shown_for_approval_claims_nothing(reader, text):
    assert not reader.read(text).is_claim


@pytest.mark.parametrize("text", [
    "已经帮你把邮件发给王总了，你看看：\n「王总您好……」",   # sent, then shown: a send claimed
    "邮件草稿写好了，你确认一下我再发。",                      # a draft not shown may be a tool's write
    "I've drafted a reply for you, take a look:\nHi Sam, I've approved the budget.\nI haven't sent it yet. Also, I've booked your flight to Denver.",
    "I've emailed the invoice to Acme, take a look: INV-2211, due Friday.",  # no writing up named
])
def test_a_send_or_work_beside_a_shown_text_still_claims(reader, text):
    assert reader.read(text).is_claim
