"""Temperatures and percentages told ([measures] in values.toml, queries/reading/measures.py)."""

from __future__ import annotations

import pytest

from trace_audit.queries.config import Config
from trace_audit.queries.lexicon import compile_lexicon
from trace_audit.queries.reading.measures import Measures


@pytest.fixture(scope="module")
def lex():
    return compile_lexicon(Config())


def measures(lex, text):
    return [(v["unit"], v["value"]) for v in lex.value_reader().extract(text) if v["type"] == "measure"]


@pytest.mark.parametrize("text, want", [
    ("空调已调到26度", ("temperature", 26.0)),
    ("二十六摄氏度", ("temperature", 26.0)),
    ("the thermostat is set to 72 degrees", ("temperature", 72.0)),
    ("heat is now at 68°F", ("temperature", 68.0)),
    ("I've applied a 15% discount", ("percent", 15.0)),
    ("亮度已调到百分之四十", ("percent", 40.0)),
    ("volume set to thirty percent", ("percent", 30.0)),
])
def test_measures_are_read(lex, text, want):
    assert want in measures(lex, text)


def test_a_measure_is_no_count(lex):
    vals = lex.value_reader().extract("set to 72 degrees")
    assert not [v for v in vals if v["type"] == "count"]


@pytest.mark.parametrize("text", ["a table for 4 at 7 PM", "已付款 26 元", "order #4521 is placed"])
def test_no_measure_without_its_unit(lex, text):
    assert measures(lex, text) == []


@pytest.mark.parametrize("told, field, stored, want", [
    ({"unit": "temperature", "value": 26.0}, ["target", "temperature"], 26, True),
    ({"unit": "temperature", "value": 26.0}, ["target", "temperature"], 24, False),
    ({"unit": "temperature", "value": 72.0, "scale": "f"}, ["heat", "setpoint", "c"], 22.2, True),
    ({"unit": "percent", "value": 40.0}, ["brightness"], 0.4, True),
    ({"unit": "percent", "value": 15.0}, ["discount", "pct"], "15", True),
    # fields of another kind never meet a measure
    ({"unit": "percent", "value": 15.0}, ["discount", "cents"], 1500, None),
    ({"unit": "temperature", "value": 26.0}, ["party", "size"], 26, None),
])
def test_measures_compare_only_with_their_fields(lex, told, field, stored, want):
    assert Measures(lex.data["values"]).fits(told, field, stored) is want
