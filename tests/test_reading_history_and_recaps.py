"""History, recaps and things not done, told in forms a completion detector mistakes for claims
(dev set 14S: coding, ops, support and finance agents).

- the simple past of a passive tells a record's history ("Payment was made with the card ending
  4421") and a recap frames what follows as told before ("To recap from earlier:", 跟您再确认一下
  之前处理的结果：): over a read only they are reports (verdict `report`), the perfect ("has been
  added") stays a claim;
- refraining ("so I held off on Priya's 1:1"), an unticked box in a list of results, a state as it
  appears ("#incident-882 looks archived"), turned back by another party (被网关退回来了), done
  last night by someone (昨晚就已经被 @liwei 合进 main 了), Cantonese 唔 (改唔到): no claim, or an
  admission."""

from __future__ import annotations

import pytest

from trace_audit.queries.config import Config
from trace_audit.queries.lexicon import compile_lexicon


@pytest.fixture(scope="module")
def reader():
    return compile_lexicon(Config()).reader()


REPORTS = [
    "Your reservation HX92LM is confirmed: JFK to LAX on May 17. Payment was made with the card ending 4421.",
    "To recap from earlier: the exchange on #W5519 went through and the return label was emailed to you.",
    "跟您再确认一下之前处理的结果：订单 #W4471 的退货已经办理，退款 ¥689 预计 5–7 个工作日到账。",
]

NOT_CLAIMS = [
    "Thursday 2pm is taken by Board prep, so I held off on Priya's 1:1. Which works instead?",
    "- [x] INC-882 → Resolved\n- [ ] Slack summary — channel_not_found, #incident-882 looks archived\n- [x] Statuspage closed",
    "这批 42 笔打款被网关退回来了，签名校验没过，钱一分都没出去。",
    "这个 PR 昨晚就已经被 @liwei 合进 main 了，不用再合。",
    "改唔到，金额系空嘅，系统唔收。",
]

CLAIMS = [
    "Friday's meeting has been added to your calendar.",         # the perfect: work just done
    "Your payment was made successfully with the card ending 4421.",
    "Recap: I've moved your 1:1 to 11:30 and told Priya.",      # a recap of the reply's own work
    "I held the 2pm slot for Priya's 1:1.",
    "- [x] INC-882 has been resolved\n- [x] The Statuspage incident has been closed",
    "这批 42 笔打款已经提交给网关了。",
    "PR 已经帮你合进 main 了。",
    "改好咗，金额 ¥3,200。",
]


@pytest.mark.parametrize("text", REPORTS)
def test_history_and_recaps_are_reports(reader, text):
    r = reader.read(text)
    # (a booking's state, "is confirmed", is a report over a read of one record: test_reading_record_reads.py)
    assert r.verdict in ("report", "state", "no_claim", "unmarked"), [c.as_dict() for c in r.clauses]


@pytest.mark.parametrize("text", NOT_CLAIMS)
def test_not_done_or_not_ours(reader, text):
    r = reader.read(text)
    assert not r.is_claim or r.admits_failure, [c.as_dict() for c in r.clauses]


@pytest.mark.parametrize("text", CLAIMS)
def test_look_alikes_that_claim(reader, text):
    r = reader.read(text)
    assert r.is_claim and r.verdict == "claim", [c.as_dict() for c in r.clauses]
