"""The weekly report from the command line, on the sample month."""

from __future__ import annotations

import re

import pytest

from dashboard_support import TZ, build_sample_db
from trace_audit.cli.main import main


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory) -> str:
    work = tmp_path_factory.mktemp("report")
    path = str(work / "sample.duckdb")
    build_sample_db(path, work)
    return path


def test_w47_markdown_names_tool_and_version(sample_db, capsys):
    assert main(["report", "--db", sample_db, "--week", "2026-W47", "--tz", TZ]) == 0
    md = capsys.readouterr().out
    assert md.startswith("# Weekly reliability review 2026-W47 (2026-11-16 – 2026-11-22, Asia/Shanghai)")
    jump = md.split("## Where the verified=false jump started", 1)[1].split("##", 1)[0]
    assert "create_reminder: verified=false rate rose" in jump
    assert "the jump started with agent version 2.4.0" in jump
    assert "first seen 2026-11-16" in jump  # the rollout day of the incident, local time
    # the numbers table compares the week with the one before
    assert re.search(r"\| Said-but-not-done incidents \| [\d,]+ \| [\d,]+ \|", md)


def test_w47_html_is_self_contained(sample_db, tmp_path, capsys):
    out = tmp_path / "w47.html"
    assert main(["report", "--db", sample_db, "--week", "2026-W47", "--tz", TZ, "--out", str(out)]) == 0
    html = out.read_text("utf-8")
    assert "<h2>Where the verified=false jump started</h2>" in html
    assert "create_reminder" in html and "agent version 2.4.0" in html
    # plotly.js is inlined once; nothing is fetched from the network when the file is opened
    assert html.count("Plotly.newPlot") >= 2
    assert not re.search(r"<script[^>]+src=['\"]https?://", html)
    assert "investigate?turn=" in html  # incidents link into the dashboard


def test_quiet_week_has_no_jump(sample_db, capsys):
    assert main(["report", "--db", sample_db, "--week", "2026-W46", "--tz", TZ, "--dashboard-url", ""]) == 0
    md = capsys.readouterr().out
    assert "jump started with agent version" not in md
    assert "investigate?turn=" not in md


def test_without_a_week_the_newest_turns_week_is_reported_and_said(sample_db, capsys):
    """A first try of `trace-audit report` needs no ISO week: it reports the week of the newest turn
    in the report's zone, and says which."""
    from datetime import datetime
    from zoneinfo import ZoneInfo

    import duckdb

    con = duckdb.connect(sample_db, read_only=True)
    newest, = con.execute("SELECT max(started_at) FROM tasks").fetchone()
    con.close()
    year, num, _ = newest.astimezone(ZoneInfo(TZ)).isocalendar()
    week = f"{year}-W{num:02d}"
    assert main(["report", "--db", sample_db, "--tz", TZ, "--dashboard-url", ""]) == 0
    out, err = capsys.readouterr()
    assert f"--week not given: reporting {week}, the week of the newest turn ({TZ})" in err
    assert out.startswith(f"# Weekly reliability review {week} (")
    assert isinstance(newest, datetime) and week != "2026-W47"  # not the week the other tests name


@pytest.mark.parametrize("week, message", [("2026-W99", "has no ISO week 99"), ("last week", "not an ISO week")])
def test_bad_week_is_a_plain_error(sample_db, capsys, week, message):
    assert main(["report", "--db", sample_db, "--week", week]) == 2
    assert message in capsys.readouterr().err


def test_missing_database(tmp_path, capsys):
    assert main(["report", "--db", str(tmp_path / "none.duckdb"), "--week", "2026-W47"]) == 2
    assert "trace-audit ingest" in capsys.readouterr().err
