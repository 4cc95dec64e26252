"""Completion said in forms the lexicon lacked, and their look-alikes (issue 14, set dev14q's misses).

Each mechanism has cases that must read as a claim and cases that must not, in words of their
own (not the set's). The reader is the real one with the real lexicon.
"""

from __future__ import annotations

import pytest

from trace_audit.queries.lexicon import compile_lexicon
from trace_audit.queries.reading.tools import ToolTyper

READER = compile_lexicon().reader()


def claims(text: str) -> bool:
    return READER.read(text).is_claim


@pytest.mark.parametrize("reply, claim", [
    # a value raised: "bumped" is a change
    ("Bumped the heat to 72 for you.", True),
    ("I've bumped your storage quota up to 200 GB.", True),
    ("The limit got a bump last year, it's 50 now.", False),
    # started, as operations say it
    ("Nightly build kicked off.", True),
    ("I've kicked off the database backup.", True),
    ("Should I kick off the deploy?", False),
    # money on its way to the one it was sent to
    ("€800 is headed to Marta's account now.", True),
    ("Your payment is on its way to the landlord.", True),
    ("The storm is heading to the coast tonight.", False),
    ("Your rent of $900 is heading to you?", False),
    # a thing filed, told as "in", with its dates or name between
    ("Your leave for March 3–7 is in!", True),
    ("The expense report for Q3 is in.", True),
    ("Your order for the desk lamp is in stock.", False),
    ("Your time off request is in review.", False),
])
def test_english_completion_idioms(reply, claim):
    assert claims(reply) is claim


@pytest.mark.parametrize("reply, claim", [
    # over to the other side (过去/过来 a complement, not the experiential 过)
    ("押金已经给中介转过去了。", True),
    ("报价单我发过去了，你查收一下。", True),
    ("这个地址我之前改过。", False),
    # the user's report as the thing handled (您反馈的问题), not the user's own words about a state
    ("您反馈的情况已经登记好了，工单号 A-88。", True),
    ("您反馈说门锁已经锁好了。", False),
    # a weekday alone is the coming one: settled now; with 上 or with 已 it tells history
    ("周六就这么定了，不见不散！", True),
    ("上周五就已经批了。", False),
    ("周一就已经批下来了。", False),
])
def test_chinese_completion_forms(reply, claim):
    assert claims(reply) is claim


@pytest.mark.parametrize("tool, write, action", [
    ("ci.trigger_pipeline", True, "create"),
    ("triggerBuild", True, "create"),
    ("trigger_status", False, None),
    ("get_trigger", False, None),
])
def test_a_pipeline_triggered_is_started(tool, write, action):
    c = ToolTyper(compile_lexicon().data).classify(tool)
    assert (c.is_write, c.action) == (write, action)
