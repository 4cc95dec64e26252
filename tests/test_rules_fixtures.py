"""Every rule has fixtures that must fire and must not fire; all are run here."""

from __future__ import annotations

import json

import pytest

from trace_audit.cli.rule_fixtures import discover, run_fixture
from trace_audit.queries.rulefile import load_rules

RULES = [r for r in load_rules() if not r.is_model]
FIXTURES = discover()


@pytest.mark.parametrize("rule_id", [r.id for r in RULES])
def test_every_rule_has_fire_and_pass_fixtures(rule_id):
    names = [p.name for p in FIXTURES.get(rule_id, [])]
    assert any(n.startswith("fire") for n in names), f"{rule_id}: no must-fire fixture in queries/rules/fixtures/{rule_id}/"
    assert any(n.startswith("pass") for n in names), f"{rule_id}: no must-not-fire fixture in queries/rules/fixtures/{rule_id}/"


@pytest.mark.parametrize("rule_id,path", [(r, p) for r, ps in sorted(FIXTURES.items()) for p in ps],
                         ids=lambda v: getattr(v, "stem", v))
def test_fixture(rule_id, path):
    result = run_fixture(rule_id, path)
    assert result.ok, f"{path.name}: {result.detail}"


def test_fixture_directories_name_real_rules():
    ids = {r.id for r in RULES}
    assert set(FIXTURES) <= ids, f"fixtures for unknown rules: {set(FIXTURES) - ids}"


@pytest.mark.parametrize("rule_id,path", [(r, p) for r, ps in sorted(FIXTURES.items()) for p in ps
                                          if p.name.startswith("fire")], ids=lambda v: getattr(v, "stem", v))
def test_every_fire_fixture_pins_the_rows_that_fire(rule_id, path):
    expect = next(json.loads(line)["expect"] for line in path.read_text("utf-8").splitlines()
                  if line.strip() and "expect" in json.loads(line))
    assert expect.get("rows"), f"{path.name}: no expect.rows ([task_id, seq] of each row that must fire)"


def test_a_fixture_firing_on_another_row_fails_and_says_which(tmp_path):
    source = FIXTURES["verified_false"]
    good = next(p for p in source if p.name == "fire_only_the_unverified_success.jsonl")
    lines = good.read_text("utf-8").splitlines()
    lines[0] = json.dumps({"expect": {"findings": 2, "rows": [["t1", 2], ["t1", 3]]}})
    wrong = tmp_path / good.name
    wrong.write_text("\n".join(lines) + "\n", "utf-8")
    result = run_fixture("verified_false", wrong)
    assert not result.ok
    assert result.detail == "2 finding(s), rows [t1#2, t2#1], expected [t1#2, t1#3]"
