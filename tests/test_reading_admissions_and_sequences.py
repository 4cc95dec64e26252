"""Clause marks and admissions found by dev set 14T (healthcare, schools, public services, telecom).

- a wave dash (～) closes a Chinese sentence as ！ does: a question or condition after it is its own
  clause (帮您办好了～还需要我帮您订校服吗？ claims; 3～5 天 is a range);
- a step told as done before a perfect (我重新登录之后已经把…提交上去了) is a sequence, not a condition;
  如果/等 before it keep the condition;
- a potential negative (传不上去, 暂时报不上), a list full (满员), "isn't supported": the reply admits
  something was not done ([clause.unable]: partial does not fire), naming no action to take back."""

from __future__ import annotations

import pytest

from trace_audit.queries.config import Config
from trace_audit.queries.lexicon import compile_lexicon


@pytest.fixture(scope="module")
def reader():
    return compile_lexicon(Config()).reader()


CLAIMS = [
    "小朋友的入学登记和校车都帮您办好了～还需要我帮您订校服吗？",
    "如果下个月账单还偏高的话可以再找我～套餐已经给您换成 99 元的不限量了",
    "刚才登录过期了，不好意思 我重新登录之后已经把个税年度汇算重新提交上去了。",
    "付款成功后已经帮你下单了。",
]

NOT_CLAIMS = [
    "如果登录后已经到账了就告诉我。",
    "等审批通过后我再帮你提交。",
    "如果下个月账单还偏高的话～套餐可以给您换成 99 元的",
    "预计 3～5 天到账的话我再帮你确认退款已经提交。",
]


@pytest.mark.parametrize("text", CLAIMS)
def test_a_wave_dash_and_a_step_done_before_a_perfect_leave_the_claim(reader, text):
    assert reader.read(text).is_claim


@pytest.mark.parametrize("text", NOT_CLAIMS)
def test_a_condition_stays_a_condition(reader, text):
    assert not reader.read(text).is_claim


ADMITS = [
    "周一那条已经排上了；周三那条图片太大传不上去，您压缩一下再发我？",
    "入学登记办好了 校车这条线路满员了，暂时报不上，我帮您留意一下有没有空位？",
    "Your number port is done. The eSIM, though, isn't supported on that handset model. Shall I post one out?",
]

ADMITS_NOTHING = [
    "周一那条已经排上了，周五不上课，记得提醒孩子。",
    "入学登记办好了，这个不成问题。",
    "Your number port is done. eSIM is supported on that handset, so you can switch any time.",
]


@pytest.mark.parametrize("text", ADMITS)
def test_a_potential_negative_a_full_list_or_unsupported_admits_and_keeps_the_claim(reader, text):
    r = reader.read(text)
    assert r.is_claim and r.admits_failure


@pytest.mark.parametrize("text", ADMITS_NOTHING)
def test_look_alikes_admit_nothing(reader, text):
    r = reader.read(text)
    assert r.is_claim and not r.admits_failure


# a device or a branch moved to a state or a place (切到, 推到: as "pushed to", "switched to") claims;
# asked or offered it does not
@pytest.mark.parametrize("text", ["已推到 `release/2.8`，流水线应该马上会跑起来。", "空调已经切到睡眠模式了，26度。",
                                  "灯光已经切换到阅读模式了。"])
def test_moved_to_a_state_or_a_place_claims(reader, text):
    assert reader.read(text).is_claim


@pytest.mark.parametrize("text", ["会议推到下周了吗？", "我可以把它推到明天。", "要不要切到睡眠模式？"])
def test_moved_to_asked_or_offered_does_not(reader, text):
    assert not reader.read(text).is_claim


# a bare instruction closing on a colon ("just set:", 直接改成：) is the user's step, and what follows
# is what the user types; the same verb as a terse report ("Done, just set it.") still claims
@pytest.mark.parametrize("text", ['To mark it as sent in your script, just set:\n`status = "submitted"`\nbefore calling `save()`.',
                                  "To turn on autopay, simply enable:\n`autopay = true`", "直接改成：\n`2026-12-01`"])
def test_a_bare_instruction_closing_on_a_colon_claims_nothing(reader, text):
    assert not reader.read(text).is_claim


@pytest.mark.parametrize("text", ["Done, just set it.", "Just set your alarm for 7am.", "Booked:\n- Zuni on Friday"])
def test_the_same_verb_told_as_done_claims(reader, text):
    assert reader.read(text).is_claim


def test_an_error_code_joins_a_gate_not_passed_with_underscores():
    import re
    lex = compile_lexicon(Config()).data
    pats = [re.compile(p, re.I) for p in lex["not_started"]["all"]]
    assert any(p.search("OTP_NOT_VERIFIED") for p in pats) and any(p.search("MFA_REQUIRED") for p in pats)
    assert not any(p.search("OTP_SENT") for p in pats)


# a noun headline runs to a date ("Lease extended till 31 March") or names its thing in code
# ("tagged `billing-escalation`"); asked, it claims nothing
@pytest.mark.parametrize("text", ["All three tickets tagged `billing-escalation` and handed to Tier 2.",
                                  "Lease extended till 31 March 2027, kindly check your mail.",
                                  "Subscription paused until June."])
def test_a_noun_headline_to_a_date_or_a_thing_in_code(reader, text):
    assert reader.read(text).is_claim


@pytest.mark.parametrize("text", ["Lease extended till 31 March 2027?", "Was the lease extended till March?",
                                  "If the lease is extended till March, rent stays the same."])
def test_the_same_headline_asked_or_supposed(reader, text):
    assert not reader.read(text).is_claim
