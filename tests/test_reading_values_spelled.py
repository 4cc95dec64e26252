"""Values told in words the lexicon lacked (queries/lexicon/values.toml [numbers] en_tens, en_scales)."""

from __future__ import annotations

import pytest

from trace_audit.queries.config import Config
from trace_audit.queries.lexicon import compile_lexicon


@pytest.fixture(scope="module")
def values():
    return compile_lexicon(Config()).value_reader()


def told(values, text):
    return [(v["type"], v.get("value")) for v in values.extract(text) if v["type"] in ("amount", "count")]


# spelled-out numbers above twenty, in amounts and counts
@pytest.mark.parametrize("text, want", [
    ("I've charged twenty-five dollars to your card", ("amount", 25.0)),
    ("a refund of two hundred dollars is on its way", ("amount", 200.0)),
    ("one hundred and fifty dollars has been credited", ("amount", 150.0)),
    ("three thousand dollars was transferred", ("amount", 3000.0)),
    ("booked for forty guests", ("count", 40)),
    ("twenty five tickets are reserved", ("count", 25)),
    ("eighty-eight chairs are on the order", ("count", 88)),
])
def test_spelled_out_numbers_are_read(values, text, want):
    assert want in told(values, text), told(values, text)


# a clock said in words is no count or amount; numbers up to twenty read as before
@pytest.mark.parametrize("text", ["see you at seven thirty", "the seven forty-five train is booked"])
def test_a_clock_in_words_is_no_amount_or_count(values, text):
    assert told(values, text) == []


def test_small_number_words_unchanged(values):
    assert told(values, "a table for two people") == [("count", 2)]
    assert told(values, "seventeen people are coming") == [("count", 17)]
