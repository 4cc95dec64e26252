"""Time zones: naive times are read in --tz, explicit offsets and epochs are absolute,
the warehouse holds UTC, and the process's own TZ changes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timezone

import pytest

from test_ingest_support import query, step, task, write_jsonl
from trace_audit.ingest.load.loader import ingest

UTC = timezone.utc


def started(db_path: str) -> dict[str, datetime]:
    return dict(query(db_path, "SELECT task_id, started_at FROM tasks"))


def test_naive_seed004_times_are_read_in_the_given_zone(tmp_path, db_path):
    path = write_jsonl(tmp_path / "t.jsonl", [task(1, create_time="2026-11-08 08:00:00",
                                                    finish_time="2026-11-08 23:30:00")])
    ingest([str(path)], db_path, tz="Asia/Shanghai")
    (s, f), = query(db_path, "SELECT started_at, finished_at FROM tasks")
    assert s == datetime(2026, 11, 8, 0, 0, tzinfo=UTC)
    assert f == datetime(2026, 11, 8, 15, 30, tzinfo=UTC)


def test_default_zone_is_utc(tmp_path, db_path):
    path = write_jsonl(tmp_path / "t.jsonl", [task(1, create_time="2026-11-08 08:00:00")])
    ingest([str(path)], db_path)
    assert started(db_path)["1"] == datetime(2026, 11, 8, 8, 0, tzinfo=UTC)


def test_daylight_saving_is_applied_per_instant(tmp_path, db_path):
    path = write_jsonl(tmp_path / "t.jsonl", [task(1, create_time="2026-07-01 12:00:00"),
                                              task(2, create_time="2026-01-15 12:00:00")])
    ingest([str(path)], db_path, tz="America/New_York")
    assert started(db_path) == {"1": datetime(2026, 7, 1, 16, 0, tzinfo=UTC),
                                "2": datetime(2026, 1, 15, 17, 0, tzinfo=UTC)}


@pytest.mark.parametrize("text, expected", [
    ("2026-11-08T08:00:00+02:00", datetime(2026, 11, 8, 6, 0, tzinfo=UTC)),
    ("2026-11-08T08:00:00Z", datetime(2026, 11, 8, 8, 0, tzinfo=UTC)),
    ("2026-11-08 08:00:00.250-05:00", datetime(2026, 11, 8, 13, 0, 0, 250000, tzinfo=UTC)),
])
@pytest.mark.parametrize("tz", ["UTC", "Asia/Shanghai", "America/Los_Angeles"])
def test_explicit_offsets_win_over_tz(tmp_path, db_path, text, expected, tz):
    path = write_jsonl(tmp_path / "t.jsonl", [task(1, create_time=text)])
    ingest([str(path)], db_path, tz=tz)
    assert started(db_path)["1"] == expected


@pytest.mark.parametrize("value", [1794124800, 1794124800000, 1794124800000000, 1794124800.0, "1794124800"])
def test_epoch_seconds_and_milliseconds(tmp_path, db_path, value):
    path = write_jsonl(tmp_path / "t.jsonl", [task(1, create_time=value)])
    ingest([str(path)], db_path, tz="Asia/Shanghai")  # epochs are absolute: the zone does not apply
    assert started(db_path)["1"] == datetime.fromtimestamp(1794124800, UTC)


def test_fractional_epoch_keeps_sub_second_precision(tmp_path, db_path):
    path = write_jsonl(tmp_path / "t.jsonl", [task(1, create_time=1794124800.25)])
    ingest([str(path)], db_path)
    assert started(db_path)["1"] == datetime.fromtimestamp(1794124800.25, UTC)


@pytest.mark.parametrize("bad", ["NaN", "1e300", "2026-13-45 25:00:00", "08:00"])
def test_impossible_times_are_quarantined_not_crashing(tmp_path, db_path, bad):
    path = write_jsonl(tmp_path / "t.jsonl", [task(1, create_time=bad), task(2)])
    summary = ingest([str(path)], db_path)
    assert summary.files[0].status == "loaded"
    assert list(started(db_path)) == ["2"]
    (reason,), = query(db_path, "SELECT reason FROM ingest_errors")
    assert reason == f"field create_time: expected a timestamp (ISO 8601 or epoch seconds), got '{bad}'"


def test_the_warehouse_shows_utc(tmp_path, db_path):
    path = write_jsonl(tmp_path / "t.jsonl", [step(1, 1, create_time="2026-11-08 08:00:00")])
    ingest([str(path)], db_path, tz="Asia/Shanghai")
    from trace_audit.queries.warehouse import db

    con = db.connect(db_path, read_only=True)
    try:
        assert con.execute("SELECT CAST(started_at AS VARCHAR) FROM steps").fetchall() == [("2026-11-08 00:00:00+00",)]
    finally:
        con.close()


def test_the_process_tz_does_not_change_results(tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", [task(1, create_time="2026-11-08 08:00:00"),
                                              task(2, create_time="2026-11-08T08:00:00+09:00"),
                                              task(3, create_time=1794124800)])
    code = ("import sys; from trace_audit.ingest.load.loader import ingest; "
            "ingest([sys.argv[1]], sys.argv[2], tz='Asia/Shanghai')")
    results = []
    for zone in ("UTC", "America/New_York", "Pacific/Kiritimati"):
        db_path = str(tmp_path / f"{zone.replace('/', '_')}.duckdb")
        subprocess.run([sys.executable, "-c", code, str(path), db_path], check=True,
                       env={**os.environ, "TZ": zone})
        results.append(query(db_path, "SELECT task_id, epoch(started_at) FROM tasks ORDER BY task_id"))
    assert results[0] == results[1] == results[2]
    assert results[0] == [("1", 1794096000.0), ("2", 1794092400.0), ("3", 1794124800.0)]


def test_unknown_zone_is_refused_before_anything_is_written(tmp_path, db_path):
    path = write_jsonl(tmp_path / "t.jsonl", [task(1)])
    with pytest.raises(ValueError, match="unknown time zone 'Mars/Olympus'"):
        ingest([str(path)], db_path, tz="Mars/Olympus")
    assert not os.path.exists(db_path)


# One time-zone system (issue 13). `AET` is a zone name DuckDB's ICU knows and Python's zoneinfo
# does not: it used to load seed-004 dumps and quarantine every seed-001 record with a naive time.
def test_a_zone_only_one_system_knows_is_refused_for_every_reader(tmp_path, db_path):
    seed004 = write_jsonl(tmp_path / "dump.jsonl", [task(1, create_time="2026-11-08 08:00:00")])
    seed001 = tmp_path / "trace.jsonl"
    seed001.write_text(json.dumps({"task_id": "t1", "user_query": "q", "final_answer": "ok", "tool_calls": [
        {"tool_name": "create_reminder", "arguments": {}, "result": {"id": 1},
         "start_time": "2026-11-08 08:00:00", "end_time": "2026-11-08 08:00:01"}]}) + "\n")
    with pytest.raises(ValueError, match="unknown time zone 'AET' for --tz"):
        ingest([str(seed004), str(seed001)], db_path, tz="AET")
    assert not os.path.exists(db_path)


def test_the_cli_names_the_option_of_an_unknown_zone(tmp_path, db_path, capsys):
    from trace_audit.cli.main import main

    path = write_jsonl(tmp_path / "d.jsonl", [task(1)])
    for argv in (["ingest", str(path), "--db", db_path, "--tz", "AET"],
                 ["report", "--db", db_path, "--week", "2026-W45", "--tz", "AET"],
                 ["dashboard", "--db", db_path, "--tz", "AET"]):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert "argument --tz: unknown time zone 'AET'" in err and "Traceback" not in err, argv
    assert not os.path.exists(db_path)


@pytest.mark.parametrize("wall, utc", [
    ("2026-04-05 02:30:00", datetime(2026, 4, 4, 16, 30, tzinfo=UTC)),  # Sydney's clocks go back: 02:30 twice
    ("2026-10-04 02:30:00", datetime(2026, 10, 3, 16, 30, tzinfo=UTC)),  # clocks go forward: no 02:30
    ("2026-07-01 12:00:00", datetime(2026, 7, 1, 2, 0, tzinfo=UTC)),
])
def test_naive_times_are_converted_one_way_for_every_reader(tmp_path, db_path, wall, utc):
    # A seed-004 dump (read in SQL) and a seed-001 trace (read in Python) with the same naive time
    # land on the same instant, also where the wall clock is ambiguous or skipped.
    seed004 = write_jsonl(tmp_path / "dump.jsonl", [step(1, 1, create_time=wall)])
    seed001 = tmp_path / "trace.jsonl"
    seed001.write_text(json.dumps({"task_id": "t1", "user_query": "q", "final_answer": "ok", "tool_calls": [
        {"tool_name": "create_reminder", "arguments": {}, "result": {"id": 1}, "start_time": wall}]}) + "\n")
    ingest([str(seed004), str(seed001)], db_path, tz="Australia/Sydney")
    assert dict(query(db_path, "SELECT task_id, started_at FROM steps")) == {"1": utc, "t1": utc}
