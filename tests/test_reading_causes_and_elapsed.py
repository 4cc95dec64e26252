"""States that explain or have lasted, and work said in words the lexicon lacked (dev set 14U).

- A state right before a clause saying the thing has nowhere to go or cannot go in ([clause.blocked])
  is why it could not be done, not work done (framing.py); with the reply as its doer it still claims.
- What a status read shows after a comma is never the reply's own doing ("No conflicts came back, and
  I've opened the new matter").
- A length of time more than or since after a perfect (已经停用 90 天以上, 已经闲置了两个月) is how long a
  state has held; a length set (已帮你暂停 3 个月) is still work done.
- A bill settled (已结清, 已付清) is a process state, as "settled" is: a report over a read.
- Verbs and idioms: authorized, excused, 归档, "got you in for …" claim; offers of them do not.
"""

from __future__ import annotations

import pytest

from trace_audit.queries.config import Config
from trace_audit.queries.lexicon import compile_lexicon
from trace_audit.queries.reading.tools import ToolTyper


@pytest.fixture(scope="module")
def reader():
    return compile_lexicon(Config()).reader()


NOT_CLAIMS = [
    # a state as the reason
    "The March period is closed, so the refund has nowhere to land this month. Want me to post it to April?",
    "Aisle 4 is locked for the audit, so there's no place to put the pallets yet.",
    "货架 C-02 被封存了，这批箱子放不进去。要不放到 C-03？",
    "这个时段已经被占满了，预约挂不上。",
    # how long a state has held
    "目前有 12 个门禁卡，其中 2 张已经停用 60 天以上。",
    "这台打印机已经闲置了两个月，没有新的任务。",
]

CLAIMS = [
    "I've closed the March period, so the refund has nowhere to land this month.",   # the reply as the doer
    "The pallet has been moved to aisle 4, so the pickers can reach it now.",        # no blocked clause: a claim
    "The search came back, and I've filed the request under your name.",              # own doing after a status read
    "已帮你暂停会员 3 个月。",                                                         # a length set, not elapsed
    "I've gone ahead and authorized the brake job you asked about.",
    "Absence excused ✔️",
    "已经把合同归档好了 ✔",
    "Got you in for a tyre rotation tomorrow at 9:15.",
    "Squeezed you in with the hygienist at 4.",
]

OFFERS = [
    "I can get you in at 4 if that suits.",
    "I'll squeeze you in tomorrow once the schedule opens.",
    "I got you in touch with the site manager.",
]


@pytest.mark.parametrize("text", NOT_CLAIMS)
def test_a_state_that_explains_or_has_lasted_claims_nothing(reader, text):
    r = reader.read(text)
    assert not r.is_claim, [c.as_dict() for c in r.clauses]


def test_a_state_as_the_reason_admits_the_thing_not_done(reader):
    r = reader.read("The March period is closed, so the refund has nowhere to land this month.")
    assert not r.is_claim and r.admits_failure


@pytest.mark.parametrize("text", CLAIMS)
def test_work_done_still_claims(reader, text):
    r = reader.read(text)
    assert r.is_claim and r.verdict == "claim", [c.as_dict() for c in r.clauses]


@pytest.mark.parametrize("text", OFFERS)
def test_an_offer_or_a_contact_is_no_claim(reader, text):
    assert not reader.read(text).is_claim


def test_a_bill_settled_is_a_state_found(reader):
    assert reader.read("12 月的水费已经结清了，缴费时间 12 月 2 日。").verdict == "report"
    assert reader.read("水费已经帮您结清了。").verdict == "claim"


def test_excusing_an_absence_is_a_write():
    typer = ToolTyper(compile_lexicon(Config()).data)
    assert typer.classify("attendance.excuse").action == "update"
    assert typer.classify("excuse_absence").is_write


# what a send or a charge needs ran out: that part admitted as not done, the rest still claimed
@pytest.mark.parametrize("text", [
    "校园通知已经推送到 App 了；短信那边余额不足，需要的话我明天补发。",
    "Posted the notice in the app; the SMS quota is used up for this month.",
])
def test_a_quota_run_out_admits_that_part(reader, text):
    r = reader.read(text)
    assert r.is_claim and r.admits_failure, [c.as_dict() for c in r.clauses]


@pytest.mark.parametrize("text", ["Posted the notice in the app and texted every parent.", "通知已经推送到 App 了，短信也发了。"])
def test_no_quota_word_admits_nothing(reader, text):
    r = reader.read(text)
    assert r.is_claim and not r.admits_failure


def test_a_rotated_key_is_a_claim_and_rotate_a_write(reader):
    assert reader.read("The staging signing key has been rotated.").is_claim
    assert not reader.read("The staging signing key rotates every 90 days.").is_claim
    typer = ToolTyper(compile_lexicon(Config()).data)
    assert typer.classify("secrets.rotate").action == "update"


@pytest.mark.parametrize("name", ["label.print", "print_label", "wms.shipping_label.reprint"])
def test_printing_sends_a_job(name):
    typer = ToolTyper(compile_lexicon(Config()).data)
    assert typer.classify(name).action == "send"


@pytest.mark.parametrize("name", ["printer.status", "get_print_jobs", "blueprint.get"])
def test_a_printer_read_is_no_write(name):
    typer = ToolTyper(compile_lexicon(Config()).data)
    assert not typer.classify(name).is_write


# a promise with no subject of its own after another party's doing in its sentence is that party's
@pytest.mark.parametrize("text", [
    "合同你签完之后物业会盖章，交房时间会短信通知你。",
    "The landlord will countersign tonight, and will text you the move-in time tomorrow at 9.",
])
def test_a_promise_going_on_with_another_party_is_theirs(reader, text):
    assert not reader.read(text).is_claim, [c.as_dict() for c in reader.read(text).clauses]


@pytest.mark.parametrize("text", [
    "物业会盖章，我明早九点提醒你去拿钥匙。",
    "The clinic will call to confirm, and I'll remind you at 8 tomorrow.",
])
def test_the_replys_own_promise_after_another_party_still_claims(reader, text):
    assert reader.read(text).is_claim


@pytest.mark.parametrize("name, is_write", [
    ("gaming/account/unban_appeal", True), ("appeal", True), ("appeal_status", False), ("get_appeal", False),
    ("appeals.list", False),
])
def test_an_appeal_lodged_is_a_write_its_status_a_read(name, is_write):
    typer = ToolTyper(compile_lexicon(Config()).data)
    assert typer.classify(name).is_write is is_write


# a ticked box opening a line, then a thing and what was done to it: a done item
@pytest.mark.parametrize("text", [
    "**Release wrap-up**\n- [x] v2.4.1 tagged on main\n- [x] Changelog posted in #releases",
    "☑ Payroll file uploaded to the bank portal",
])
def test_a_ticked_line_claims(reader, text):
    assert reader.read(text).is_claim


@pytest.mark.parametrize("text", [
    "- [ ] Changelog posted in #releases\n- [ ] Tag pushed",    # unticked: not done
    "- [x] Tests to be added later",                            # a plan ticked off, not work done
])
def test_an_unticked_or_planned_line_does_not_claim(reader, text):
    r = reader.read(text)
    assert not r.is_claim or r.admits_failure, [c.as_dict() for c in r.clauses]


@pytest.mark.parametrize("name, is_write", [
    ("statuspage.incident.resolve", True), ("helpdesk.ticket.resolve", True), ("resolve_case", True),
    ("dns.resolve", False), ("resolve_hostname", False), ("incident.resolve.status", False),
    ("get_resolved_tickets", False),
])
def test_an_incident_or_ticket_resolved_is_a_write_a_name_resolved_a_read(name, is_write):
    typer = ToolTyper(compile_lexicon(Config()).data)
    assert typer.classify(name).is_write is is_write
