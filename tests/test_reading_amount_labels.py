"""An amount named by the word beside it ([amount_labels], [fields] label_zh) and rentals claimed (fixc)."""

from __future__ import annotations

import pytest

from trace_audit.queries.config import Config
from trace_audit.queries.lexicon import compile_lexicon


@pytest.fixture(scope="module")
def lex():
    return compile_lexicon(Config())


def labels(lex, text):
    return [(v["value"], v.get("label")) for v in lex.value_reader().extract(text) if v["type"] == "amount"]


@pytest.mark.parametrize("text, want", [
    ("月租 450 元，押金 350 元", (350.0, "押金")),
    ("运费10元", (10.0, "运费")),
    ("a deposit of $350 is held", (350.0, "deposit")),
    ("a $40 fee was added", (40.0, "fee")),
])
def test_an_amount_takes_the_word_that_names_it(lex, text, want):
    assert want in labels(lex, text)


@pytest.mark.parametrize("text", ["I charged $588 to the card", "订单 ¥680 已支付", "月租 450 元"])
def test_no_label_without_such_a_word(lex, text):
    assert all(label is None for _, label in labels(lex, text))


@pytest.mark.parametrize("text", ["已为您加租一个储物柜，租期1个月。", "已续租一个月"])
def test_a_rental_added_or_renewed_claims(lex, text):
    assert lex.reader().read(text).is_claim


@pytest.mark.parametrize("text", ["可以帮您续租吗？", "如需加租请告诉我", "没有续租成功"])
def test_a_rental_offered_or_failed_claims_nothing(lex, text):
    assert not lex.reader().read(text).is_claim
