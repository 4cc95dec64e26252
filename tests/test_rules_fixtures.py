"""Every rule has fixtures that must fire and must not fire; all are run here."""

from __future__ import annotations

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
