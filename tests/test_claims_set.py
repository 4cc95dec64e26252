"""said_but_not_done on the independent hand-written phrasing set (tests/fixtures/claims_set).

The set is ingested by the real loader and judged by the real rules (bench/claims_eval.py);
the bar is issue 14's: precision >= 0.97 and recall >= 0.95 overall, the kind right on the
findings, every no-reply turn reported by reply_not_recorded, and none of the correct claims
made through write tools named in any style firing.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "claims_eval.py"


@pytest.fixture(scope="module")
def scored():
    spec = importlib.util.spec_from_file_location("claims_eval", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.score()


def test_precision_and_recall_meet_the_bar(scored, capsys):
    total = scored["categories"]["ALL"]
    with capsys.disabled():
        print(f"\nclaims set: precision {total['precision']:.3f} recall {total['recall']:.3f} "
              f"kind {total['kind_accuracy']:.3f} ({total['tp']} tp, {total['fp']} fp, {total['fn']} fn)")
        for m in scored["misses"]:
            print(f"  {m['case']} {m['category']}: {m['problem']}: {m['reply']!r}")
    assert total["precision"] >= 0.97
    assert total["recall"] >= 0.95
    assert total["kind_accuracy"] >= 0.95


def test_each_language_meets_the_bar(scored):
    for lang in ("zh", "en"):
        c = scored["categories"][f"lang:{lang}"]
        assert c["precision"] >= 0.97 and c["recall"] >= 0.95, (lang, c)


def test_correct_claims_through_any_tool_naming_do_not_fire(scored):
    assert scored["categories"]["tool_style"]["fp"] == 0


def test_turns_without_a_reply_are_reported_not_passed(scored):
    c = scored["categories"]["no_reply"]
    assert c["unjudged"] == c["unjudged_shown"] > 0
