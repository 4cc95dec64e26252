"""Readings kept between runs (queries/reading/cache.py): a reply is read once per reader, a run
that reads nothing new finds exactly what a fresh run finds, a changed lexicon reads afresh and
drops the old reader's rows, and a warehouse made before the cache (opened read-only) still runs."""

from __future__ import annotations

import shutil

import pytest

from test_dashboard_people import TAU
from trace_audit.ingest.load.loader import ingest
from trace_audit.queries import engine
from trace_audit.queries.reading import cache, tables, value_run
from trace_audit.queries.warehouse import db


def _findings(con, run_id):
    return con.execute("SELECT rule_id, task_id, seq, message, CAST(evidence AS VARCHAR) FROM findings "
                       "WHERE run_id = ? ORDER BY ALL", [run_id]).fetchall()


@pytest.fixture()
def tau(tmp_path):
    path = str(tmp_path / "tau.duckdb")
    ingest([str(TAU)], path, progress=False)
    return path


@pytest.fixture()
def reads(monkeypatch):
    """Counts the texts the clause reader is handed."""
    seen: list[str] = []
    real = tables.read_texts

    def counting(texts, plan):
        seen.extend(texts)
        return real(texts, plan)

    monkeypatch.setattr(tables, "read_texts", counting)
    return seen


def test_a_second_run_reads_nothing_and_finds_the_same(tau, reads):
    con = db.connect(tau)
    try:
        first = engine.run_rules(con)
        n_texts = con.execute(f"SELECT count(*) FROM ({cache.TEXTS})").fetchall()[0][0]
        assert len(reads) == n_texts > 0
        kept = con.execute("SELECT count(*), count(DISTINCT reader) FROM reading_cache").fetchall()[0]
        assert kept == (n_texts, 1)
        assert con.execute("SELECT count(*) FROM reading_cache_items").fetchall()[0][0] > 0
        reads.clear()
        second = engine.run_rules(con)
        assert reads == []
        assert _findings(con, second.run_id) == _findings(con, first.run_id) != []
    finally:
        con.close()


def test_new_replies_alone_are_read(tau, reads):
    con = db.connect(tau)
    try:
        engine.run_rules(con)
        con.execute("INSERT INTO messages (message_id, conversation_id, role, content, task_id) VALUES "
                    "('late-1', 'c-late', 'assistant', 'Your seat has been changed to 14C.', 'tau:airline:4:0')")
        reads.clear()
        engine.run_rules(con)
        assert reads == ["Your seat has been changed to 14C."]
    finally:
        con.close()


def test_a_changed_lexicon_reads_afresh_and_keeps_one_reader(tau, reads, tmp_path):
    con = db.connect(tau)
    try:
        engine.run_rules(con)
        before = con.execute("SELECT DISTINCT reader FROM reading_cache").fetchall()
        cfg = tmp_path / "trace-audit.toml"
        cfg.write_text('[lexicon]\nclaim = ["稳了"]\n', "utf-8")
        reads.clear()
        engine.run_rules(con, config=str(cfg))
        assert len(reads) > 0
        after = con.execute("SELECT DISTINCT reader FROM reading_cache").fetchall()
        assert len(after) == 1 and after != before
        assert con.execute("SELECT count(DISTINCT reader) FROM reading_cache_items").fetchall()[0][0] == 1
    finally:
        con.close()


def test_a_run_that_stores_nothing_keeps_nothing(tau):
    con = db.connect(tau)
    try:
        plan = engine.plan_run()
        engine.execute_plan(con, plan, store=False)
        assert con.execute("SELECT count(*) FROM reading_cache").fetchall()[0][0] == 0
    finally:
        con.close()


def test_a_warehouse_without_the_cache_runs_read_only(tau, tmp_path):
    con = db.connect(tau)
    try:
        expected = engine.run_rules(con).counts()
        con.execute("DROP TABLE reading_cache")
        con.execute("DROP TABLE reading_cache_items")
    finally:
        con.close()
    old = str(tmp_path / "old.duckdb")
    shutil.copy(tau, old)
    ro = db.connect(old, read_only=True)
    try:
        result = engine.execute_plan(ro, engine.plan_run(), store=False)
    finally:
        ro.close()
    assert result.counts() == expected and not result.failed


def test_a_reply_replaced_leaves_no_reading_behind(tau):
    """A reply re-sent (redacted, say) must not live on in the cache in its first form."""
    con = db.connect(tau)
    try:
        engine.run_rules(con)
        _, text = con.execute("SELECT message_id, content FROM messages WHERE role = 'assistant' "
                                "AND content LIKE '%reservation%' ORDER BY message_id LIMIT 1").fetchall()[0]
        gone = con.execute("SELECT md5_number(?)", [text]).fetchall()[0][0]
        assert con.execute("SELECT count(*) FROM reading_cache WHERE text_key = ?", [gone]).fetchall()[0][0] == 1
        con.execute("UPDATE messages SET content = content || ' [redacted]' WHERE content = ?", [text])
        con.execute("UPDATE tasks SET final_answer = final_answer || ' [redacted]' WHERE final_answer = ?", [text])
        engine.run_rules(con)
        for table in ("reading_cache", "reading_cache_items"):
            assert con.execute(f"SELECT count(*) FROM {table} WHERE text_key = ?", [gone]).fetchall()[0][0] == 0
    finally:
        con.close()


def test_value_comparisons_are_made_once(tau, monkeypatch):
    """tau-bench's cabin contradictions: compared on the first run, taken from value_cache after."""
    calls: list[int] = []
    real = value_run._compared

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(value_run, "_compared", counting)
    con = db.connect(tau)
    try:
        first = engine.run_rules(con)
        assert len(calls) > 0
        kept = con.execute("SELECT count(DISTINCT (check_kind, k)), count(*) FILTER (WHERE verdict = 'mismatch') "
                           "FROM value_cache").fetchall()[0]
        assert kept[0] == len(calls) and kept[1] > 0
        assert con.execute("SELECT count(*) FROM request_cache").fetchall()[0][0] > 0
        calls.clear()
        second = engine.run_rules(con)
        assert calls == []
        assert first.counts()["claimed_value_mismatch"] > 0
        assert _findings(con, second.run_id) == _findings(con, first.run_id)
    finally:
        con.close()
