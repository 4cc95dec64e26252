"""One rule fixture on DuckDB and on another engine session: the differential check the engine
tests share (chDB, ClickHouse through its client, Spark)."""

from __future__ import annotations

from datetime import datetime

from trace_audit.cli.engine_check import load_fixture
from trace_audit.cli.rule_fixtures import DEFAULT_NOW
from trace_audit.queries.config import parse_config
from trace_audit.queries.engines import run_rules_on

STAGED = ("SELECT rule_id, severity, task_id, conversation_id, user_id, seq, message, CAST(evidence AS VARCHAR), "
          "event_time FROM _ta_stage ORDER BY ALL")


def assert_fixture_alike(engine_name: str, engine, rule_id: str, path, before_attach=None) -> None:
    """The fixture's own rule gives the same staged findings on DuckDB and on `engine`.
    `before_attach(con, engine)` puts the fixture's tables where the engine reads them, if needed."""
    con, expect = load_fixture(path)
    try:
        cfg = parse_config(expect.get("config", {}), f"{path} expect.config")
        now = datetime.fromisoformat(expect.get("now", DEFAULT_NOW))
        duck = run_rules_on("duckdb", con, now=now, rule_ids=[rule_id], config=cfg, store=False)
        want = con.execute(STAGED).fetchall()
        if before_attach:
            before_attach(con, engine)
        engine.attach(con)
        got_run = run_rules_on(engine_name, con, now=now, rule_ids=[rule_id], config=cfg, store=False, engine=engine)
        got = con.execute(STAGED).fetchall()
    finally:
        con.close()
    assert duck.failed == [] and got_run.failed == [], got_run.failed
    assert got == want, (f"{path.name}: only DuckDB {sorted(set(want) - set(got), key=repr)[:2]}; "
                         f"only {engine_name} {sorted(set(got) - set(want), key=repr)[:2]}")
