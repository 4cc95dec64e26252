"""A reply's reading must not depend on what the process read before it: the clause reader keeps
read clauses in a cache, so nothing it decides may come from the clause it read last."""

from __future__ import annotations

import itertools

import pytest

from trace_audit.queries import engine, lexicon
from trace_audit.queries.reading.tables import read_texts

TEXTS = [
    "已经为您设好了明早七点的闹钟，另外两个提醒也都加上了。",
    "Both reminders are in: stretch at 7 and call the bank at noon.",
    "I'll ping you at 6 to leave, and I've put the dentist on your calendar.",
    "好的，两个提醒：周五交房租、周六取快递，都已设置。",
    "Done! The lights are off and the front door is locked.",
    "工单已关闭，退款 30 元也已原路退回。",
    "I'll remind you to feed the cat tonight at 9 PM and to renew the permit Friday at 9 AM.",
    "I've opened case CS-2210, and I've added a $5 voucher to your wallet for the wait.",
    "好的。I'll remind you to feed the cat tonight at 9 PM and to renew the permit Friday at 9 AM.",
]


@pytest.fixture(scope="module")
def plan():
    return engine.plan_run()


def _read(plan, texts):
    t = read_texts(texts, plan)
    items = t["claim_items"].to_pylist()
    return {texts[i]: sorted((r["clause_no"], r["action"], r["object"], r["clause"]) for r in items if r["text_id"] == i)
            for i in range(len(texts))}


@pytest.mark.parametrize("order", list(itertools.permutations(range(4))))
def test_readings_do_not_depend_on_what_was_read_before(plan, order):
    alone = {}
    for text in TEXTS:
        lexicon._reader.cache_clear()  # a reader that has read nothing
        alone.update(_read(plan, [text]))
    lexicon._reader.cache_clear()
    for chunk in (TEXTS[i::4] for i in order):  # the same texts after others, in several orders
        for text, got in _read(plan, list(chunk)).items():
            assert got == alone[text], text
