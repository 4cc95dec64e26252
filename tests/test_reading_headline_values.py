"""What a headline did is told in the sentence after it; an amount under a label names its field; a
currency code ending a field's key names its currency (dev set 15q)."""

from __future__ import annotations

import json

import pytest

from trace_audit.queries import engine
from trace_audit.queries.lexicon import compile_lexicon
from trace_audit.queries.reading.stored_values import stored_values
from trace_audit.queries.reading.tables import read_texts
from trace_audit.queries.reading.value_checks import Comparer, _compared


@pytest.fixture(scope="module")
def plan():
    return engine.plan_run()


def _told(plan, text: str) -> list[str]:
    return [v["text"] for r in read_texts([text], plan)["claim_items"].to_pylist() if r["vals"]
            for v in json.loads(r["vals"])]


@pytest.mark.parametrize("text, told", [
    ("Your exchange is in! The boots will be swapped for a size 9 in black — no price difference.", ["black"]),
    ("You're confirmed at the Hoxton 🌙\nTwin room, Dec 3 → Dec 5\nTotal: $410.00", ["Twin room", "$410.00"]),
])
def test_a_headline_that_tells_no_value_is_told_by_the_next_sentence(plan, text, told):
    got = _told(plan, text)
    assert all(t in got for t in told), got


@pytest.mark.parametrize("text, not_told", [
    # a headline closed by a full stop, or one telling its own value, keeps to its own sentence
    ("Your table is booked. The restaurant opens at 5 PM.", "5 PM"),
    ("Booked for 7 PM! The restaurant opens at 5 PM.", "5 PM"),
])
def test_a_headline_keeps_to_itself_where_it_is_a_sentence_or_tells_a_value(plan, text, not_told):
    assert not_told not in _told(plan, text), _told(plan, text)


@pytest.fixture(scope="module")
def tools():
    lex = compile_lexicon()
    return lex.value_reader(), Comparer(lex.data)


def _verdicts(tools, wants, result):
    _, cmp = tools
    stored = stored_values(json.dumps({}), json.dumps(result), None, None, cmp.patterns)
    return [(r[1], r[-1]) for r in _compared(cmp, wants, stored, "2026-12-01T12:00:00+00:00", None, zone_known=False)]


def test_an_amount_under_a_label_is_about_the_field_it_names(tools):
    reader, _ = tools
    result = {"nightly_rate_usd": 219.0, "taxes_usd": 61.32, "total_usd": 499.32}
    total = [{**v, "label": "Total with taxes"} for v in reader.extract("Total with taxes: $438.00")]
    assert _verdicts(tools, total, result) == [("total_usd", "mismatch")]
    right = [{**v, "label": "Total with taxes"} for v in reader.extract("Total with taxes: $499.32")]
    assert _verdicts(tools, right, result) == [("total_usd", "match")]
    # a currency code ends the key: the rate per night is an amount, told as it is
    assert _verdicts(tools, reader.extract("$219/night"), result) == [("nightly_rate_usd", "match")]
    zh = [{**v, "label": "总价"} for v in reader.extract("总价：¥826")]
    assert _verdicts(tools, zh, {"total_cny": 862.0, "deposit_cny": 826.0}) == [("total_cny", "mismatch")]


def test_label_lines_after_a_headline_keep_their_labels(plan):
    # "**Order #:** …" after the headline is read with its label: an order's id
    rows = read_texts(["Your keyboard is ordered.\n\n**Order #:** 31-5502-7781\n**Total:** $89.00"],
                      plan)["claim_items"].to_pylist()
    told = [v for r in rows if r["vals"] for v in json.loads(r["vals"])]
    assert any(v["type"] == "id" and v.get("kind") == "order" for v in told), told
