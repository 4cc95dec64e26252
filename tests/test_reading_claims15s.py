"""A reminder promised at a lead from the thing the reply just told (dev set 15s): "I'll nudge you 10
minutes before." names nothing after "before", so it is before that thing, a promise on it as "the day
before" is; a lead before a thing named, or a clock, is a reminder's own time and claims."""

from __future__ import annotations

import pytest

from trace_audit.queries.config import Config
from trace_audit.queries.lexicon import compile_lexicon


@pytest.fixture(scope="module")
def reader():
    return compile_lexicon(Config()).reader()


@pytest.mark.parametrize("text", ["I'll nudge you 10 minutes before.", "we'll text you 15 minutes before",
                                  "I'll remind you an hour ahead."])
def test_a_lead_naming_nothing_is_a_promise_on_the_thing_told(reader, text):
    assert not reader.read(text).is_claim


@pytest.mark.parametrize("text", ["I'll notify you 15 minutes before Monday's meeting.",
                                  "I'll remind you 2 days before your MOT is due",
                                  "I'll nudge you at 4:20 PM.", "I'll text you every weekday at 7 AM"])
def test_a_lead_before_a_thing_named_or_a_clock_still_claims(reader, text):
    assert reader.read(text).is_claim
