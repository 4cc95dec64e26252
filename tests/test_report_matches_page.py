"""The weekly review page and `trace-audit report --week 2026-W47` print the same figures by
default: neither is told a zone, and both count days in the zone the data was ingested in
(ingest_files.tz). They used to disagree (UTC vs the dashboard's zone: 744 vs 748 turns)."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from dashboard_support import build_sample_db
from trace_audit.cli.main import main
from trace_audit.dashboard import report
from trace_audit.dashboard.serve import app_path

WEEK = "2026-W47"


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory) -> str:
    work = tmp_path_factory.mktemp("weekly")
    path = str(work / "sample.duckdb")
    build_sample_db(path, work)
    return path


def page_figures(monkeypatch, db: str) -> dict[str, str]:
    monkeypatch.setenv("TRACE_AUDIT_DB", db)
    monkeypatch.delenv("TRACE_AUDIT_TZ", raising=False)
    at = AppTest.from_file(app_path(), default_timeout=60)
    at.query_params["week"] = WEEK
    at.run()
    at.switch_page("views/weekly.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return {m.label: m.value for m in at.metric}


def report_figures(monkeypatch, db: str, capsys) -> dict[str, tuple[str, str]]:
    monkeypatch.delenv("TRACE_AUDIT_TZ", raising=False)
    assert main(["report", "--week", WEEK, "--db", db]) == 0
    text = capsys.readouterr().out
    table = text.split("## The week against the week before")[1].split("\n## ")[0]
    rows = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0] not in ("measure", "---"):
            rows[cells[0]] = (cells[2], cells[1])  # this week, week before
    return rows, text


def test_weekly_page_and_report_print_the_same_figures(monkeypatch, sample_db, capsys):
    page = page_figures(monkeypatch, sample_db)
    printed, text = report_figures(monkeypatch, sample_db, capsys)
    labels = [label for _, label, _ in report.KPI_ROWS]
    assert set(labels) <= set(page) and set(labels) <= set(printed), (page, printed)
    for label in labels:
        assert page[label] == printed[label][0], (label, page[label], printed[label])
    assert printed["Turns"][0] == "806"  # the week in the zone the sample month was ingested in
    assert "Asia/Shanghai" in text.splitlines()[0]


def test_report_links_open_the_incident_on_the_configured_dashboard(monkeypatch, sample_db, capsys):
    monkeypatch.setenv(report.DASHBOARD_URL_ENV, "https://audit.example.internal/ta")
    monkeypatch.delenv("TRACE_AUDIT_TZ", raising=False)
    assert main(["report", "--week", WEEK, "--db", sample_db]) == 0
    links = re.findall(r"\]\(<([^>]+)>\)", capsys.readouterr().out)
    assert links and all(u.startswith("https://audit.example.internal/ta/investigate?") for u in links)
    assert all("turn=" in u or "reply=" in u for u in links)


def test_rules_page_diff_is_rules_diff(monkeypatch, sample_db, tmp_path, capsys):
    import shutil

    from trace_audit.queries import runs
    from trace_audit.queries.engine import run_rules
    from trace_audit.queries.warehouse import db

    path = str(tmp_path / "two-runs.duckdb")
    shutil.copy(sample_db, path)
    con = db.connect(path)
    try:
        run_rules(con, rule_ids=["said_but_not_done", "stuck_running"])  # a second, narrower run
        a, b, rows = runs.diff(con, *[r[0] for r in con.execute(
            "SELECT run_id FROM rule_runs ORDER BY started_at, run_id").fetchall()])
    finally:
        con.close()
    monkeypatch.setenv("TRACE_AUDIT_DB", path)
    at = AppTest.from_file(app_path(), default_timeout=60)
    at.run()
    at.switch_page("views/rules.py").run()
    assert not at.exception
    shown = [d.value for d in at.dataframe if "resolved" in d.value.columns][0]
    assert shown.to_dict("records") == rows
    assert any(r["resolved"] for r in rows)  # the narrower run resolved the other rules' findings
