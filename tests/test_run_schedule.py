"""A rules run over several cursors gives what a run on one gives, and leaves the connection as a
user's connection should be.

Over the sample month (seed004, the generator's month with every kind of incident): the staged
findings of a run with several workers equal, row for row, those of a run with one; a broken
turn-model file fails the rules that read it in both; the warehouse stays the connection's
database (an unqualified CREATE after a run lands in the file, not in the run's scratch catalog);
a read-only warehouse, where no in-memory catalog can be attached, runs with one worker.
"""

from __future__ import annotations

import dataclasses
import threading
from datetime import datetime, timezone
from pathlib import Path

import duckdb
import pytest

from trace_audit.ingest.load.loader import ingest
from trace_audit.queries.engine import execute_plan, plan_run
from trace_audit.queries.run_schedule import SCRATCH, Job, Scratch, open_scratch, run_jobs
from trace_audit.queries.warehouse import db

REPO = Path(__file__).resolve().parent.parent
NOW = datetime(2026, 11, 30, tzinfo=timezone.utc)
STAGED = ("SELECT rule_id, severity, task_id, conversation_id, user_id, seq, message, CAST(evidence AS VARCHAR), "
          "event_time FROM _ta_stage ORDER BY ALL")


@pytest.fixture(scope="module")
def month(tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("sched") / "month.duckdb")
    ingest([str(REPO / "sample_data" / "seed004")], path, tz="Asia/Shanghai", progress=False)
    return path


def _run(path: str, workers: int, monkeypatch, rules_dir=None, read_only: bool = False):
    monkeypatch.setenv("TRACE_AUDIT_RULE_WORKERS", str(workers))
    con = db.connect(path, read_only=read_only)
    try:
        result = execute_plan(con, plan_run(None, None, rules_dir, NOW), store=False)
        in_scratch = con.execute("SELECT count(*) FROM duckdb_tables() WHERE database_name = $s",
                                 {"s": SCRATCH}).fetchall()[0][0]
        return result, con.execute(STAGED).fetchall(), in_scratch
    finally:
        con.close()


def test_several_workers_stage_the_same_findings_as_one(month, monkeypatch):
    one, rows_one, scratch_one = _run(month, 1, monkeypatch)
    four, rows_four, scratch_four = _run(month, 4, monkeypatch)
    assert scratch_one == 0 and scratch_four > 0  # the second really ran on the attached catalog
    assert not one.failed and not four.failed
    assert one.counts() == four.counts()
    assert one.counts()["said_but_not_done"] > 100 and one.counts()["claimed_value_mismatch"] > 0
    assert rows_one == rows_four


def test_a_broken_model_fails_its_readers_with_several_workers(month, monkeypatch):
    results = {}
    for workers in (1, 4):
        monkeypatch.setenv("TRACE_AUDIT_RULE_WORKERS", str(workers))
        plan = plan_run(None, None, None, NOW)
        plan.models = [dataclasses.replace(m, sql="SELECT * FROM no_such_table") if m.table == "claim_fits" else m
                       for m in plan.models]
        con = db.connect(month)
        try:
            result = execute_plan(con, plan, store=False)
        finally:
            con.close()
        results[workers] = dict(result.failed)
        assert "depends on claim_fits" in results[workers]["said_but_not_done"]
        assert "claimed_value_mismatch" in results[workers]  # through value_checks, which reads claimed_actions
        assert "verified_false" not in results[workers] and result.counts()["verified_false"] > 0
    assert results[1] == results[4]


def test_the_warehouse_stays_the_connections_database(month, monkeypatch, tmp_path):
    path = str(tmp_path / "copy.duckdb")
    Path(path).write_bytes(Path(month).read_bytes())
    monkeypatch.setenv("TRACE_AUDIT_RULE_WORKERS", "2")
    con = db.connect(path)
    try:
        before = con.execute("SELECT current_database()").fetchall()[0][0]
        execute_plan(con, plan_run(None, None, None, NOW), store=True)
        assert con.execute("SELECT current_database()").fetchall()[0][0] == before
        con.execute("CREATE TABLE made_after_a_run AS SELECT 1 AS x")
        # a second run on the same connection finds its cache and the warehouse's tables again
        again = execute_plan(con, plan_run(None, None, None, NOW), store=True)
        assert not again.failed
    finally:
        con.close()
    con = duckdb.connect(path, read_only=True)
    try:
        assert con.execute("SELECT x FROM made_after_a_run").fetchall() == [(1,)]
        assert con.execute("SELECT count(DISTINCT run_id) FROM findings").fetchall()[0][0] == 2
    finally:
        con.close()


def test_a_read_only_warehouse_runs_with_one_worker(month, monkeypatch):
    result, rows, in_scratch = _run(month, 4, monkeypatch, read_only=True)
    assert in_scratch == 0 and not result.failed and len(rows) == result.finding_count > 0


def test_jobs_run_after_what_they_read_and_side_by_side(tmp_path):
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    scratch = open_scratch(con, 2, [])
    seen: list[str] = []
    overlap = threading.Barrier(2, timeout=10)

    def job(name: str, wait: bool = False):
        def run(cur):
            if wait:
                overlap.wait()  # both independent jobs must be running at once, or this times out
            seen.append(name)
        return run

    jobs = [Job("c", job("c"), {"a", "b"}), Job("a", job("a", True)), Job("b", job("b", True))]
    run_jobs(con, jobs, scratch)
    assert seen[-1] == "c" and sorted(seen[:2]) == ["a", "b"]
    with pytest.raises(RuntimeError, match="wait on each other"):
        run_jobs(con, [Job("x", job("x"), {"y"}), Job("y", job("y"), {"x"})], scratch)
    with pytest.raises(RuntimeError, match="wait on each other"):
        run_jobs(con, [Job("x", job("x"), {"y"}), Job("y", job("y"), {"x"})], Scratch(None, 1))
    con.close()
