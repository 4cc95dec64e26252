"""`trace-audit ingest` and `stats` as a user runs them: exit codes, messages, counts."""

from __future__ import annotations

import json

import pytest

from test_ingest_support import step, task, write_jsonl
from trace_audit.cli.main import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_strict_exits_1_when_lines_were_quarantined(tmp_path, db_path, capsys):
    path = write_jsonl(tmp_path / "d.jsonl", [task(1), "junk", step(1, "abc")])
    code, out, _ = run(capsys, "ingest", str(path), "--db", db_path, "--strict")
    assert code == 1
    assert f"{path}:2: malformed JSON" in out
    assert f"{path}:3: field seq: expected an integer (32-bit), got 'abc'" in out
    assert "1 tasks" in out and "2 quarantined" in out


def test_strict_exits_0_when_all_lines_loaded(tmp_path, db_path, capsys):
    path = write_jsonl(tmp_path / "d.jsonl", [task(1), step(1, 1)])
    assert run(capsys, "ingest", str(path), "--db", db_path, "--strict")[0] == 0


def test_without_strict_quarantine_is_not_a_failure(tmp_path, db_path, capsys):
    path = write_jsonl(tmp_path / "d.jsonl", [task(1), "junk"])
    assert run(capsys, "ingest", str(path), "--db", db_path)[0] == 0


def test_missing_path_exits_2_and_names_it(tmp_path, db_path, capsys):
    good = write_jsonl(tmp_path / "d.jsonl", [task(1)])
    missing = tmp_path / "no" / "such.jsonl"
    code, out, _ = run(capsys, "ingest", str(missing), str(good), "--db", db_path)
    assert code == 2
    assert f"FAILED   {missing}: no such file or directory" in out
    assert f"loaded   {good}" in out  # the other file still loads


def test_unknown_tz_exits_2_with_a_plain_message(tmp_path, db_path, capsys):
    path = write_jsonl(tmp_path / "d.jsonl", [task(1)])
    with pytest.raises(SystemExit) as exit_:  # a usage error, as argparse reports one
        run(capsys, "ingest", str(path), "--db", db_path, "--tz", "Beijing")
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert "argument --tz: unknown time zone 'Beijing'" in err and "Traceback" not in err


def test_ingest_json_summary(tmp_path, db_path, capsys):
    path = write_jsonl(tmp_path / "d.jsonl", [task(1), step(1, 1), step(1, 2), "x"])
    code, out, _ = run(capsys, "ingest", str(path), "--db", db_path, "--json")
    assert code == 0
    summary = json.loads(out)
    assert summary["totals"] == {"tasks": 1, "steps": 2, "messages": 0, "audit_logs": 0, "ingest_errors": 1}
    assert summary["files"][0]["status"] == "loaded" and summary["files"][0]["quarantined"] == 1
    assert summary["files"][0]["formats"] == ["seed004"]


def test_a_file_of_steps_alone_is_named_by_its_reader(tmp_path, db_path, capsys):
    # steps carry no `source` column; the format comes from the reader that decoded them
    path = write_jsonl(tmp_path / "steps.jsonl", [step(1, 1), step(1, 2)])
    code, out, _ = run(capsys, "ingest", str(path), "--db", db_path, "--json")
    assert code == 0
    assert json.loads(out)["files"][0]["formats"] == ["seed004"]


def test_stats_json_counts(tmp_path, db_path, capsys):
    path = write_jsonl(tmp_path / "d.jsonl", [task(1), task(2), step(1, 1), "{bad"])
    run(capsys, "ingest", str(path), "--db", db_path)
    code, out, _ = run(capsys, "stats", "--db", db_path, "--json")
    assert code == 0
    stats = json.loads(out)
    assert {k: stats[k] for k in ("tasks", "steps", "messages", "audit_logs", "ingest_errors")} == {
        "tasks": 2, "steps": 1, "messages": 0, "audit_logs": 0, "ingest_errors": 1}


def test_stats_errors_lists_file_line_reason(tmp_path, db_path, capsys):
    path = write_jsonl(tmp_path / "d.jsonl", [task(1), "[1]", task(2, create_time="someday")])
    run(capsys, "ingest", str(path), "--db", db_path)
    code, out, _ = run(capsys, "stats", "--db", db_path, "--errors")
    assert code == 0
    assert out.splitlines() == [
        f"{path}:2: not a JSON object (got an array); each record must be an object",
        f"{path}:3: field create_time: expected a timestamp (ISO 8601 or epoch seconds), got 'someday'",
    ]


def test_stats_on_a_missing_database_exits_2(tmp_path, capsys):
    code, _, err = run(capsys, "stats", "--db", str(tmp_path / "none.duckdb"))
    assert code == 2 and "no trace-audit database" in err


@pytest.mark.parametrize("argv", [["ingest", "--help"], ["stats", "--help"]])
def test_help_is_useful(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 0
    assert "--db" in capsys.readouterr().out


def test_nothing_loaded_at_all_exits_1_and_names_the_format_it_looks_like(tmp_path, db_path, capsys):
    metrics = tmp_path / "metrics.json"
    metrics.write_text('{"resourceMetrics": []}\n')
    code, out, err = run(capsys, "ingest", str(metrics), "--db", db_path)
    assert code == 1
    assert "looks like an OTLP metrics export" in out and "nothing was loaded" in err


def test_a_re_run_of_loaded_files_is_not_a_failure(tmp_path, db_path, capsys):
    path = write_jsonl(tmp_path / "a.jsonl", [task("t1")])
    assert run(capsys, "ingest", str(path), "--db", db_path)[0] == 0
    assert run(capsys, "ingest", str(path), "--db", db_path)[0] == 0


def test_files_skipped_by_their_ending_are_each_listed_by_name(tmp_path, db_path, capsys):
    write_jsonl(tmp_path / "a.jsonl", [task("t1")])
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / "LICENSE").write_text("x")
    code, out, _ = run(capsys, "ingest", str(tmp_path), "--db", db_path)
    assert code == 0
    assert f"skipped  {tmp_path / 'notes.txt'}: its ending is not a trace format" in out
    assert f"skipped  {tmp_path / 'LICENSE'}:" in out
