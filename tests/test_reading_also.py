"""A claim told as one more thing beside another ([also] in claims.toml, queries/reading/also.py)."""

from __future__ import annotations

import pytest

from trace_audit.queries.config import Config
from trace_audit.queries.lexicon import compile_lexicon
from trace_audit.queries.reading.also import AlsoMarks


@pytest.fixture(scope="module")
def marks():
    return AlsoMarks(compile_lexicon(Config()).data)


@pytest.mark.parametrize("text", [
    "and the birthday cake has been added too",
    "the late checkout is also confirmed",
    "I've added travel insurance as well",
    "口腔检查也一并约上了",
    "并已提交部门经理审批",
    "顺便把发票也开好了",
    "还帮您升级了座位",
])
def test_one_more_thing_is_marked(marks, text):
    assert marks.claims_more(text)


@pytest.mark.parametrize("text", [
    "I've booked your table for 4 at 7 PM",
    "the tool tip is now updated",  # "tool", "tip": no "too" inside a word
    "已合并两个订单",  # 并 inside a word
    "采购单已创建",
    "your order has been placed",
])
def test_a_first_claim_is_not_marked(marks, text):
    assert not marks.claims_more(text)


def test_claim_items_carry_the_mark_only_after_a_first_claim():
    from trace_audit.queries.engine import plan_run
    from trace_audit.queries.reading.tables import read_texts

    plan = plan_run(None)
    items = read_texts(["已为您预约周六上午的洗牙，口腔检查也一并约上了。",
                        "Also, your table is booked for 7 PM."], plan)["claim_items"].to_pylist()
    marked = {(i["text_id"], i["clause"]): ",also," in (i["backs"] or "") for i in items}
    assert any(m for (t, c), m in marked.items() if t == 0 and "口腔检查" in c)
    assert not any(m for (t, c), m in marked.items() if t == 0 and "洗牙" in c)
    # a reply's first claim is the first thing, whatever word it opens with
    assert not any(m for (t, c), m in marked.items() if t == 1)
