"""Issue 15: `explain` and the investigate page show, per claimed action and value, what was told,
what was written and what was read back or stored (queries/claims_report.py, one function for both).

The hand-made turn is the tau-bench shape: the reply says the reservation was upgraded to economy
class and two checked bags were added; the one write (update_reservation_flights) returned cabin
basic_economy, and no baggage tool was ever called."""

from __future__ import annotations

import dataclasses

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from test_dashboard_verdict import _investigate, _warehouse
from trace_audit.cli.main import main
from trace_audit.ingest.load.loader import ingest
from trace_audit.queries.claims_report import claims_report
from trace_audit.queries.engine import execute_plan, plan_run
from trace_audit.queries.warehouse import db

AIRLINE = Path(__file__).resolve().parent / "fixtures" / "real" / "tau_airline" / "gpt-4o-airline.first20.json"
NOW = "2026-12-01T00:00:00Z"
ASKED = "Please upgrade reservation ZFA04Y to economy class and add two checked bags"
REPLY = "Your reservation has been upgraded to economy class, and two checked bags have been added."


@pytest.fixture(scope="module")
def cabin_db(tmp_path_factory) -> str:
    step = {"seq": 1, "tool": "update_reservation_flights", "status": "success", "verified": True,
            "args": {"reservation_id": "ZFA04Y", "cabin": "economy"},
            "result": {"reservation_id": "ZFA04Y", "cabin": "basic_economy"}}
    # task t1: the request (m1), one write, the reply (m2); ingested and the rules run
    return _warehouse(tmp_path_factory.mktemp("claims"), [step], REPLY, goal=ASKED)


def _section(out: str) -> list[list[str]]:
    lines = out.splitlines()
    start = lines.index("--- Claims ---")
    end = lines.index("--- Steps ---")
    return [[c.strip() for c in line.split("|")] for line in lines[start + 1:end]]


def test_explain_prints_each_claim_and_value_told_written_and_stored(cabin_db, capsys):
    assert main(["explain", "t1", "--db", cabin_db, "--now", NOW]) == 0
    rows = _section(capsys.readouterr().out)
    assert ["m2", "update reservation", '"Your reservation has been upgraded to economy class"',
            "update_reservation_flights #1"] in rows
    assert ["m2", "create bag", '"and two checked bags have been added"', "none"] in rows
    told = rows.index(["Values told (each against the write behind its claim):"])
    assert rows[told + 1] == ["field", "told", "written", "read back / stored (from)", "verdict", "write", "reply"]
    assert rows[told + 2] == ["cabin", "economy class", "economy", "basic_economy (from result)", "MISMATCH",
                              "update_reservation_flights #1", "m2"]
    asked = rows.index(["Asked vs done (the user's request against the write's arguments):"])
    assert ["cabin", "economy class", "economy", "match", "update_reservation_flights #1"] in rows[asked + 2:]


def test_explain_of_a_stored_run_still_shows_the_claims_live(cabin_db, capsys):
    assert main(["explain", "t1", "--db", cabin_db, "--run", "latest"]) == 0
    out = capsys.readouterr().out
    assert "--- Claims --- (evaluated live, not from the run)" in out
    assert ["m2", "create bag", '"and two checked bags have been added"', "none"] in _section(
        out.replace(" (evaluated live, not from the run)", ""))


def _keeping_matches():
    # a rules run keeps only the values that disagree; a turn's report keeps them all
    return dataclasses.replace(plan_run(None), value_matches=True)


def test_the_page_and_explain_read_the_same_rows(cabin_db):
    # The page builds the turn model for the one conversation on a cursor of a read-only
    # connection; explain reads the live run's tables. Both go through claims_report.
    con = db.connect(cabin_db, read_only=True)
    try:
        scoped = claims_report(con, "t1")
        execute_plan(con, _keeping_matches(), store=False)
        live = claims_report(con, "t1", model_ready=True)
    finally:
        con.close()
    assert scoped.error is None and (scoped.actions, scoped.told, scoped.asked) == (live.actions, live.told, live.asked)
    assert [a["backed_by"] for a in scoped.actions] == ["update_reservation_flights #1", "none"]


def _table_with(at: AppTest, column: str) -> list[dict]:
    """The rows of the one static table with `column`, as the text they show (cells are escaped
    Markdown: md() backslash-escapes every punctuation mark)."""
    frames = [t.value for t in at.table if column in t.value.columns]
    assert len(frames) == 1, [list(t.value.columns) for t in at.table]
    return [{k: str(v).replace("\\", "") for k, v in r.items()} for r in frames[0].to_dict("records")]


def test_the_investigate_page_shows_each_claim_and_value(monkeypatch, cabin_db):
    at = _investigate(monkeypatch, cabin_db)
    heads = [m.value for m in at.markdown]
    assert "**What the replies claim, and the write behind each claim**" in heads
    assert _table_with(at, "backed by") == [
        {"claimed action": "update reservation", "backed by": "update_reservation_flights #1",
         "clause": "Your reservation has been upgraded to economy class", "reply": "m2"},
        {"claimed action": "create bag", "backed by": "none", "clause": "and two checked bags have been added",
         "reply": "m2"}]
    assert _table_with(at, "told") == [
        {"field": "cabin", "told": "economy class", "written": "economy",
         "read back / stored (from)": "basic_economy (from result)", "verdict": "mismatch", "step": "#1"}]
    assert {"field": "cabin", "asked": "economy class", "written": "economy", "verdict": "match",
            "step": "#1"} in _table_with(at, "asked")
    # stored text is escaped Markdown: the tool name's underscores are not emphasis
    cells = [c for t in at.table for c in t.value.to_numpy().ravel()]
    assert "update\\_reservation\\_flights \\#1" in cells


@pytest.fixture(scope="module")
def tau_db(tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("tau_claims") / "tau.duckdb")
    ingest([str(AIRLINE)], path, tz="UTC", progress=False)  # the real loader, as `trace-audit ingest`
    return path


def test_on_the_real_tau_airline_run_5_the_bags_are_unbacked_and_the_cabin_was_stored_otherwise(tau_db, capsys):
    assert main(["explain", "tau:airline:5:0", "--db", tau_db, "--now", NOW]) == 0
    rows = _section(capsys.readouterr().out)
    reply = "tau:airline:5:0:24"
    assert [reply, "create bag", '"and three checked bags have been added"', "none"] in rows
    assert [reply, "update reservation", '"The reservation has been successfully updated to economy class"',
            "update_reservation_flights #6"] in rows
    assert ["cabin", "economy class", "economy", "basic_economy (from result)", "MISMATCH",
            "update_reservation_flights #6", reply] in rows


def test_one_conversation_judged_alone_reads_as_in_a_full_run(tau_db):
    # The page builds the turn model over the turn's conversation only (stand-in tables on a
    # cursor); on every real airline run that gives the rows a full live run gives.
    con = db.connect(tau_db, read_only=True)
    try:
        ids = [r[0] for r in con.execute("SELECT task_id FROM tasks ORDER BY task_id").fetchall()]
        alone = {t: claims_report(con, t) for t in ids}
        execute_plan(con, _keeping_matches(), store=False)
        for t in ids:
            live = claims_report(con, t, model_ready=True)
            assert alone[t].error is None and (alone[t].actions, alone[t].told, alone[t].asked) == \
                (live.actions, live.told, live.asked), t
        assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE temporary AND table_name = 'steps'"
                           ).fetchall()[0][0] == 0  # the stand-ins never reach the caller's connection
    finally:
        con.close()
    # what the page shows on this file: the six cabin contradictions and the two bag claims no write backs
    assert sorted(t for t, r in alone.items() if any(v["field"] == "cabin" and v["verdict"] == "mismatch"
                                                      for v in r.told)) == \
        [f"tau:airline:{n}:0" for n in (13, 14, 2, 3, 4, 5)]
    assert {t: [a["object"] for a in r.unbacked] for t, r in alone.items() if r.unbacked} == \
        {"tau:airline:3:0": ["bag"], "tau:airline:5:0": ["bag"]}


def test_a_claim_whose_write_was_for_another_shows_unbacked(tmp_path):
    """"Eggs and milk are on your list, and coffee's on there too" over add_item(eggs, milk): the
    report says what said_but_not_done says, coffee unbacked, not backed by that write."""
    fixture = Path(__file__).resolve().parent.parent / "queries" / "rules" / "fixtures" / "said_but_not_done" / \
        "fire_claim_whose_write_was_for_another.jsonl"
    src = tmp_path / "t.jsonl"
    src.write_text("".join(line for line in fixture.read_text("utf-8").splitlines(keepends=True)
                           if '"expect"' not in line), "utf-8")
    path = str(tmp_path / "w.duckdb")
    ingest([str(src)], path, progress=False)
    con = db.connect(path)
    try:
        report = claims_report(con, "t1")
    finally:
        con.close()
    by_clause = {a["clause"]: a for a in report.actions}
    coffee = next(a for c, a in by_clause.items() if "coffee" in c.lower())
    assert coffee["status"] == "taken" and coffee["backed_by"].startswith("none: ") and coffee in report.unbacked
    eggs = next(a for c, a in by_clause.items() if "eggs" in c.lower())
    assert eggs["status"] == "backed" and eggs not in report.unbacked
