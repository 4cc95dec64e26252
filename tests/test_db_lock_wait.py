"""Writers wait for the database (bounded, with a note), the message names who holds it; --db
must name a DuckDB file or a new path. Real processes hold real locks on a real file."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from trace_audit.cli.main import main

RECORD = json.dumps({"record": "task", "task_id": "t1", "user_id": "u1", "status": "success"}) + "\n"


def _hold(db: str, read_only: bool, seconds: float) -> subprocess.Popen:
    code = ("import duckdb, sys, time; c = duckdb.connect(sys.argv[1], read_only=sys.argv[2] == '1'); "
            "print('held', flush=True); time.sleep(float(sys.argv[3]))")
    p = subprocess.Popen([sys.executable, "-c", code, db, "1" if read_only else "0", str(seconds)],
                         stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "held"
    return p


@pytest.fixture
def warehouse(tmp_path, capsys):
    src = tmp_path / "a.jsonl"
    src.write_text(RECORD)
    db = str(tmp_path / "w.duckdb")
    assert main(["ingest", str(src), "--db", db]) == 0
    capsys.readouterr()
    return db, src


def test_ingest_waits_for_a_reader_and_says_so(warehouse, capsys):
    db, src = warehouse
    holder = _hold(db, read_only=True, seconds=2.5)
    started = time.monotonic()
    code = main(["ingest", str(src), "--db", db, "--wait", "20", "--no-progress"])
    err = capsys.readouterr().err
    holder.wait()
    assert code == 0 and time.monotonic() - started >= 1.5
    assert f"waiting up to 20 s for database {db}: a reader holds it (process {holder.pid}" in err


def test_a_writer_past_the_wait_is_named_and_exit_2(warehouse, capsys):
    db, src = warehouse
    holder = _hold(db, read_only=False, seconds=30)
    try:
        code = main(["ingest", str(src), "--db", db, "--wait", "1.2", "--no-progress"])
        err = capsys.readouterr().err
    finally:
        holder.kill()
        holder.wait()
    assert code == 2
    assert f"is locked after waiting 1.2 s: a writer holds it (process {holder.pid}" in err
    assert "--wait SECONDS" in err


@pytest.mark.parametrize("content", [RECORD.encode(), b"", b"\xad\x8c\xe7\x12P\x0e\xeb2DUCK" + b"\0" * 100])
def test_db_must_be_a_duckdb_file_or_a_new_path(tmp_path, capsys, content):
    src = tmp_path / "a.jsonl"
    src.write_text(RECORD)
    target = tmp_path / "not-a-db.jsonl"
    target.write_bytes(content)
    assert main(["ingest", str(src), "--db", str(target)]) == 2
    err = capsys.readouterr().err
    assert str(target) in err and "Traceback" not in err and "internal error" not in err
    assert target.read_bytes() == content
    assert main(["stats", "--db", str(target)]) == 2
