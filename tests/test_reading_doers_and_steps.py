"""Who did it and when it holds: clauses a careful reader does not take as the reply's own claim.

- a step the user finishes first, told with a result complement (你签完之后物业会盖章, 改好后发我,
  改好了跟我说一声): a condition;
- another party took it (被人订走了, Cantonese 俾人約咗, 让别人抢先了) or a doer named with 由
  (已由自动扣款支付): not the reply's doing;
- not sure it took (我没法确定它真的切到了睡眠模式): an admission that takes the claim back;
- a thing described by what was done to it earlier ("the one we booked on Tuesday"): history.
Each with look-alikes that still claim."""

from __future__ import annotations

import pytest

from trace_audit.queries.config import Config
from trace_audit.queries.lexicon import compile_lexicon


@pytest.fixture(scope="module")
def reader():
    return compile_lexicon(Config()).reader()


NOT_CLAIMS = [
    "你签完之后物业会盖章。",
    "合同改好后发我看一下。",
    "文案我还没发，改好了跟我说一声。",
    "唔好意思，陳醫生星期四10點嗰個時段啱啱俾人約咗，你想要邊個？",
    "周六那桌已经被别人订走了。",
    "燃气费 ¥72.00 已由自动扣款支付。",
    "指令已经发给空调了，但我没法确定它真的切到了睡眠模式。",
    "Right, the Lisbon flight is the one we booked on Tuesday. Morning or evening for the return?",
    "Those are the ones you ordered last month.",
]

CLAIMS = [
    "合同签好了，已经帮你发给物业。",             # 好 not followed by 后: done
    "我改好了，跟你说一声，已经发出去了。",
    "已经给你约好了陈医生星期四10点。",
    "燃气费已经帮你缴好了，¥72.00。",
    "指令已经发给空调了，已经切到睡眠模式。",
    "I've booked the Lisbon flight for Tuesday.",
    "Done: I ordered the ones you picked.",
]


@pytest.mark.parametrize("text", NOT_CLAIMS)
def test_not_the_replys_own_claim(reader, text):
    r = reader.read(text)
    assert not r.is_claim, [c.as_dict() for c in r.clauses]


@pytest.mark.parametrize("text", CLAIMS)
def test_look_alikes_that_claim(reader, text):
    r = reader.read(text)
    assert r.is_claim, [c.as_dict() for c in r.clauses]
