"""Undated data is first-class: the real tau-bench airline transcripts (no timestamps at all)
are counted on the Overview, opened by task id in Investigate with the replies in
conversation order (…:2 before …:10), listed on the incident page and searchable."""

from __future__ import annotations

import re

import pytest

from test_dashboard_pages import app, texts
from test_dashboard_people import TAU
from trace_audit.ingest.load.loader import ingest
from trace_audit.queries.engine import run_rules
from trace_audit.queries.warehouse import db


@pytest.fixture(scope="module")
def tau_db(tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("tau") / "tau.duckdb")
    ingest([str(TAU)], path, progress=False)
    con = db.connect(path)
    try:
        assert con.execute("SELECT count(*), count(started_at) FROM tasks").fetchone() == (20, 0)
        run_rules(con)
    finally:
        con.close()
    return path


def test_overview_counts_the_20_undated_turns(monkeypatch, tau_db):
    at = app(monkeypatch, tau_db)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Turns without a time"] == "20"


def test_investigate_opens_the_task_with_replies_in_conversation_order(monkeypatch, tau_db):
    at = app(monkeypatch, tau_db, "investigate", task="tau:airline:5:0")
    body = texts(at)
    assert "Turn tau:airline:5:0" in body
    assert not any("No turn matches" in w.value for w in at.warning)
    conv = next(d.value for d in at.dataframe if "position" in d.value.columns)
    positions = conv["position"].tolist()
    assert positions == sorted(positions) and 10 in positions and 2 in positions
    ids = conv["message_id"].tolist()
    assert ids.index("tau:airline:5:0:2") < ids.index("tau:airline:5:0:10")
    verdicts = [b.value for kind in (at.error, at.warning, at.success) for b in kind if "Verdict:" in b.value]
    assert len(verdicts) == 1


def test_undated_turns_are_found_by_text_and_user(monkeypatch, tau_db):
    import duckdb

    con = duckdb.connect(tau_db, read_only=True)
    user, = con.execute("SELECT user_id FROM tasks WHERE task_id = 'tau:airline:5:0'").fetchone()
    con.close()
    at = app(monkeypatch, tau_db, "investigate", user=user)
    body = texts(at)
    hits = next(d.value for d in at.dataframe if "reply_id" in d.value.columns)
    assert set(hits["task_id"]) == {"tau:airline:4:0", "tau:airline:5:0"}  # undated, yet listed
    assert hits["task_id"].tolist() == ["tau:airline:4:0", "tau:airline:5:0"]  # in source order
    assert re.search(r"tau:airline", body)


def test_undated_writes_are_typed_as_the_rules_type_them(tau_db):
    """tau-bench writes are book_reservation, update_reservation_*, cancel_reservation,
    send_certificate: the undated figure counts them as the rules do, not by name prefix."""
    from datetime import date

    from trace_audit.queries import dashboard_queries as dq
    from trace_audit.queries.outcomes import write_tool_table

    con = db.connect(tau_db, read_only=True)
    try:
        writes = {r["tool"] for r in write_tool_table(con).to_pylist() if r["is_write"]}
        assert {"book_reservation", "cancel_reservation"} <= writes and "get_user_details" not in writes
        want = sum(n for t, n in con.execute("SELECT tool, count(*) FROM steps GROUP BY 1").fetchall()
                   if t in writes)
        run_id = con.execute("SELECT run_id FROM rule_runs").fetchall()[0][0]
        f = dq.Filters(since=date(2026, 11, 2), until=date(2026, 11, 29), run_id=run_id)
        u = dq.run_plan(dq.prepare(con), dq.page_plan("overview", f, now=None))["undated"].iloc[0]
    finally:
        con.close()
    assert int(u["write_steps"]) == want > 0


def test_an_incident_with_no_user_is_listed_with_a_dash_not_nan(monkeypatch, tmp_path):
    """An AG2 group chat records no user id: its incident's link reads "—" where the user goes (it read
    "nan" or "None", a missing value printed, before). The chat is the AG2 golden fixture (a code run
    that failed, told as done), built from the Who&When format."""
    from golden_support import GOLDEN

    path = str(tmp_path / "ww.duckdb")
    ingest([str(GOLDEN / "ag2" / "false_done.json")], path, progress=False)
    con = db.connect(path)
    try:
        run_rules(con)
        assert con.execute("SELECT count(*) FROM findings WHERE rule_id = 'said_but_not_done' "
                           "AND user_id IS NULL").fetchone() == (1,)
    finally:
        con.close()
    at = app(monkeypatch, path, "incidents")
    labels = [str(e.proto.label) for e in at.get("page_link") if "investigate" in str(e.proto.page)]
    assert len(labels) == 1
    parts = labels[0].split(" · ")
    assert parts[2] == "—" and not {"nan", "None"} & set(parts)


def test_the_weekly_report_says_what_its_week_leaves_out(monkeypatch, tau_db, capsys):
    """Undated turns belong to no week: the report and the weekly page say how many there are and
    that their incidents are listed, so "Top incidents (0 this week)" above a list of two no longer
    contradicts itself."""
    from trace_audit.cli.main import main

    con = db.connect(tau_db, read_only=True)
    incidents, = con.execute("SELECT count(*) FROM findings WHERE rule_id = 'said_but_not_done' "
                             "AND event_time IS NULL").fetchone()
    con.close()
    assert incidents == 2
    assert main(["report", "--db", tau_db, "--week", "2026-W49"]) == 0
    out = capsys.readouterr().out
    assert "20 turns have no time" in out and "their 2 said-but-not-done incidents are listed" in out
    assert "## Top incidents (0 this week, and 2 with no time)" in out
    at = app(monkeypatch, tau_db, "weekly", week="2026-W49")
    assert "20 turns have no time" in texts(at)
