"""Ctrl-C during an ingest stops the whole run: the file being loaded is rolled back, later files
are not started, and the command says "interrupted" (exit 130), never "internal error".

When SIGINT arrives while DuckDB runs a query, DuckDB cancels it and its Python client raises
RuntimeError("Query interrupted") (seen with `trace-audit ingest` of a 1M-line file and Ctrl-C);
when it arrives between queries, Python raises KeyboardInterrupt. Both must end the same way.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading

import duckdb
import pytest

from test_ingest_support import fail_third_write, step, task, write_jsonl
from trace_audit.cli.main import main
from trace_audit.ingest.read import framing
from trace_audit.queries.warehouse import db


def _files(tmp_path):
    first = write_jsonl(tmp_path / "a.jsonl", [step(f"a{i // 4}", i % 4 + 1) for i in range(400)])
    second = write_jsonl(tmp_path / "b.jsonl", [task(1), step(1, 1)])
    return str(first), str(second)


def _assert_untouched(path: str) -> None:
    con = db.connect(path, read_only=True)
    try:  # nothing of the interrupted file, and the next file was not started
        assert con.execute("SELECT (SELECT count(*) FROM steps), (SELECT count(*) FROM tasks), "
                           "(SELECT count(*) FROM ingest_files)").fetchall() == [(0, 0, 0)]
    finally:
        con.close()


@pytest.mark.parametrize("raised", [RuntimeError("Query interrupted"), KeyboardInterrupt()],
                         ids=["duckdb cancelled its query", "between queries"])
def test_an_interrupt_mid_file_stops_the_run(tmp_path, monkeypatch, capsys, raised):
    monkeypatch.setattr(framing, "BLOCK_BYTES", 4096)  # many frames: the interrupt lands mid-file
    fail_third_write(monkeypatch, raised)
    path = str(tmp_path / "w.duckdb")
    assert main(["ingest", *_files(tmp_path), "--db", path, "--no-progress"]) == 130
    assert capsys.readouterr().err.strip() == "trace-audit: interrupted"
    assert not [t for t in threading.enumerate() if t.name.startswith("trace-audit ")]
    _assert_untouched(path)


# A real SIGINT, in a child process, while the stages run and DuckDB works on the third insert.
SCRIPT = textwrap.dedent("""
    import os, signal, sys, threading
    from trace_audit.cli.main import main
    from trace_audit.ingest.read import framing
    from trace_audit.ingest.load import loader

    framing.BLOCK_BYTES = 4096
    real_append, calls = loader.store.append, []

    def append(con, table, rows):
        calls.append(1)
        if len(calls) == 3:
            threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGINT)).start()
            con.execute("SELECT count(*) FROM range(3000000000)").fetchall()  # about a second
        return real_append(con, table, rows)

    loader.store.append = append
    sys.exit(main(["ingest", *sys.argv[1:], "--no-progress"]))
""")


def test_a_real_sigint_stops_the_run(tmp_path):
    path = str(tmp_path / "w.duckdb")
    run = subprocess.run([sys.executable, "-c", SCRIPT, *_files(tmp_path), "--db", path],
                         capture_output=True, text=True, timeout=120)
    assert (run.returncode, run.stderr.strip()) == (130, "trace-audit: interrupted")
    _assert_untouched(path)


@pytest.mark.parametrize("exc", [RuntimeError("Query interrupted"), KeyboardInterrupt(),
                                 duckdb.InterruptException("INTERRUPT Error: Interrupted!")])
def test_every_form_of_an_interrupt_is_recognised(exc):
    assert db.is_interrupt(exc)
    assert not db.is_interrupt(RuntimeError("something else"))
