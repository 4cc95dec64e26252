"""A headline that counts its things and ends its line, then one line per thing: each line is a claim
of the headline's action (queries/reading/listed_lines.py)."""

from __future__ import annotations

import pytest

from trace_audit.queries import engine
from trace_audit.queries.reading.tables import read_texts


@pytest.fixture(scope="module")
def plan():
    return engine.plan_run()


def _clauses(plan, text: str) -> list[tuple[str, str | None]]:
    return [(r["clause"], r["action"]) for r in read_texts([text], plan)["claim_items"].to_pylist()]


@pytest.mark.parametrize("text, lines", [
    ("Both reserved 🎉\n1. Nopa — Thu 7 PM, 2 people\n2. Zuni Café — Fri 8 PM, 4 people\nEnjoy!",
     ["Nopa, Thu 7 PM, 2 people", "Zuni Café, Fri 8 PM, 4 people"]),
    ("All three are on your to-do list:\n- call the bank\n- renew passport, by Friday\n- water the plants",
     ["call the bank", "renew passport, by Friday", "water the plants"]),
    ("两个闹钟都设好了：\n⏰ 周一 6:30 起床\n⏰ 周二 7:00 跑步", ["⏰ 周一 6:30 起床", "⏰ 周二 7:00 跑步"]),
])
def test_each_counted_line_is_a_claim(plan, text, lines):
    got = [c for c, a in _clauses(plan, text) if a is not None]
    assert all(line in got for line in lines), _clauses(plan, text)


@pytest.mark.parametrize("text", [
    # label lines tell one record's fields; a headline with no count lists nothing; fewer lines than counted;
    # a line that is a sentence of its own
    "Both nights are booked:\nCheck-in: Dec 3\nCheck-out: Dec 5",
    "Booked!\nNopa — Thu 7 PM\nZuni — Fri 8 PM",
    "Both booked!\nNopa — Thu 7 PM\nSee you there.",
    "Both are booked!\nNopa — Thu 7 PM\nZuni was cancelled by the restaurant.",
])
def test_no_line_claims_where_the_lines_are_no_list_of_the_count(plan, text):
    got = [c for c, _ in _clauses(plan, text)]
    assert not any(c.startswith(("Check-in", "Check-out", "Nopa", "Zuni")) for c in got), got
