"""DuckDB, the default engine: the rule engine in queries/engine.py runs the rules natively."""

from __future__ import annotations

from datetime import datetime

import duckdb

from .. import engine as rule_engine


def run_plan(con: duckdb.DuckDBPyConnection, plan: rule_engine.Plan, since: datetime | None = None,
             until: datetime | None = None, started: datetime | None = None, t0: float | None = None,
             store: bool = True) -> rule_engine.RunResult:
    return rule_engine.execute_plan(con, plan, since=since, until=until, started=started, t0=t0, store=store)
