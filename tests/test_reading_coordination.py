"""A second claim after "and" with a bare subject of its own (queries/reading/coordination.py)."""

from __future__ import annotations

import pytest

from trace_audit.queries import engine
from trace_audit.queries.reading.tables import read_texts


@pytest.fixture(scope="module")
def plan():
    return engine.plan_run()


def _clauses(plan, text: str) -> list[str]:
    return [r["clause"] for r in read_texts([text], plan)["claim_items"].to_pylist()]


@pytest.mark.parametrize("text, parts", [
    ("Your line is now active and international roaming is turned on for Spain.",
     ["Your line is now active", "international roaming is turned on for Spain"]),
    ("The bucket is created and object versioning is enabled.",
     ["The bucket is created", "object versioning is enabled"]),
])
def test_a_bare_subject_after_and_opens_a_claim(plan, text, parts):
    assert _clauses(plan, text) == parts


@pytest.mark.parametrize("text", [
    # a pronoun, or a second half that claims nothing, keeps the claim whole
    "Your line is now active and it is ready to use.",
    "The bucket is created and storage is billed monthly.",
    "Your order is placed and shipping is free.",
])
def test_no_second_claim_without_one(plan, text):
    assert len(_clauses(plan, text)) == 1, _clauses(plan, text)
