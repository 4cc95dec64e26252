"""Every dashboard page rendered with Streamlit's AppTest on the sample month, checking
the numbers shown against the warehouse itself (not just that the page rendered)."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from dashboard_support import TZ, build_sample_db, shown
from trace_audit.dashboard.serve import app_path

W47 = {"from": "2026-11-16", "to": "2026-11-22"}
# The period's bounds in UTC (Asia/Shanghai is UTC+8, no daylight saving).
SINCE, UNTIL = "2026-11-15 16:00:00+00", "2026-11-22 16:00:00+00"


@pytest.fixture(scope="session")
def sample_db(tmp_path_factory) -> str:
    work = tmp_path_factory.mktemp("dashboard")
    path = str(work / "sample.duckdb")
    build_sample_db(path, work)
    return path


@pytest.fixture(scope="session")
def latest_run(sample_db) -> str:
    con = duckdb.connect(sample_db, read_only=True)
    try:
        return con.execute("SELECT run_id FROM rule_runs ORDER BY started_at DESC, run_id DESC LIMIT 1").fetchall()[0][0]
    finally:
        con.close()


def scalar(path: str, sql: str, params=()) -> int:
    con = duckdb.connect(path, read_only=True)
    try:
        con.execute("SET TimeZone = 'UTC'")
        return con.execute(sql, list(params)).fetchall()[0][0]
    finally:
        con.close()


def param(at: AppTest, name: str) -> str:
    """A query parameter the page set (AppTest before Streamlit 1.5x holds each as a list of one)."""
    v = at.query_params[name]
    return v[-1] if isinstance(v, list) else v


def app(monkeypatch, db: str, page: str | None = None, **params) -> AppTest:
    monkeypatch.setenv("TRACE_AUDIT_DB", db)
    monkeypatch.setenv("TRACE_AUDIT_TZ", TZ)
    at = AppTest.from_file(app_path(), default_timeout=30)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    if page:
        at.switch_page(f"views/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def metric(at: AppTest, label: str) -> str:
    for m in at.metric:
        if m.label == label:
            return m.value
    raise AssertionError(f"no metric {label!r}; have {[m.label for m in at.metric]}")


def number(text: str) -> int:
    return int(text.replace(",", ""))


def texts(at: AppTest) -> str:
    parts = [e.value for kind in ("markdown", "caption", "info", "warning", "error", "success", "title", "subheader")
             for e in getattr(at, kind)]
    return "\n".join(shown(str(p)) for p in parts)


def test_overview_numbers_match_warehouse(monkeypatch, sample_db, latest_run):
    at = app(monkeypatch, sample_db, **W47)
    turns = scalar(sample_db, "SELECT count(*) FROM tasks WHERE started_at >= ?::TIMESTAMPTZ AND started_at < ?::TIMESTAMPTZ",
                   (SINCE, UNTIL))
    incidents = scalar(sample_db, "SELECT count(*) FROM findings WHERE run_id = ? AND rule_id = 'said_but_not_done' "
                       "AND event_time >= ?::TIMESTAMPTZ AND event_time < ?::TIMESTAMPTZ", (latest_run, SINCE, UNTIL))
    vf = scalar(sample_db, "SELECT count(*) FROM steps s JOIN tasks t USING (task_id) WHERE s.verified = false "
                "AND t.started_at >= ?::TIMESTAMPTZ AND t.started_at < ?::TIMESTAMPTZ", (SINCE, UNTIL))
    assert turns > 0 and incidents > 0 and vf > 0
    assert number(metric(at, "Turns")) == turns
    assert number(metric(at, "Said but not done")) == incidents
    assert number(metric(at, "verified=false")) == vf
    assert metric(at, "Worst tool") != "—"
    # "what changed" names the tool whose verified=false rate jumped in the incident week
    assert "create_reminder: verified=false rate" in texts(at)
    # the filters are in the URL, so the view can be shared
    assert param(at, "from") == "2026-11-16" and param(at, "to") == "2026-11-22"


def test_incident_count_equals_findings(monkeypatch, sample_db, latest_run):
    at = app(monkeypatch, sample_db, "incidents", **W47)
    expected = scalar(sample_db, "SELECT count(*) FROM findings WHERE run_id = ? AND rule_id = 'said_but_not_done' "
                      "AND event_time >= ?::TIMESTAMPTZ AND event_time < ?::TIMESTAMPTZ", (latest_run, SINCE, UNTIL))
    assert number(metric(at, "Incidents")) == expected
    by_kind = [m for m in at.metric if m.label != "Incidents"]
    assert sum(number(m.value) for m in by_kind) == expected
    assert {m.label for m in by_kind} <= {"not executed", "failed", "unverified", "not created", "partial", "unknown"}
    assert len(at.dataframe[0].value) == expected  # the table lists them all (fewer than the 500 cap)


def test_agent_version_filter_narrows_incidents(monkeypatch, sample_db, latest_run):
    at = app(monkeypatch, sample_db, "incidents", version="2.4.0", **W47)
    expected = scalar(sample_db, "SELECT count(*) FROM findings f JOIN tasks t USING (task_id) WHERE f.run_id = ? "
                      "AND f.rule_id = 'said_but_not_done' AND t.agent_version = '2.4.0' "
                      "AND f.event_time >= ?::TIMESTAMPTZ AND f.event_time < ?::TIMESTAMPTZ", (latest_run, SINCE, UNTIL))
    assert expected > 0
    assert number(metric(at, "Incidents")) == expected
    assert param(at, "version") == "2.4.0"


def test_patterns_page_groups_and_flags(monkeypatch, sample_db):
    at = app(monkeypatch, sample_db, "patterns", **W47)
    vf = scalar(sample_db, "SELECT count(*) FROM steps s JOIN tasks t USING (task_id) WHERE s.verified = false "
                "AND t.started_at >= ?::TIMESTAMPTZ AND t.started_at < ?::TIMESTAMPTZ", (SINCE, UNTIL))
    assert number(metric(at, "verified=false steps")) == vf
    table = at.dataframe[0].value
    assert table["steps"].sum() == vf  # every verified=false step lands in exactly one group
    mismatch = table[table["fingerprint"].str.startswith("read-back mismatch: remind_at differs")]
    assert len(mismatch) == 1, "the incident's read-back errors must collapse into one fingerprint"
    assert mismatch["tool"].iloc[0] == "create_reminder"
    assert "<n>" in mismatch["fingerprint"].iloc[0]


def test_stuck_page_matches_stuck_rule(monkeypatch, sample_db, latest_run):
    at = app(monkeypatch, sample_db, "stuck", **W47)
    rule = scalar(sample_db, "SELECT count(*) FROM findings WHERE run_id = ? AND rule_id = 'stuck_running'", (latest_run,))
    running = scalar(sample_db, "SELECT count(*) FROM tasks WHERE status = 'running'")
    shown = number(metric(at, "Stuck now"))
    assert shown == running  # the sample month ended long before the rule run: every running turn is stuck
    if rule:
        assert shown == rule


def test_trends_flag_create_reminder_with_the_test_named(monkeypatch, sample_db):
    at = app(monkeypatch, sample_db, "trends", **W47)
    flags = [shown(e.value) for e in at.error]
    assert any(f.startswith("create_reminder: verified=false rate") for f in flags), flags
    assert any("Fisher's exact test, Benjamini-Hochberg adjusted across tools and measures, q < 0.01, at least 30 calls"
               in c.value for c in at.caption)


def test_investigate_opens_an_incident_with_a_verdict(monkeypatch, sample_db, latest_run):
    con = duckdb.connect(sample_db, read_only=True)
    task, = con.execute("SELECT task_id FROM findings WHERE run_id = ? AND rule_id = 'said_but_not_done' "
                        "AND (evidence->>'kind') = 'unverified' AND task_id IS NOT NULL ORDER BY task_id LIMIT 1",
                        [latest_run]).fetchall()[0]
    n_steps = con.execute("SELECT count(*) FROM steps WHERE task_id = ?", [task]).fetchall()[0][0]
    con.close()
    at = app(monkeypatch, sample_db, "investigate", task=task, **W47)
    errors = " ".join(shown(e.value) for e in at.error)
    assert "Verdict: unverified — the reply claimed success" in errors
    body = texts(at)
    assert "What a correct system should have replied" in body
    assert f"Turn {task}" in body
    steps_table = [d.value for d in at.dataframe if "seq" in d.value.columns][0]
    assert len(steps_table) == n_steps


def test_investigate_text_search_is_a_bound_value(monkeypatch, sample_db):
    # A quote and SQL in the box are just text to look for: no error, no match.
    at = app(monkeypatch, sample_db, "investigate", q="x' OR 1=1 --", all="1", **W47)
    assert any("No turn matches" in w.value for w in at.warning)


def test_weekly_review_names_tool_and_version(monkeypatch, sample_db):
    at = app(monkeypatch, sample_db, "weekly", week="2026-W47", **W47)
    jumps = " ".join(shown(e.value) for e in at.error)
    assert "create_reminder" in jumps and "agent version 2.4.0" in jumps
    assert [b.label for b in at.button][-2:] == ["Markdown report", "HTML report (self-contained)"]


def test_rules_page_counts_findings(monkeypatch, sample_db, latest_run):
    at = app(monkeypatch, sample_db, "rules", **W47)
    expected = scalar(sample_db, "SELECT count(*) FROM findings WHERE run_id = ? AND (event_time IS NULL OR "
                      "(event_time >= ?::TIMESTAMPTZ AND event_time < ?::TIMESTAMPTZ))", (latest_run, SINCE, UNTIL))
    assert number(metric(at, "Findings in period")) == expected


def test_missing_database_is_a_friendly_note(monkeypatch, tmp_path):
    at = app(monkeypatch, str(tmp_path / "nothing.duckdb"))
    assert any("trace-audit ingest" in i.value for i in at.info)


def test_empty_database_says_what_to_run(monkeypatch, tmp_path):
    from trace_audit.queries.warehouse import db

    path = str(tmp_path / "empty.duckdb")
    db.connect(path).close()
    at = app(monkeypatch, path)
    assert any("no agent turns yet" in i.value for i in at.info)


def test_no_rule_run_yet(monkeypatch, tmp_path):
    from trace_audit.ingest.load.loader import ingest

    path = str(tmp_path / "norules.duckdb")
    line = ('{"record": "task", "task_id": "t1", "user_id": "u1", "started_at": "2026-11-16T09:00:00Z", '
            '"status": "success"}\n')
    (tmp_path / "one.jsonl").write_text(line)
    ingest([str(tmp_path / "one.jsonl")], path, progress=False)
    at = app(monkeypatch, path, "incidents")
    assert any("trace-audit rules run" in i.value for i in at.info)


def test_busy_database_is_a_note_not_a_traceback(monkeypatch, tmp_path):
    from trace_audit.queries.warehouse import db

    path = str(tmp_path / "busy.duckdb")
    db.connect(path).close()
    holder = subprocess.Popen([sys.executable, "-c", (
        "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('ready', flush=True); time.sleep(60)"), path],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        t0 = time.monotonic()
        at = app(monkeypatch, path)
        assert any("being written by another process" in w.value for w in at.warning)
        assert time.monotonic() - t0 < 20
    finally:
        holder.kill()
        holder.wait()
