"""A relative day's clock with its weekday said beside it (queries/reading/told_times.py day_beside_clock)."""

from __future__ import annotations

import pytest

from trace_audit.queries.config import Config
from trace_audit.queries.lexicon import compile_lexicon
from trace_audit.queries.reading.told_times import day_beside_clock


@pytest.fixture(scope="module")
def values():
    return compile_lexicon(Config()).value_reader()


def times(values, text):
    return [v for v in values.extract(text) if v["type"] == "time"]


# the clause's values, then its aside's (tables._clause_values: the aside in parentheses is read apart)
@pytest.mark.parametrize("text, aside", [("明天 上午10:30", "周三"), ("后天下午3点", "周五"),
                                         ("tomorrow at 11:30 AM", "Wednesday")])
def test_the_weekday_of_a_relative_day_joins_its_clock(values, text, aside):
    wants = times(values, text) + times(values, aside)
    joined, taken = day_beside_clock(wants)
    assert len(taken) == 1
    left = [w for i, w in enumerate(joined) if i not in taken]
    assert len(left) == 1 and left[0]["hour"] is not None and left[0]["day_offset"] is not None


@pytest.mark.parametrize("text", [
    "周三上午10:30，周五下午3点",  # two clocks: two times
    "明天上午10:30",  # nothing beside it
])
def test_no_weekday_taken_where_none_restates_the_day(values, text):
    _, taken = day_beside_clock(times(values, text))
    assert not taken
