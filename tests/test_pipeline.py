"""`ahead` runs a stage in a thread but must behave as if it ran in line."""

from __future__ import annotations

import threading

import pytest

from trace_audit.ingest.pipeline import ahead


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
