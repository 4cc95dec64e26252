"""The users and conversations views: one user's turns over time with each turn's verdict (the
rules' outcome, as Investigate words it), a conversation's messages in order with their turn."""

from __future__ import annotations

from pathlib import Path

import duckdb

from test_dashboard_pages import W47, app, sample_db  # noqa: F401 - the session fixture


TAU = Path(__file__).parent / "fixtures" / "real" / "tau_airline" / "gpt-4o-airline.first20.json"


def _table(at, column):
    return next(d.value for d in at.dataframe if column in d.value.columns)


def test_a_users_turns_carry_the_verdict_of_their_kind(monkeypatch, sample_db):  # noqa: F811
    con = duckdb.connect(sample_db, read_only=True)
    user, task, kind = con.execute(
        "SELECT user_id, task_id, evidence->>'kind' FROM findings WHERE rule_id = 'said_but_not_done' "
        "AND evidence->>'kind' = 'not_created' AND task_id IS NOT NULL ORDER BY task_id LIMIT 1").fetchall()[0]
    n = con.execute("SELECT count(*) FROM tasks WHERE user_id = ?", [user]).fetchone()[0]
    orphans = con.execute("SELECT count(*) FROM findings WHERE rule_id = 'said_but_not_done' AND task_id IS NULL "
                          "AND user_id = ? AND run_id = (SELECT max(run_id) FROM rule_runs)", [user]).fetchone()[0]
    con.close()
    at = app(monkeypatch, sample_db, "users", user=user, **W47)
    table = _table(at, "verdict")
    assert len(table) == n + orphans  # all of the user's history, not only the period
    row = table[table["task_id"] == task].iloc[0]
    assert row["verdict"] == "not created — the reply claimed success"
    assert f"turn={task}" in row["open"]
    assert (table["verdict"] == "done").any() or (table["verdict"] == "nothing to save").any()


def test_a_conversation_reads_in_order_with_its_turns(monkeypatch, tmp_path):
    from trace_audit.ingest.load.loader import ingest
    from trace_audit.queries.engine import run_rules
    from trace_audit.queries.warehouse import db

    path = str(tmp_path / "tau.duckdb")
    ingest([str(TAU)], path, progress=False)
    con = db.connect(path)
    run_rules(con)
    con.close()
    at = app(monkeypatch, path, "conversations", conv="tau:airline:5:0")
    msgs = _table(at, "position")
    assert msgs["position"].tolist() == sorted(msgs["position"].tolist()) and len(msgs) > 10
    turns = _table(at, "verdict")
    assert turns["task_id"].tolist() == ["tau:airline:5:0"]
