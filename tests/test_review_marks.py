"""Review marks (queries/marks.py): kept in a file beside the read-only warehouse, keyed by rule,
task and seq, so they survive re-ingest and rule re-runs; shown in the incident list, in
`trace-audit findings`, and as each rule's precision on the Rules page. A mark is made from
the Investigate page's own form."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from test_dashboard_verdict import DAY, _warehouse
from trace_audit.cli.main import main
from trace_audit.dashboard.serve import app_path
from trace_audit.ingest.load.loader import ingest
from trace_audit.queries import marks
from trace_audit.queries.engine import run_rules
from trace_audit.queries.warehouse import db


def _page(monkeypatch, path: str, page: str, **params) -> AppTest:
    monkeypatch.setenv("TRACE_AUDIT_DB", path)
    monkeypatch.setenv("TRACE_AUDIT_TZ", "UTC")
    at = AppTest.from_file(app_path(), default_timeout=60)
    for k, v in {**DAY, **params}.items():
        at.query_params[k] = v
    at.run()
    at.switch_page(f"views/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_mark_made_in_investigate_survives_reingest_and_rerun(monkeypatch, tmp_path, capsys):
    path = _warehouse(tmp_path, [{"seq": 1, "tool": "create_reminder", "status": "failed", "verified": False,
                                  "error": "DB write timeout"}], "Done, your reminder for 8:00 is set.")
    at = _page(monkeypatch, path, "investigate", turn="t1", reply="m2")
    at.radio[0].set_value("confirmed")
    at.text_area[0].input("user called support; reminder re-created by hand")
    next(b for b in at.button if b.label == "Save mark").click().run()
    assert not at.exception
    assert marks.marks_path(path).exists() and not marks.marks_path(path).samefile(path)

    # re-ingest the same file and run the rules again: new run id, same finding key
    ingest([str(tmp_path / "turn.jsonl")], path, progress=False)
    con = db.connect(path)
    try:
        run_rules(con)
        assert con.execute("SELECT count(*) FROM rule_runs").fetchone()[0] == 2
    finally:
        con.close()

    assert main(["findings", "--db", path, "--rule", "said_but_not_done", "--format", "jsonl"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["task_id"], r["mark"], r["mark_note"]) for r in rows] == [
        ("t1", "confirmed", "user called support; reminder re-created by hand")]

    inc = _page(monkeypatch, path, "incidents")
    table = next(d.value for d in inc.dataframe if "review" in d.value.columns)
    assert table["review"].tolist() == ["confirmed"]

    rules = _page(monkeypatch, path, "rules")
    summary = next(d.value for d in rules.dataframe if "precision" in d.value.columns)
    row = summary[summary["rule_id"] == "said_but_not_done"].iloc[0]
    assert row["confirmed"] == 1 and row["precision"] == 1.0


def test_false_alarms_lower_a_rules_precision_and_a_later_mark_wins(tmp_path):
    path = str(tmp_path / "w.duckdb")
    for key, mark in (("t1", "confirmed"), ("t2", "false_alarm"), ("t3", "handled"), ("t2", "confirmed"),
                      ("t4", "false_alarm")):
        marks.add(path, marks.Mark(rule_id="said_but_not_done", task_key=key, mark=mark))
    current = {m.task_key: m.mark for m in marks.load(path)}
    assert current == {"t1": "confirmed", "t2": "confirmed", "t3": "handled", "t4": "false_alarm"}
    import duckdb

    from trace_audit.queries import dashboard_queries as dq

    con = duckdb.connect()
    dq.prepare(con)
    marks.register(con, path)
    got = dq.run(con, "rule_precision").iloc[0]
    assert (got["marked"], got["false_alarm"], got["precision"]) == (4, 1, 0.75)
