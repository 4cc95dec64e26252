"""`trace-audit rules check --engines duckdb,chdb`: do a rule's fixtures give the same findings
on every engine? (The lint, queries/portable_lint.py, says whether the SQL is likely to port;
this runs it and compares.)

    for c in compare_fixtures(["chdb"], rules_dirs=[Path("my_rules")]):
        print(c)   # ok      my_rule/fire_x.jsonl on chdb: 2 finding(s), same as DuckDB
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import duckdb

from . import rule_fixtures as fixtures

STAGED = ("SELECT rule_id, severity, task_id, conversation_id, user_id, seq, message, CAST(evidence AS VARCHAR), "
          "event_time FROM _ta_stage ORDER BY ALL")


@dataclass
class FixtureComparison:
    rule_id: str
    path: Path
    engine: str
    ok: bool
    detail: str

    def __str__(self) -> str:
        return f"{'ok     ' if self.ok else 'DIFFERS'} {self.rule_id}/{self.path.name} on {self.engine}: {self.detail}"


def load_fixture(path: Path) -> tuple[duckdb.DuckDBPyConnection, dict]:
    """An in-memory warehouse holding the fixture's records, and its `expect` line."""
    con, expect, _summary = fixtures.load_fixture(path)
    return con, expect


def compare_fixtures(engines: list[str], rules_dirs: list[Path] | None = None,
                     clickhouse_url: str | None = None, only: set[str] | None = None) -> list[FixtureComparison]:
    """Run each rule's fixtures (or only those of the rule ids in `only`) on DuckDB and on each
    engine in `engines`; compare the findings."""
    from ..queries.config import parse_config
    from ..queries.engines.runner import open_engine, run_rules_on
    from .rule_fixtures import DEFAULT_NOW, discover

    others = [e for e in engines if e != "duckdb"]
    sessions = {name: open_engine(name, clickhouse_url) for name in others}
    out: list[FixtureComparison] = []
    extra = rules_dirs[0] if rules_dirs else None
    try:
        for rule_id, paths in sorted(discover(rules_dirs).items()):
            if only is not None and rule_id not in only:
                continue
            for path in paths:
                con, expect = load_fixture(path)
                try:
                    cfg = parse_config(expect.get("config", {}), f"{path} expect.config")
                    now = datetime.fromisoformat(expect.get("now", DEFAULT_NOW))
                    duck = run_rules_on("duckdb", con, now=now, rule_ids=[rule_id], config=cfg, rules_dir=extra,
                                        store=False)
                    want = con.execute(STAGED).fetchall()
                    for name, eng in sessions.items():
                        eng.attach(con)
                        got_run = run_rules_on(name, con, now=now, rule_ids=[rule_id], config=cfg, rules_dir=extra,
                                               store=False, engine=eng)
                        got = con.execute(STAGED).fetchall()
                        if got_run.failed:
                            out.append(FixtureComparison(rule_id, path, name, False, got_run.failed[0][1]))
                        elif duck.failed:
                            out.append(FixtureComparison(rule_id, path, name, False,
                                                         f"fails on DuckDB: {duck.failed[0][1]}"))
                        elif got == want:
                            out.append(FixtureComparison(rule_id, path, name, True,
                                                         f"{len(got)} finding(s), same as DuckDB"))
                        else:
                            extra_rows = sorted(set(got) - set(want), key=repr)[:1]
                            missing = sorted(set(want) - set(got), key=repr)[:1]
                            out.append(FixtureComparison(
                                rule_id, path, name, False,
                                f"{len(got)} finding(s) vs {len(want)} on DuckDB; first only here: {extra_rows}; "
                                f"first only on DuckDB: {missing}"))
                finally:
                    con.close()
    finally:
        for eng in sessions.values():
            eng.close()
    return out
