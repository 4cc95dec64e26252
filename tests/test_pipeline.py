"""`ahead` runs a stage in a thread but must behave as if it ran in line."""

from __future__ import annotations

import threading

import pytest

from trace_audit.ingest.load.pipeline import ahead


def test_items_arrive_in_order_and_all_of_them():
    assert list(ahead(iter(range(1000)), depth=2)) == list(range(1000))


def test_an_error_in_the_stage_is_raised_in_the_consumer_after_the_items_before_it():
    def stage():
        yield 1
        yield 2
        raise ValueError("line 3: broken")

    got = []
    with pytest.raises(ValueError, match="line 3: broken"):
        for item in ahead(stage()):
            got.append(item)
    assert got == [1, 2]


def test_a_consumer_that_stops_early_stops_the_stage_and_waits_for_it():
    closed = threading.Event()
    produced = []

    def stage():
        try:
            for i in range(10_000):
                produced.append(i)
                yield i
        finally:
            closed.set()

    with pytest.raises(RuntimeError):
        for item in ahead(stage(), depth=2):
            if item == 5:
                raise RuntimeError("consumer failed")
    # The stage was closed (its files released) before the consumer's error surfaced,
    # and it ran at most a few items ahead.
    assert closed.is_set()
    assert len(produced) <= 5 + 1 + 2 + 1
    assert not [t for t in threading.enumerate() if t.name == "trace-audit stage"]


def test_stages_chain():
    doubled = (x * 2 for x in ahead(iter(range(50))))
    assert list(ahead(doubled)) == [x * 2 for x in range(50)]


def test_a_write_that_fails_mid_file_rolls_the_file_back_and_the_next_file_loads(tmp_path, monkeypatch):
    """The loader's stages stop and are waited for when writing fails; the decoder then serves the next file."""
    import duckdb

    from test_ingest_support import fail_third_write, step, task, write_jsonl
    from trace_audit.ingest.read import framing
    from trace_audit.ingest.load import loader
    from trace_audit.queries.warehouse import db

    monkeypatch.setattr(framing, "BLOCK_BYTES", 4096)  # many frames per file
    bad = write_jsonl(tmp_path / "a.jsonl", [step(f"a{i // 4}", i % 4 + 1) for i in range(400)])
    good = write_jsonl(tmp_path / "b.jsonl", [task(1), *[step(1, s) for s in range(1, 6)]])
    fail_third_write(monkeypatch, duckdb.IOException("simulated: the disk went away"))  # the first file's third frame
    path = str(tmp_path / "w.duckdb")
    summary = loader.ingest([str(bad), str(good)], path, progress=False)
    first, second = summary.files
    assert first.status == "failed" and "the disk went away" in first.message
    assert second.status == "loaded" and second.counts["steps"] == 5 and second.counts["tasks"] == 1
    assert not [t for t in threading.enumerate() if t.name.startswith("trace-audit ")]
    con = db.connect(path, read_only=True)
    try:  # nothing of the failed file, all of the good one
        assert con.execute("SELECT count(*) FROM steps WHERE task_id LIKE 'a%'").fetchall() == [(0,)]
        assert con.execute("SELECT count(*) FROM steps").fetchall() == [(5,)]
        assert con.execute("SELECT path FROM ingest_files").fetchall() == [(str(good),)]
    finally:
        con.close()
