"""The zone naive times were read in is stored with each file, and when nobody named one (no --tz,
no $TRACE_AUDIT_TZ) `ingest` and the dashboard say plainly that they were read as UTC."""

from __future__ import annotations

import json

import duckdb
import pytest

from trace_audit.cli.main import main
from trace_audit.ingest.read.naive_times import sniff
from trace_audit.queries.warehouse import db

NAIVE = {"record": "task", "task_id": "t1", "status": "running", "started_at": "2026-11-20 08:00:00"}
AWARE = {"record": "task", "task_id": "t2", "status": "running", "started_at": "2026-11-20T08:00:00+08:00"}


def _files(path: str) -> list[tuple]:
    con = duckdb.connect(path, read_only=True)
    try:
        return con.execute("SELECT path, tz, tz_source, naive_times FROM ingest_files ORDER BY path").fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("text, naive", [
    (b'"2026-11-20 08:00:00"', True), (b'"2026-11-20T08:00:00.123"', True), (b"2026-11-20 08:00,x\n", True),
    (b'"2026-11-20T08:00:00Z"', False), (b'"2026-11-20T08:00:00.5+08:00"', False), (b'"2026-11-20"', False),
    (b'{"startTimeUnixNano": "1763625600000000000"}', False)])
def test_sniff(text, naive):
    assert sniff(text) is naive


def test_naive_times_read_as_utc_by_default_are_stored_and_said(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("TRACE_AUDIT_TZ", raising=False)
    (tmp_path / "naive.jsonl").write_text(json.dumps(NAIVE) + "\n")
    (tmp_path / "aware.jsonl").write_text(json.dumps(AWARE) + "\n")
    path = str(tmp_path / "w.duckdb")
    assert main(["ingest", str(tmp_path / "naive.jsonl"), str(tmp_path / "aware.jsonl"), "--db", path,
                 "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert f"note: {tmp_path / 'naive.jsonl'} holds times without a UTC offset; they were read as UTC" in err
    assert "aware.jsonl" not in err
    assert _files(path) == [(str(tmp_path / "aware.jsonl"), "UTC", "default", False),
                            (str(tmp_path / "naive.jsonl"), "UTC", "default", True)]


def test_a_file_whose_records_were_all_quarantined_is_not_named(tmp_path, capsys, monkeypatch):
    """Its naive times were never read (nothing was stored), so the note would mislead; a file beside it
    that stored naive times is still named."""
    monkeypatch.delenv("TRACE_AUDIT_TZ", raising=False)
    labels = [{"trace_id": "x1", "annotations": [], "created": "2026-11-20 08:00:00"}]  # no trace format
    (tmp_path / "labels.json").write_text(json.dumps(labels))
    (tmp_path / "naive.jsonl").write_text(json.dumps(NAIVE) + "\n")
    path = str(tmp_path / "w.duckdb")
    assert main(["ingest", str(tmp_path / "labels.json"), str(tmp_path / "naive.jsonl"), "--db", path,
                 "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert f"note: {tmp_path / 'naive.jsonl'} holds times without a UTC offset" in err
    assert "labels.json holds" not in err and "more file(s)" not in err
    assert [(p.rsplit("/", 1)[-1], naive) for p, _, _, naive in _files(path)] == [
        ("labels.json", False), ("naive.jsonl", True)]


@pytest.mark.parametrize("how", ["--tz", "env"])
def test_a_named_zone_is_stored_and_nothing_is_said(tmp_path, capsys, monkeypatch, how):
    (tmp_path / "naive.jsonl").write_text(json.dumps(NAIVE) + "\n")
    path = str(tmp_path / "w.duckdb")
    argv = ["ingest", str(tmp_path / "naive.jsonl"), "--db", path, "--no-progress", "--json"]
    if how == "--tz":
        argv += ["--tz", "Asia/Shanghai"]
    else:
        monkeypatch.setenv("TRACE_AUDIT_TZ", "Asia/Shanghai")
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "note:" not in err
    source = "--tz" if how == "--tz" else "$TRACE_AUDIT_TZ"
    f = json.loads(out)["files"][0]
    assert (f["tz"], f["tz_source"], f["naive_times"]) == ("Asia/Shanghai", source, True)
    assert _files(path) == [(str(tmp_path / "naive.jsonl"), "Asia/Shanghai", source, True)]
    con = duckdb.connect(path, read_only=True)
    assert con.execute("SELECT started_at FROM tasks").fetchall()[0][0].isoformat().startswith("2026-11-20T00:00:00")
    con.close()


def test_an_older_warehouse_gets_the_columns_and_old_rows_stay_null(tmp_path):
    path = str(tmp_path / "old.duckdb")
    con = duckdb.connect(path)
    con.execute("CREATE TABLE ingest_files (path VARCHAR NOT NULL, sha256 VARCHAR NOT NULL, size_bytes BIGINT, "
                "format VARCHAR, tasks BIGINT, steps BIGINT, messages BIGINT, audit_logs BIGINT, errors BIGINT, "
                "ingested_at TIMESTAMPTZ)")
    con.execute("INSERT INTO ingest_files (path, sha256) VALUES ('before.jsonl', 'x')")
    con.close()
    db.connect(path).close()
    assert _files(path) == [("before.jsonl", None, None, None)]


def test_the_dashboard_says_so_in_a_caption(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from trace_audit.dashboard.serve import app_path

    monkeypatch.delenv("TRACE_AUDIT_TZ", raising=False)
    (tmp_path / "naive.jsonl").write_text(json.dumps(NAIVE) + "\n")
    path = str(tmp_path / "w.duckdb")
    assert main(["ingest", str(tmp_path / "naive.jsonl"), "--db", path, "--no-progress"]) == 0
    monkeypatch.setenv("TRACE_AUDIT_DB", path)
    at = AppTest.from_file(app_path(), default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    captions = [c.value for c in at.caption]
    assert any("1 loaded file(s)" in c and "read as UTC because no zone was given" in c for c in captions), captions
