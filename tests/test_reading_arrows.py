"""A change set out with an arrow between two asides ("Hoodie (M, black) → Hoodie (L, grey)"): the value
after the arrow is the target, the one before it the source (queries/reading/arrows.py)."""

from __future__ import annotations

import json

import pytest

from trace_audit.queries import engine
from trace_audit.queries.reading.tables import read_texts


@pytest.fixture(scope="module")
def plan():
    return engine.plan_run()


def _roles(plan, text: str) -> list[tuple[str, str | None]]:
    out = []
    for r in read_texts([text], plan)["claim_items"].to_pylist():
        out += [(v["text"], v["role"]) for v in json.loads(r["vals"] or "[]")]
    return out


@pytest.mark.parametrize("text, source, target", [
    ("I've requested the exchange: Jacket (S, navy) → Jacket (M, white).", "navy", "white"),
    ("已为您换货：卫衣（M，黑色）→ 卫衣（L，白色）", "黑色", "白色"),
    ("Seat changed: Flight 88 (economy class) -> Flight 88 (business class)", "economy class", "business class"),
])
def test_the_aside_after_the_arrow_is_the_target(plan, text, source, target):
    roles = dict(_roles(plan, text))
    assert roles.get(source) == "from" and roles.get(target) == "to", _roles(plan, text)


@pytest.mark.parametrize("text", [
    # no arrow: two asides are two things told
    "I've booked both: Jacket (S, navy) and Scarf (one size, olive).",
    # an arrow whose sides tell values of different kinds: nothing is a source
    "Your order is placed: Jacket (navy) → ships (Dec 4)",
])
def test_asides_without_an_arrow_between_values_of_one_kind_keep_no_role(plan, text):
    assert all(role is None for _t, role in _roles(plan, text)), _roles(plan, text)
