"""The SQL every rule (and turn-model file) becomes on each engine, pinned per rule and dialect.

sqlglot is declared as a range, not one exact version: this test is what makes a sqlglot that
translates any rule differently fail loudly, naming the rule and the dialect, before the engines'
differential tests have to find out from wrong findings. A change that is intended (a rule edited,
a sqlglot upgrade checked against the engines) is recorded with
    TRACE_AUDIT_UPDATE_GOLDEN=1 python -m pytest -q tests/test_transpile_golden.py
and the diff of tests/fixtures/transpiled/ is reviewed like code. A rule edited since its SQL was
pinned is skipped with that reason (its first line records the rule's sha256), so editing a rule
never fails this test; only a different translation of the same rule text does."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import pytest
import sqlglot

from trace_audit.queries.engine import plan_run
from trace_audit.queries.engines import transpile as tp
from trace_audit.queries.engines.base import override_path
from trace_audit.queries.engines.runner import _bound_params
from trace_audit.queries.rulefile import load_rules

GOLDEN = Path(__file__).resolve().parent / "fixtures" / "transpiled"
DIALECTS = ("clickhouse", "spark")
NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)
RULES = [r for r in load_rules() if r.kind in ("sql", "model")]  # the turn models run on engines too


@pytest.fixture(scope="module")
def plan():
    return plan_run(None, None, None, NOW)


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_transpiled_sql_is_pinned(plan, rule, dialect):
    # Text parameters (the claim and failure lexicons' regexes, tool lists) are data that changes
    # with the lexicon, not with sqlglot: each is bound as its name, so the file pins the translation.
    params = {k: (f"<{k}>" if isinstance(v, str) else [f"<{k}>"] if isinstance(v, (list, tuple)) else v)
              for k, v in _bound_params(rule, plan).items()}
    over = override_path(rule.path, dialect)
    sql = (tp.bind_text(over.read_text("utf-8").strip().rstrip(";"), params, dialect) if over.is_file()
           else tp.transpile(rule.sql, params, dialect))
    # The first line names the rule text it was pinned from: a rule edited since (its translation is
    # new, and the engines' differential tests judge it) is re-recorded, not a failure of sqlglot.
    got = f"-- rule sha256 {rule.sha256}\n" + sql.strip() + "\n"
    path = GOLDEN / dialect / f"{rule.id}.sql"
    if os.environ.get("TRACE_AUDIT_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(got, encoding="utf-8")
    assert path.is_file(), f"no pinned SQL for {rule.id} on {dialect}; record it (see this module's docstring)"
    pinned = path.read_text("utf-8")
    if pinned.splitlines()[0] != got.splitlines()[0]:
        pytest.skip(f"{rule.id} was edited since its {dialect} SQL was pinned: re-record it "
                    "(TRACE_AUDIT_UPDATE_GOLDEN=1, see this module's docstring)")
    assert got == pinned, (
        f"sqlglot {sqlglot.__version__} translates {rule.id} to {dialect} differently from {path}: check the "
        "engines' differential tests, then record the new SQL (see this module's docstring)")


def test_every_pinned_file_belongs_to_a_rule():
    ids = {r.id for r in RULES}
    stale = sorted(str(p.relative_to(GOLDEN)) for p in GOLDEN.glob("*/*.sql") if p.stem not in ids)
    assert not stale, f"pinned SQL of rules that no longer exist: {stale}"
