"""The differential test: every built-in rule gives the same findings on DuckDB and on chDB.

Over the sample month (seed004 in Asia/Shanghai + seed001) and over every rule
fixture, all rules (also those off by default) run on both engines; the staged
findings (rule, severity, task, conversation, user, seq, message, evidence,
event time) must be identical row for row. Findings are formatted by DuckDB in
both cases, so a difference can only come from the rows a rule returned on the
other engine: exactly what the engine layer must get right.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

pytest.importorskip("chdb")

from trace_audit.ingest.load.loader import ingest  # noqa: E402
from trace_audit.queries.warehouse import db  # noqa: E402
from trace_audit.queries.config import parse_config  # noqa: E402
from trace_audit.queries.engines import run_rules_on  # noqa: E402
from trace_audit.cli.engine_check import compare_fixtures, load_fixture  # noqa: E402
from trace_audit.queries.engines.chdb_engine import ChdbEngine  # noqa: E402
from trace_audit.cli.rule_fixtures import DEFAULT_NOW, discover  # noqa: E402
from trace_audit.queries.rulefile import load_rules  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "sample_data"
NOW = datetime(2026, 11, 30, tzinfo=timezone.utc)
RULE_IDS = [r.id for r in load_rules() if not r.is_model]

STAGED = ("SELECT rule_id, severity, task_id, conversation_id, user_id, seq, message, CAST(evidence AS VARCHAR), "
          "event_time FROM _ta_stage ORDER BY ALL")


def staged(con) -> list[tuple]:
    return con.execute(STAGED).fetchall()


def by_rule(rows: list[tuple]) -> dict[str, list[tuple]]:
    out: dict[str, list[tuple]] = {}
    for row in rows:
        out.setdefault(row[0], []).append(row)
    return out


@pytest.fixture(scope="module")
def month(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("month") / "warehouse.duckdb")
    ingest([str(SAMPLE / "seed004")], path, tz="Asia/Shanghai", progress=False)
    ingest([str(SAMPLE / "seed001")], path, tz="Asia/Shanghai", progress=False)
    con = db.connect(path)
    results = {}
    for engine in ("duckdb", "chdb"):
        result = run_rules_on(engine, con, now=NOW, rule_ids=RULE_IDS, store=False)
        results[engine] = (result, by_rule(staged(con)))
    yield path, con, results
    con.close()


def test_sample_month_runs_every_rule_without_failure(month):
    _, _, results = month
    for engine, (result, _) in results.items():
        assert result.failed == [], f"{engine}: {result.failed}"
    duck = results["duckdb"][1]
    # the month is not trivially empty: the headline rule finds the W47 incident
    assert len(duck.get("said_but_not_done", [])) > 100


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_sample_month_same_findings_on_duckdb_and_chdb(month, rule_id):
    _, _, results = month
    duck = results["duckdb"][1].get(rule_id, [])
    ch = results["chdb"][1].get(rule_id, [])
    only_duck = sorted(set(duck) - set(ch), key=repr)[:3]
    only_ch = sorted(set(ch) - set(duck), key=repr)[:3]
    assert duck == ch, f"{rule_id}: {len(duck)} on DuckDB, {len(ch)} on chDB; only DuckDB {only_duck}; only chDB {only_ch}"


def test_stored_run_records_the_engine(month):
    _, con, _ = month
    result = run_rules_on("chdb", con, now=NOW, rule_ids=["verified_false", "stuck_running"])
    engine, count = con.execute("SELECT engine, finding_count FROM rule_runs WHERE run_id = ?",
                                [result.run_id]).fetchall()[0]
    assert engine == "chdb"
    assert count == result.finding_count > 0
    stored = con.execute("SELECT count(*) FROM findings WHERE run_id = ?", [result.run_id]).fetchall()[0][0]
    assert stored == result.finding_count
    duck = run_rules_on("duckdb", con, now=NOW, rule_ids=["verified_false", "stuck_running"])
    assert con.execute("SELECT engine FROM rule_runs WHERE run_id = ?", [duck.run_id]).fetchall()[0][0] == "duckdb"
    assert duck.counts() == result.counts()


def test_since_until_filter_the_same_way(month):
    _, con, _ = month
    since, until = datetime(2026, 11, 16, tzinfo=timezone.utc), datetime(2026, 11, 23, tzinfo=timezone.utc)
    a = run_rules_on("duckdb", con, now=NOW, since=since, until=until, store=False)
    rows_a = staged(con)
    b = run_rules_on("chdb", con, now=NOW, since=since, until=until, store=False)
    assert a.counts() == b.counts()
    assert rows_a == staged(con)
    assert 0 < a.finding_count < sum(len(v) for v in month[2]["duckdb"][1].values())


# ---- rule fixtures -------------------------------------------------------------------------------

FIXTURES = [(rule_id, p) for rule_id, paths in sorted(discover().items()) for p in paths]


@pytest.fixture(scope="module")
def chdb_session():
    eng = ChdbEngine()
    yield eng
    eng.close()


@pytest.mark.parametrize("rule_id,path", FIXTURES, ids=[f"{r}/{p.stem}" for r, p in FIXTURES])
def test_fixture_same_findings_on_duckdb_and_chdb(chdb_session, rule_id, path):
    con, expect = load_fixture(path)
    try:
        cfg = parse_config(expect.get("config", {}), f"{path} expect.config")
        now = datetime.fromisoformat(expect.get("now", DEFAULT_NOW))
        # the fixture's own rule (the whole catalogue runs on the sample month above)
        duck = run_rules_on("duckdb", con, now=now, rule_ids=[rule_id], config=cfg, store=False)
        rows_duck = staged(con)
        chdb_session.attach(con)
        ch = run_rules_on("chdb", con, now=now, rule_ids=[rule_id], config=cfg, store=False, engine=chdb_session)
        rows_ch = staged(con)
    finally:
        con.close()
    assert duck.failed == [] and ch.failed == [], ch.failed
    if path.name.startswith("fire"):
        assert rows_duck, f"{path.name}: the fixture's own rule found nothing on DuckDB"
    assert rows_duck == rows_ch, (f"{path.name}: only DuckDB {sorted(set(rows_duck) - set(rows_ch), key=repr)[:2]}; "
                                  f"only chDB {sorted(set(rows_ch) - set(rows_duck), key=repr)[:2]}")


def test_a_custom_rule_is_checked_on_each_engine(tmp_path):
    rules = tmp_path / "rules"
    (rules / "fixtures" / "goal_prefix").mkdir(parents=True)
    (rules / "fixtures" / "portable_goal").mkdir(parents=True)
    head = '-- id = "{0}"\n-- title = "t"\n-- severity = "warn"\n-- message = "m"\n'
    # substr counts characters in DuckDB and bytes in ClickHouse: the lint warns, the check proves it
    (rules / "goal_prefix.sql").write_text(head.format("goal_prefix") +
                                          "SELECT task_id FROM tasks WHERE substr(goal, 1, 2) = '设置'\n", "utf-8")
    (rules / "portable_goal.sql").write_text(head.format("portable_goal") +
                                            "SELECT task_id FROM tasks WHERE regexp_matches(goal, '^设置')\n", "utf-8")
    task = ('{"record": "task", "task_id": "t1", "user_id": "u1", "conversation_id": "c1", "status": "success", '
            '"goal": "设置明早八点的提醒", "started_at": "2026-11-20T08:00:00Z"}\n')
    for rid in ("goal_prefix", "portable_goal"):
        (rules / "fixtures" / rid / "fire_goal.jsonl").write_text(task, "utf-8")
    got = {c.rule_id: c for c in compare_fixtures(["duckdb", "chdb"], [rules],
                                                  only={"goal_prefix", "portable_goal"})}
    assert got["portable_goal"].ok, str(got["portable_goal"])
    assert not got["goal_prefix"].ok and "1 on DuckDB" in got["goal_prefix"].detail
    assert str(got["goal_prefix"]).startswith("DIFFERS goal_prefix/fire_goal.jsonl on chdb")
