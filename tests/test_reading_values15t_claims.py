"""Claims whose values the value checks could not reach (dev set 15t), in words of their own: a thing
"in" with the verb written onto the noun, a booking put off by a length."""

from __future__ import annotations

import json

import pytest

from trace_audit.queries import engine
from trace_audit.queries.reading.tables import read_texts


@pytest.fixture(scope="module")
def plan():
    return engine.plan_run()


def _claims(plan, text: str) -> list[tuple[str, list[str]]]:
    return [(r["clause"], [v["text"] for v in json.loads(r["vals"] or "[]")])
            for r in read_texts([text], plan)["claim_items"].to_pylist()]


@pytest.mark.parametrize("text, clause, told", [
    ("Order's in! It'll be ready by half past four today.", "Order's in", ["half past four today"]),
    ("Your return's in — label is on its way.", "Your return's in", []),
    ("好的，体检已顺延两周，现在是 12 月 15 日上午 8 点。", "体检已顺延两周", ["12 月 15 日上午 8 点"]),
    ("评审会已推迟到周五下午 3 点", "评审会已推迟到周五下午 3 点", ["周五下午 3 点"]),
])
def test_claims_whose_values_are_read(plan, text, clause, told):
    got = _claims(plan, text)
    assert any(c == clause and all(t in vals for t in told) for c, vals in got), got


@pytest.mark.parametrize("text", [
    "It's in your inbox? Let me check.",  # a question
    "The order's in transit with the carrier.",  # a carrier's progress, not "in"
    "要不要把会议推迟到周五？",  # an offer
])
def test_no_claim_read(plan, text):
    assert not [c for c, _ in _claims(plan, text) if c], _claims(plan, text)


# ---- a quotation set out after a colon in the sentence after the reply's one claim is what it wrote

@pytest.mark.parametrize("text, quote", [
    ('Cleaner booked for Monday at 9. I added this for them: "Spare key under the blue pot".',
     "Spare key under the blue pot"),
    ("体检已约好，周五上午 8 点。给前台的备注是：“需要轮椅”。", "需要轮椅"),
])
def test_a_quotation_after_a_colon_is_told(plan, text, quote):
    assert any(quote in vals for _, vals in _claims(plan, text)), _claims(plan, text)


@pytest.mark.parametrize("text, quote", [
    ('Your order is placed. Reply "STOP" to opt out of texts.', "STOP"),  # no colon: an instruction
    # the words before the colon name no text a write stores (and are too long for a line's label)
    ('Your cleaner is booked for Monday at 9. The lady at the front desk always says: "arrive early".', "arrive early"),
])
def test_a_quotation_not_set_out_as_written_is_not_told(plan, text, quote):
    assert not any(quote in vals for _, vals in _claims(plan, text)), _claims(plan, text)
