"""One `$param` scanner for rules, dashboard queries and transpile: placeholders in comments and
string literals are not parameters (issue 13)."""

from __future__ import annotations

import duckdb

from trace_audit.queries import dashboard_queries as dq
from trace_audit.queries.sql_params import param_uses

SQL = """-- counts above $threshold (this comment names a parameter it does not take)
SELECT count(*) AS n, '$not_a_param' AS label /* nor $this */
FROM range(10) WHERE range >= $since  -- nor $that
"""


def test_the_scanner_skips_comments_and_strings():
    assert param_uses(SQL) == {"since": 3}


def test_a_dashboard_query_binds_only_the_params_its_sql_uses(monkeypatch):
    monkeypatch.setattr(dq, "sql", lambda name: SQL)
    con = duckdb.connect()
    got = dq.run(con, "any", {"since": 7})
    assert got["n"].tolist() == [3] and got["label"].tolist() == ["$not_a_param"]


def test_a_dashboard_stage_binds_only_the_params_its_sql_uses(monkeypatch):
    monkeypatch.setattr(dq, "sql", lambda name: "CREATE TEMP TABLE t AS " + SQL)
    con = duckdb.connect()
    dq.run_stage(con, "any", {"since": 8})
    assert con.execute("SELECT n FROM t").fetchall() == [(2,)]
