"""The portability lint names each banned construct with its file, line and the portable form."""

from __future__ import annotations

from pathlib import Path

import pytest

from trace_audit.queries.portable_lint import lint_file, lint_rules, lint_sql
from trace_audit.queries.rulefile import load_rules

HEADER = '-- id = "r"\n-- title = "t"\n-- severity = "warn"\n'

# (construct, SQL with it on line 3 of the body, words the fix must contain)
CASES = [
    ("QUALIFY", "SELECT task_id, seq\nFROM steps\nQUALIFY row_number() OVER (PARTITION BY task_id ORDER BY seq) = 1",
     "row_number"),
    ("DISTINCT ON", "SELECT\n  task_id,\n  (SELECT DISTINCT ON (task_id) seq FROM steps) AS x FROM tasks", "rn = 1"),
    ("regexp_replace", "SELECT task_id\nFROM steps\nWHERE regexp_replace(tool, 'a', 'b') = 'x'", "regexp_matches"),
    ("bool_and", "SELECT task_id\nFROM steps\nGROUP BY task_id HAVING bool_and(verified)", "sum(CASE WHEN"),
    ("bool_or", "SELECT task_id\nFROM steps\nGROUP BY task_id HAVING bool_or(verified)", "sum(CASE WHEN"),
    ("date_trunc", "SELECT task_id\nFROM steps\nWHERE date_trunc('day', started_at) = DATE '2026-11-02'",
     "CAST(ts AS DATE)"),
    ("a regex flags argument", "SELECT task_id\nFROM steps\nWHERE regexp_matches(tool, 'create', 'i')", "(?i)"),
    ("substr/left/right", "SELECT task_id\nFROM steps\nWHERE substr(detail, 1, 3) = '未创建'", "bytes"),
    ("substr/left/right", "SELECT task_id\nFROM steps\nWHERE left(detail, 3) = '未创建'", "bytes"),
    ("round()", "SELECT task_id,\n  1 AS a,\n  round(attempts / 3.0, 2) AS r FROM steps", "round in Python"),
    ("NOT IN (subquery)", "SELECT task_id\nFROM tasks\nWHERE task_id NOT IN (SELECT task_id FROM steps)",
     "NOT EXISTS"),
    ("median/quantile", "SELECT task_id,\n  1 AS a,\n  median(attempts) AS m FROM steps GROUP BY task_id",
     "override"),
    ("median/quantile", "SELECT task_id,\n  1 AS a,\n  quantile_cont(attempts, 0.9) AS m FROM steps GROUP BY task_id",
     "override"),
    ("a lambda", "SELECT task_id,\n  1 AS a,\n  list_filter([1, 2], lambda x: x > 1) AS l FROM steps", "unnest"),
    ("INTERVAL arithmetic", "SELECT task_id\nFROM tasks\nWHERE started_at < $now - INTERVAL 15 MINUTE",
     "date_diff('second'"),
    ("alias 'dur' used in WHERE",
     "SELECT task_id, date_diff('second', started_at, ended_at) AS dur\nFROM steps\nWHERE dur > 5",
     "repeat the expression"),
    ("also a SELECT alias",
     "SELECT task_id, coalesce(error, 'none') AS error\nFROM steps\nWHERE error IS NULL",
     "qualify it"),
    ("SIMILAR TO", "SELECT task_id\nFROM steps\nWHERE tool SIMILAR TO 'create.*'", "regexp_matches"),
]


@pytest.mark.parametrize("construct,body,fix", CASES, ids=[c[0] for c in CASES])
def test_each_banned_construct_is_named_with_file_line_and_fix(tmp_path, construct, body, fix):
    path = tmp_path / "r.sql"
    path.write_text(HEADER + body + "\n", "utf-8")
    problems = lint_file(path)
    hits = [p for p in problems if construct.split(" (")[0].lower() in p.construct.lower()]
    assert hits, f"{construct} not reported; got {[str(p) for p in problems]}"
    first = hits[0]
    assert first.line == 3 + 3  # three header lines, then the construct on line 3 of the body
    text = str(first)
    assert text.startswith(f"{path}:{first.line}: ")
    assert fix in text


def test_strings_and_comments_are_not_flagged(tmp_path):
    body = ("SELECT task_id -- QUALIFY, regexp_replace, round(x) in a comment\n"
            "FROM steps\n"
            "WHERE detail = 'QUALIFY date_trunc bool_and NOT IN (SELECT 1)'")
    path = tmp_path / "r.sql"
    path.write_text(HEADER + body + "\n", "utf-8")
    assert lint_file(path) == []


def test_portable_idioms_pass():
    sql = """WITH last AS (
        SELECT task_id, seq, row_number() OVER (PARTITION BY task_id ORDER BY seq DESC) AS rn FROM steps)
    SELECT t.task_id, CAST(t.started_at AS DATE) AS day, count_if(s.verified = FALSE) AS bad,
           sum(CASE WHEN s.verified = TRUE THEN 1 ELSE 0 END) AS good,
           floor(date_diff('second', t.started_at, $now) / 60) AS minutes,
           TRY_CAST(json_extract_string(s.args, '$.top_k') AS DOUBLE) / NULLIF(count(*), 0) AS ratio
    FROM tasks t JOIN steps s ON s.task_id = t.task_id JOIN last l ON l.task_id = t.task_id AND l.rn = 1
    WHERE regexp_matches(s.tool, '(?i)^create') AND NOT EXISTS (SELECT 1 FROM audit_logs a WHERE a.task_id = t.task_id)
      AND t.status IS DISTINCT FROM 'success' AND s.tool ILIKE 'create%'
    GROUP BY ALL"""
    assert lint_sql(sql, Path("ok.sql")) == []


def test_unparseable_sql_is_a_problem_with_a_line():
    problems = lint_sql("SELECT task_id\nFROM steps\nWHERE (((", Path("bad.sql"), first_line=4)
    assert len(problems) == 1 and "cannot parse" in problems[0].construct and problems[0].line >= 4


def test_builtin_rules_lint_clean_apart_from_known_alias_shadowing():
    # argument_bounds.sql and audit_mismatch.sql name a SELECT expression like the column their WHERE
    # reads (ClickHouse sessions set prefer_column_name_to_alias, so results agree; the lint still
    # asks for the portable spelling). Any other problem in a built-in rule fails here.
    problems = lint_rules(load_rules())
    other = [str(p) for p in problems
             if not ("also a SELECT alias" in p.construct and p.path.name in ("argument_bounds.sql",
                                                                              "audit_mismatch.sql"))]
    assert other == []
