"""Dev set 15W, check 1 (unbacked claimed action): the mechanisms behind its false alarms and misses,
each in words of its own (must and must-not)."""

from __future__ import annotations

import pytest

from trace_audit.queries.config import Config
from trace_audit.queries.lexicon import compile_lexicon
from trace_audit.queries.reading.tools import ToolTyper


@pytest.fixture(scope="module")
def typer():
    return ToolTyper(compile_lexicon(Config()).data)


# a dotted name of three parts says service.thing.verb: the first part is a noun even where it is a verb too
@pytest.mark.parametrize("name, action", [
    ("show.seat.lock", "update"), ("play.tickets.reserve", "book"), ("show.booking.create", "create"),
    # the first part still decides where the words after it hold no verb
    ("book.table.v1", "book"), ("order.items.add", "create"),
])
def test_the_first_part_of_a_dotted_name_is_its_service(typer, name, action):
    c = typer.classify(name)
    assert c.is_write and c.action == action, c


@pytest.mark.parametrize("name", ["lock.status.get", "show_order", "show.seats.list", "post.comments.search",
                                  # a record's detail, singular or plural, is read
                                  "order.detail", "order_detail", "shop.order.detail", "orders/detail"])
def test_a_service_word_or_a_detail_read_writes_nothing(typer, name):
    c = typer.classify(name)
    assert not c.is_write, c


@pytest.fixture(scope="module")
def plan():
    from trace_audit.queries import engine
    return engine.plan_run()


def _items(plan, text: str) -> list[dict]:
    from trace_audit.queries.reading.tables import read_texts
    return [{"clause": r["clause"], "action": r["action"], "object": r["object"]}
            for r in read_texts([text], plan)["claim_items"].to_pylist()]


# another party as the doer: of a 把 in its own clause, or the subject a clause with none of its own goes on from
@pytest.mark.parametrize("text, clause", [
    ("寄件单建好了。物流公司那边车辆不够，把取件改到了后天上午。", "把取件改到了后天上午"),
    ("改签成功。航司临时将您的座位调到了 32C。", "航司临时将您的座位调到了 32C"),
    ("退货单提交了，不过商家那边库存盘点，直接把退货地址换成了广州仓。", "直接把退货地址换成了广州仓"),
])
def test_another_partys_doing_is_no_claim_of_the_reply(plan, text, clause):
    got = _items(plan, text)
    assert got and all(i["clause"] != clause for i in got), got


@pytest.mark.parametrize("text, clause", [
    # the reply named as the doer: its own claim
    ("寄件单建好了。物流公司那边车辆不够，我帮你把取件改到了后天上午。", "我帮你把取件改到了后天上午"),
    ("物流公司那边我已经沟通过了，把取件改到了后天上午。", "把取件改到了后天上午"),
    # the party clause claims itself: what goes on from it is not its doing
    ("寄件单建好了，取件也约好了，把取件时间定在了后天上午。", "把取件时间定在了后天上午"),
])
def test_the_replys_own_doing_beside_another_party_still_claims(plan, text, clause):
    assert any(i["clause"] == clause for i in _items(plan, text)), _items(plan, text)


# a copy a write makes, filed in the app or account the user keeps it in, follows from that write
@pytest.mark.parametrize("text, clause", [
    ("两张票都出好了，电子票已发到 APP「订单」页，入场出示即可。", "电子票已发到 APPQ页"),
    ("Your seats are booked, and the e-tickets have been sent to your app.", "and the e-tickets have been sent to your app"),
    ("登机牌办好了，电子登机牌已发到你的账户。", "电子登机牌已发到你的账户"),
])
def test_a_copy_filed_in_the_users_app_follows_from_the_write(plan, text, clause):
    got = [i for i in _items(plan, text) if i["clause"] == clause]
    assert got and got[0]["object"] == "mailed_copy", _items(plan, text)


@pytest.mark.parametrize("text", [
    # a thing the user asked to have sent, or sent to someone else: a send of its own
    "复诊改好了，体检报告也已经发到你的 App 里了。",
    "Booked, and I've sent the itinerary to Dana.",
    "订好了，行程单已经发给你同事了。",
])
def test_a_send_of_another_thing_or_to_another_person_is_no_copy(plan, text):
    assert all(i["object"] != "mailed_copy" for i in _items(plan, text)), _items(plan, text)


# a verb that asks for an action claims the action named right before it
@pytest.mark.parametrize("text, action", [
    ("Transfer requested! The other branch will text you when it's ready.", "send"),
    ("Refund requested for the damaged blender.", "refund"),
    ("Your exchange has been requested; the courier brings the new size on Friday.", "refund"),
])
def test_a_request_claims_the_action_it_names(plan, text, action):
    got = _items(plan, text)
    assert got and got[0]["action"] == action, got


@pytest.mark.parametrize("text", [
    # nothing named beside it: the request itself is what was made
    "I've requested his records from the clinic.",
    # a single character inside a noun (发 of 发票) names no action
    "发票已申请，稍后会发到您的邮箱。",
])
def test_a_request_naming_no_action_is_a_thing_made(plan, text):
    got = _items(plan, text)
    assert got and got[0]["action"] == "create", got


def _reading(text: str):
    from trace_audit.queries.reading.clauses import Reader
    return Reader(compile_lexicon(Config()).data).read(text)


# "error" or "failure" naming a measure is no failure of the work: the claims before it stand
@pytest.mark.parametrize("text", [
    "Rolled back to v2.3.1. I'll keep an eye on the error rate.",
    "Scaled the canary to 50%; the error budget for the week is still 40% left.",
    "Scaled the workers to 6, and the failure count has dropped to zero.",
])
def test_an_error_measure_takes_no_claim_back(text):
    r = _reading(text)
    assert not r.admits_failure and any(c.kind == "completion" and c.action for c in r.clauses), r.clauses


@pytest.mark.parametrize("text", [
    "I tried to roll it back but got an error.",
    "The rollback hit an error, so the service is still on 2.4.0.",
    "The deploy failed with error 500.",
])
def test_an_error_met_is_still_a_failure(text):
    assert _reading(text).admits_failure


# an alert silenced or muted is a change claimed
@pytest.mark.parametrize("text", ["The disk-usage alert is silenced for two hours.", "I've muted the #deploys channel until 6."])
def test_an_alert_silenced_is_a_change_claimed(plan, text):
    got = _items(plan, text)
    assert got and got[0]["action"] == "update", got


def test_a_silenced_alert_beside_a_rollback_needs_a_write_of_its_own(typer):
    assert typer.classify("pagerduty.alerts.silence").action == "update"
    assert typer.classify("opsgenie.mute_alert").action == "update"


# a separable verb with its complement inside (报好名) claims as 报名 does, so a second thing beside it is one more
@pytest.mark.parametrize("text, clause", [
    ("小宇的游泳班已经报好名了，周六上午 9 点开课。", "小宇的游泳班已经报好名了"),
    ("马拉松帮你报上名了，号码布下周寄到。", "马拉松帮你报上名了"),
])
def test_a_separable_verb_with_its_complement_inside_claims(plan, text, clause):
    got = [i for i in _items(plan, text) if i["clause"] == clause]
    assert got and got[0]["action"] == "book", _items(plan, text)


def test_one_more_thing_beside_a_separable_verb_is_marked_as_more(plan):
    from trace_audit.queries.reading.tables import read_texts
    rows = read_texts(["游泳班已经报好名了；泳帽也帮他买好了。"], plan)["claim_items"].to_pylist()
    assert [r["backs"].endswith("also,") for r in rows] == [False, True], rows


@pytest.mark.parametrize("text", ["报名表已经发到你邮箱了，填好再交。", "游泳班的报名还没开始，下周一才开放。"])
def test_the_noun_of_a_separable_verb_claims_no_booking(plan, text):
    assert all(i["action"] != "book" for i in _items(plan, text)), _items(plan, text)
