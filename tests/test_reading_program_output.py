"""What a program gave back is a report of its doing, not a return of goods (found on the real Who&When
runs: "The code has successfully executed and returned the result" was read as a refund claimed with no
refund write). A return of a thing bought still claims."""

from __future__ import annotations

import pytest

from trace_audit.queries.config import Config
from trace_audit.queries.lexicon import compile_lexicon


@pytest.fixture(scope="module")
def reader():
    return compile_lexicon(Config()).reader()


@pytest.fixture(scope="module")
def plan():
    from trace_audit.queries import engine
    return engine.plan_run()


def _actions(plan, text: str) -> list[str]:
    from trace_audit.queries.reading.tables import read_texts
    return [r["action"] for r in read_texts([text], plan)["claim_items"].to_pylist()]


@pytest.mark.parametrize("text", [
    "The code has successfully executed and returned the result.",
    "The query returned 3 rows for last week.",
    "The API returned a 404, so the page isn't there any more.",
    "I ran the script; it finished and the function returned an empty list.",
    "The search tool returned no matches for that name.",
])
def test_what_a_program_gave_back_is_no_return_claimed(plan, text):
    assert "refund" not in _actions(plan, text), _actions(plan, text)


@pytest.mark.parametrize("text", [
    "Your hiking boots have been returned and the refund is on its way.",
    "I've returned the blender to the seller for you.",
    "Done: the jacket is returned, and the store will email a label.",
])
def test_a_return_of_a_thing_bought_still_claims(reader, plan, text):
    assert reader.read(text).is_claim
    assert "refund" in _actions(plan, text), _actions(plan, text)
