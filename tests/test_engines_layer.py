"""The engine layer's parts, each checked by running the result on DuckDB and on chDB."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

pytest.importorskip("chdb")

from trace_audit.ingest.load.loader import ingest  # noqa: E402
from trace_audit.queries.warehouse import db  # noqa: E402
from trace_audit.queries.engines import EngineUnavailable, engine_sql, open_engine, run_rules_on  # noqa: E402
from trace_audit.queries.engines import transpile as tp  # noqa: E402
from trace_audit.queries.engines.chdb_engine import ChdbEngine  # noqa: E402
from trace_audit.queries.engine import plan_run  # noqa: E402
from trace_audit.queries.rulefile import load_rule_file  # noqa: E402

NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def ch():
    eng = ChdbEngine()
    yield eng
    eng.close()


def duck_rows(sql: str) -> list[tuple]:
    con = db.connect(":memory:")
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def ch_rows(ch, sql: str) -> list[tuple]:
    t = ch.query_arrow(sql)
    return [tuple(r.values()) for r in t.to_pylist()]


# ---- binding ---------------------------------------------------------------------------------

TRICKY_TEXT = "it's \\d+ 已创建 \"quoted\" \\\\ back"


def test_parameters_bind_as_typed_literals_that_round_trip(ch):
    ts = datetime(2026, 11, 30, 23, 59, 58, 123456, tzinfo=timezone.utc)
    params = {"t": ts, "s": TRICKY_TEXT, "i": 42, "f": 0.25, "b": True, "n": None}
    sql = "SELECT $t AS t, $s AS s, $i AS i, $f AS f, $b AS b, $n IS NULL AS n"
    got = ch_rows(ch, tp.transpile(sql, params, "clickhouse"))[0]
    assert got[0] == ts  # microseconds kept, UTC
    assert got[1] == TRICKY_TEXT  # quotes and backslashes survive ClickHouse string escapes
    assert (got[2], got[3], bool(got[4]), bool(got[5])) == (42, 0.25, True, True)
    duck = duck_rows(tp.transpile(sql, params, "duckdb"))[0]
    assert duck[1] == TRICKY_TEXT and duck[2] == 42 and duck[3] == 0.25


def test_regex_parameter_means_the_same_on_both_engines(ch):
    pattern = r"^(create_reminder|set\.alarm)$|(?i)已(创建|设置)"
    texts = ["create_reminder", "set.alarm", "setXalarm", "已创建提醒", "未创建", "CREATE_REMINDER"]
    sql = ("SELECT x, regexp_matches(x, $re) AS m FROM (SELECT unnest(" +
           "[" + ", ".join(tp.exp.Literal.string(t).sql("duckdb") for t in texts) + "]) AS x) ORDER BY x")
    duck = duck_rows(tp.transpile(sql, {"re": pattern}, "duckdb"))
    chsql = tp.transpile(sql.replace("unnest(", "arrayJoin(").replace("(SELECT arrayJoin", "(SELECT arrayJoin"),
                         {"re": pattern}, "clickhouse")
    assert [(x, bool(m)) for x, m in ch_rows(ch, chsql)] == [(x, bool(m)) for x, m in duck]


def test_a_missing_parameter_is_named():
    with pytest.raises(tp.TranspileError, match=r"\$limit"):
        tp.transpile("SELECT 1 WHERE 2 > $limit", {}, "clickhouse")


def test_each_rule_is_parsed_once():
    tree = tp.parse("SELECT 1 AS a", key="sha-x")
    assert tp.parse("SELECT 1 AS a", key="sha-x") is tree
    tp.transpile("SELECT $v AS a", {"v": 1}, "clickhouse", key="sha-y")
    tp.transpile("SELECT $v AS a", {"v": 2}, "clickhouse", key="sha-y")
    assert tp.parse("SELECT $v AS a", key="sha-y").find(tp.exp.Placeholder) is not None  # cache not mutated


# ---- DuckDB functions sqlglot does not carry over ---------------------------------------------

DOCS = [
    '{"a": "x", "n": 5, "f": 1.5, "z": null, "o": {"b": "中文"}, "l": ["p", "q"], "t": true, "e": ""}',
    '{"missing_items": [], "is_ready": "true"}',
    '{"missing_items": ["x"], "errors_found": [{"k": 1}]}',
    "{}",
]
PATHS = ["$.a", "$.n", "$.f", "$.z", "$.o", "$.o.b", "$.l", "$.l[0]", "$.l[1]", "$.t", "$.e", "$.nope",
         "$.missing_items", "$.missing_items[0]", "$.errors_found[0]", "$.is_ready"]


def _docs_sql() -> str:
    return " UNION ALL ".join(f"SELECT {i} AS i, {tp.exp.Literal.string(d).sql('duckdb')} AS doc"
                              for i, d in enumerate(DOCS))


def test_json_extract_string_means_the_same_on_clickhouse(ch):
    cols = ", ".join(f"json_extract_string(doc, '{p}') AS c{j}" for j, p in enumerate(PATHS))
    sql = f"SELECT i, {cols} FROM ({_docs_sql()}) d ORDER BY i"
    assert ch_rows(ch, tp.transpile(sql, {}, "clickhouse")) == duck_rows(sql)


def test_json_path_held_in_a_column(ch):
    paths = ['$."a"', '$."o"."b"', '$."n"', '$."nope"', '$."l"']
    path_sql = " UNION ALL ".join(f"SELECT {tp.exp.Literal.string(p).sql('duckdb')} AS path" for p in paths)
    sql = (f"SELECT d.i, p.path, json_extract_string(d.doc, p.path) AS v, "
           f"TRY_CAST(json_extract_string(d.doc, p.path) AS DOUBLE) AS num "
           f"FROM ({_docs_sql()}) d CROSS JOIN ({path_sql}) p ORDER BY d.i, p.path")
    assert ch_rows(ch, tp.transpile(sql, {}, "clickhouse")) == duck_rows(sql)


def test_correlated_subquery_over_the_same_table_keeps_its_correlation(ch):
    # ClickHouse would bind the inner `w.seq` to the subquery's own `w g` without the rewrite.
    sql = """WITH w AS (SELECT * FROM (VALUES ('a', 1, 'failed'), ('a', 3, 'good'), ('b', 1, 'failed'))
                        AS v(task_id, seq, outcome))
             SELECT w.task_id, w.seq,
                    CASE WHEN EXISTS (SELECT 1 FROM w g WHERE g.task_id = w.task_id AND g.seq > w.seq
                                      AND g.outcome = 'good') THEN 1 ELSE 0 END AS recovered
             FROM w ORDER BY w.task_id, w.seq"""
    assert duck_rows(sql) == [("a", 1, 1), ("a", 3, 0), ("b", 1, 0)]
    assert ch_rows(ch, tp.transpile(sql, {}, "clickhouse")) == [("a", 1, 1), ("a", 3, 0), ("b", 1, 0)]


def test_qualified_columns_keep_their_plain_name_for_outer_queries(ch):
    sql = """WITH c AS (SELECT t.id, t.x FROM (SELECT 1 AS id, 'p' AS x) t)
             SELECT id, c.x FROM c"""
    assert ch_rows(ch, tp.transpile(sql, {}, "clickhouse")) == duck_rows(sql) == [(1, "p")]


def test_try_cast_and_json_valid(ch):
    sql = ("SELECT TRY_CAST('abc' AS DOUBLE) AS a, TRY_CAST('2.5' AS DOUBLE) AS b, json_valid('{\"a\": 1}') AS c, "
           "json_valid('no') AS d")
    got = ch_rows(ch, tp.transpile(sql, {}, "clickhouse"))[0]
    assert (got[0], got[1], bool(got[2]), bool(got[3])) == duck_rows(sql)[0] == (None, 2.5, True, False)


# ---- runs ------------------------------------------------------------------------------------

CANONICAL = [
    '{"record": "task", "task_id": "t1", "user_id": "u1", "conversation_id": "c1", "status": "running", '
    '"started_at": "2026-11-20T08:00:00Z"}',
    '{"record": "step", "task_id": "t1", "seq": 1, "tool": "create_reminder", "status": "success", '
    '"verified": false, "attempts": 1, "detail": "写入后未读到", "started_at": "2026-11-20T08:00:01Z"}',
]


@pytest.fixture
def small_db(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(CANONICAL) + "\n", "utf-8")
    path = str(tmp_path / "w.duckdb")
    ingest([str(src)], path, progress=False)
    con = db.connect(path)
    yield con, tmp_path
    con.close()


def _rule(dir_: Path, name: str, body: str, extra_header: str = "") -> Path:
    p = dir_ / f"{name}.sql"
    p.write_text(f'-- id = "{name}"\n-- title = "t"\n-- severity = "warn"\n-- message = "m"\n{extra_header}{body}\n',
                 "utf-8")
    return p


def test_a_rule_that_fails_on_the_engine_is_recorded_and_the_others_still_run(small_db):
    con, tmp = small_db
    rules = tmp / "rules"
    rules.mkdir()
    _rule(rules, "uses_hamming", "SELECT task_id FROM tasks WHERE hamming(task_id, 'xx') = 0")
    result = run_rules_on("chdb", con, now=NOW, rules_dir=rules, rule_ids=["uses_hamming", "verified_false",
                                                                            "stuck_running"])
    failed = dict(result.failed)
    assert set(failed) == {"uses_hamming"}
    assert "chdb" in failed["uses_hamming"] and "hamming" in failed["uses_hamming"]
    assert result.counts()["verified_false"] == 1 and result.counts()["stuck_running"] == 1
    stored = con.execute("SELECT engine, failed_rules FROM rule_runs WHERE run_id = ?", [result.run_id]).fetchall()
    assert stored[0][0] == "chdb" and "uses_hamming" in stored[0][1]
    duck = run_rules_on("duckdb", con, now=NOW, rules_dir=rules, rule_ids=["uses_hamming"])
    assert duck.failed == [] and duck.counts()["uses_hamming"] == 0


def test_override_file_replaces_the_transpiled_rule(tmp_path):
    path = _rule(tmp_path, "my_rule", "SELECT task_id FROM tasks WHERE total_steps > $limit",
                 "-- [params]\n-- limit = 3\n")
    (tmp_path / "my_rule.clickhouse.sql").write_text(
        "SELECT task_id FROM tasks WHERE total_steps > $limit AND positionUTF8(goal, '提醒') > 0\n", "utf-8")
    rule = load_rule_file(path)
    plan = plan_run(None, None, None, NOW)
    plan.params[rule.id] = {"limit": 3}
    plan.severity[rule.id] = "warn"
    sql = engine_sql(rule, plan, "clickhouse", "clickhouse")
    assert "positionUTF8" in sql and "> 3" in sql and "$limit" not in sql
    plain = engine_sql(rule, plan, "spark", "spark")  # no spark override: transpiled
    assert "positionUTF8" not in plain and "> 3" in plain


def test_result_columns_are_normalised_to_duckdb_types(small_db):
    con, tmp = small_db
    rules = tmp / "rules"
    rules.mkdir()
    # a boolean, a count (UInt64 in ClickHouse), a JSON column and a timestamp
    _rule(rules, "typed", "SELECT t.task_id, t.status = 'running' AS is_running, count(*) AS n, "
                          "any_value(s.args) AS args, max(s.started_at) AS last_step "
                          "FROM tasks t JOIN steps s ON s.task_id = t.task_id GROUP BY t.task_id, t.status")
    rows = {}
    for eng in ("duckdb", "chdb"):
        run_rules_on(eng, con, now=NOW, rules_dir=rules, rule_ids=["typed"], store=False)
        rows[eng] = con.execute("SELECT CAST(evidence AS VARCHAR), event_time FROM _ta_stage").fetchall()
    assert rows["duckdb"] == rows["chdb"]
    assert '"is_running":true' in rows["chdb"][0][0] and '"n":1' in rows["chdb"][0][0]


def test_clickhouse_needs_a_url_and_unknown_engines_are_named():
    with pytest.raises(EngineUnavailable, match="--clickhouse-url"):
        open_engine("clickhouse", None)
    with pytest.raises(EngineUnavailable, match="duckdb, clickhouse, chdb, spark"):
        open_engine("oracle")
