"""The dashboard's pure parts: error fingerprints, the significance test, filters, the verdict,
and bound parameters (a hostile search string is only ever text)."""

from __future__ import annotations

from datetime import date, datetime, timezone

import duckdb
import pandas as pd
import pytest

from trace_audit.dashboard import analysis
from trace_audit.queries import dashboard_queries as dq
from trace_audit.queries.warehouse import db


@pytest.fixture
def con():
    c = duckdb.connect()
    dq.prepare(c)
    yield c
    c.close()


@pytest.mark.parametrize("a, b", [
    ("read-back mismatch: remind_at differs (expected 2026-11-23 10:00:00, got 2026-11-23 02:00:00)",
     "read-back mismatch: remind_at differs (expected 2026-11-20 14:30:00, got 2026-11-20 06:30:00)"),
    ("read-back: record id=88002 not found", "read-back: record id=123 not found"),
    ("expected 'reply to Jordan's email', got 'x'", "expected 'call mom', got 'call mum'"),
    ("row 550e8400-e29b-41d4-a716-446655440000 locked", "row 123e4567-e89b-12d3-a456-426614174000 locked"),
    ("HikariPool-1 - request timed out after 30000ms.", "HikariPool-2 - request timed out after 5000ms."),
])
def test_fingerprint_groups_variants(con, a, b):
    fa, fb = (con.execute("SELECT error_fingerprint(?)", [x]).fetchone()[0] for x in (a, b))
    assert fa == fb


def test_fingerprint_keeps_different_faults_apart(con):
    got = {con.execute("SELECT error_fingerprint(?)", [x]).fetchone()[0] for x in
           ["not logged in", "permission denied: WRITE", "DB write timeout after 3000ms", None, ""]}
    assert len(got) == 4  # None and '' are the same "(no error text)"
    assert "(no error text)" in got


def test_rise_p_is_fishers_exact_one_sided():
    # 5 of 30 against 0 of 30: the normal approximation said p = 0.0098; exact is 0.0261
    assert analysis.rise_p(5, 30, 0, 30) == pytest.approx(0.02608, abs=5e-5)
    assert analysis.rise_p(60, 240, 5, 250) < 1e-12
    assert analysis.rise_p(5, 250, 5, 250) > 0.5  # no rise
    assert analysis.rise_p(0, 30, 5, 30) == pytest.approx(1.0)  # a fall is no rise
    assert analysis.rise_p(1, 0, 1, 10) == 1.0


def test_small_counts_and_many_tools_are_not_flagged_by_chance():
    rows = [{"tool": "set_alarm", "period": "current", "calls": 30, "checked": 30, "failed": 5,
             "verified_false": 0, "retried": 0, "problems": 5},
            {"tool": "set_alarm", "period": "previous", "calls": 30, "checked": 30, "failed": 0,
             "verified_false": 0, "retried": 0, "problems": 0}]
    compare = pd.DataFrame(rows)
    assert analysis.significant_rises(compare) == []  # p = 0.026, flagged before at 0.0098
    # q: Benjamini-Hochberg over every pair tested (here 3 measures of one tool)
    ps = [analysis.rise_p(5, 30, 0, 30), analysis.rise_p(0, 30, 0, 30), analysis.rise_p(0, 30, 0, 30)]
    assert analysis.fdr_adjusted(ps)[0] == pytest.approx(min(1.0, ps[0] * 3), rel=1e-6)


def test_significant_rises_respects_minimum_calls():
    compare = pd.DataFrame([
        {"tool": "create_reminder", "period": "current", "calls": 400, "checked": 400, "failed": 10,
         "verified_false": 100, "retried": 10, "problems": 110},
        {"tool": "create_reminder", "period": "previous", "calls": 400, "checked": 400, "failed": 10,
         "verified_false": 8, "retried": 10, "problems": 18},
        {"tool": "rare_tool", "period": "current", "calls": 10, "checked": 10, "failed": 9,
         "verified_false": 9, "retried": 0, "problems": 9},
        {"tool": "rare_tool", "period": "previous", "calls": 10, "checked": 10, "failed": 0,
         "verified_false": 0, "retried": 0, "problems": 0},
    ])
    rises = analysis.significant_rises(compare)
    assert [(r.tool, r.measure) for r in rises] == [("create_reminder", "verified_false")]
    assert "2.0% → 25.0%" in rises[0].sentence()
    assert analysis.worst_tool(compare) == ("create_reminder", 110 / 400, 400)


def test_filters_bounds_in_local_time():
    f = dq.Filters(since=date(2026, 11, 16), until=date(2026, 11, 22), tz="Asia/Shanghai")
    p = f.params()
    assert p["since"] == datetime(2026, 11, 15, 16, tzinfo=timezone.utc)
    assert p["until"] == datetime(2026, 11, 22, 16, tzinfo=timezone.utc)
    assert p["prev_since"] == datetime(2026, 11, 8, 16, tzinfo=timezone.utc)
    assert p["tz_offset_s"] == 8 * 3600
    with pytest.raises(ValueError, match="unknown time zone"):
        dq.Filters(since=date(2026, 11, 16), until=date(2026, 11, 22), tz="Mars/Olympus")
    with pytest.raises(ValueError, match="ends"):
        dq.Filters(since=date(2026, 11, 16), until=date(2026, 11, 1))
    assert dq.iso_week_bounds("2026-W47") == (date(2026, 11, 16), date(2026, 11, 22))


def test_search_text_is_bound_not_spliced(tmp_path):
    from trace_audit.ingest.load.loader import ingest

    path = str(tmp_path / "w.duckdb")
    (tmp_path / "t.jsonl").write_text(
        '{"record": "task", "task_id": "t1", "user_id": "u1", "started_at": "2026-11-16T09:00:00Z", '
        '"final_answer": "100% done, it\'s set"}\n'
        '{"record": "task", "task_id": "t2", "user_id": "u2", "started_at": "2026-11-16T10:00:00Z", '
        '"final_answer": "reminder set"}\n')
    ingest([str(tmp_path / "t.jsonl")], path, progress=False)
    con = db.connect(path, read_only=True)
    dq.prepare(con)
    f = dq.Filters(since=date(2026, 11, 16), until=date(2026, 11, 16))

    def search(text):
        return dq.run(con, "search_turns", f.params(user_id=None, conversation_id=None, task_id=None, text=text))

    assert search("x' OR '1'='1").empty
    assert search("'; DROP TABLE tasks; --").empty
    assert search("%").task_id.tolist() == ["t1"]          # % is a character, not a wildcard
    assert search("it's SET").task_id.tolist() == ["t1"]   # quotes and case are fine
    assert con.execute("SELECT count(*) FROM tasks").fetchone()[0] == 2
    con.close()


def test_run_reports_missing_parameters(con):
    with pytest.raises(KeyError, match="needs parameters"):
        dq.run(con, "turn_task", {})


