"""The rule catalogue on the real tau-bench transcripts (tests/fixtures/real, via the chat reader).

A tau run is one task covering a whole conversation, without timestamps. The
chat reader records each message's and each tool call's position
(metadata.message_index), and said_but_not_done judges a reply by the write
calls made since the previous reply. Before that, any failed write anywhere in
a run made every later claim look `partial` (16 findings in 9 runs, all
checked by hand in docs/rules.md: in every one the failure was admitted in
the reply right after it, or happened after the claim).
"""

from __future__ import annotations

import copy
import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from trace_audit.ingest.load.loader import ingest
from golden_support import findings_of, said_but_not_done as findings_by_task

REAL = Path(__file__).resolve().parent / "fixtures" / "real"
RETAIL = REAL / "tau_retail" / "tau_dataset_full.json"
AIRLINE = REAL / "tau_airline" / "gpt-4o-airline.first20.json"
NOW = datetime(2026, 11, 30, tzinfo=timezone.utc)


def said_but_not_done(path: str) -> dict[str, list[dict]]:
    return findings_by_task(path, NOW)


@pytest.fixture(scope="module")
def tau_findings(tmp_path_factory) -> dict[str, list[dict]]:
    path = str(tmp_path_factory.mktemp("tau_rules") / "warehouse.duckdb")
    ingest([str(RETAIL), str(AIRLINE)], path, tz="UTC", progress=False)
    return said_but_not_done(path)


@pytest.mark.parametrize("task_id", ["tau:retail:30:30", "tau:retail:33:33"])
def test_a_claim_after_an_admitted_earlier_failure_is_not_partial(tau_findings, task_id):
    # An early write failed, the next reply said so, the agent moved to another tool that
    # succeeded, and a later reply claims that: true, and honest about the failure.
    assert task_id not in tau_findings


def test_airline_15_failure_was_admitted_before_the_cancellation_claim(tau_findings):
    # update_reservation_flights failed (message 17); message 18 told the user ("Unfortunately,
    # I cannot proceed with the downgrade"); the cancellation claimed at 28 was made at 26.
    assert "tau:airline:15:0" not in tau_findings


def test_on_the_real_tau_runs_only_the_two_unbacked_bag_claims_fire(tau_findings):
    # The 16 former findings were all of the shape above (checked by hand, docs/rules.md).
    # Issue 15: each claimed action needs its own write. In airline runs 3 and 5 the reply says
    # checked bags "have been added" and update_reservation_baggages was never called; the flight
    # or cabin update in the same reply did succeed, so the turn as a whole looked done.
    assert sorted(tau_findings) == ["tau:airline:3:0", "tau:airline:5:0"]
    for task_id, message_id in (("tau:airline:3:0", "tau:airline:3:0:60"), ("tau:airline:5:0", "tau:airline:5:0:24")):
        (evidence,) = tau_findings[task_id]
        assert evidence["kind"] == "partial" and evidence["message_id"] == message_id
        assert evidence["unbacked_object"] == "bag" and "bag" in evidence["unbacked_claim"]
        assert evidence["unbacked_action"] == "create"


def test_airline_15_without_the_admission_is_partial(tmp_path):
    """The same real run with the honest reply and the turns after it cut out: the failed
    flight change and the successful cancellation now come before one claim, which does not
    mention the failure: partial, as it should be."""
    runs = json.loads(AIRLINE.read_text(encoding="utf-8"))
    run = copy.deepcopy(next(r for r in runs if r["task_id"] == 15 and r["trial"] == 0))
    traj = run["traj"]
    assert traj[16]["tool_calls"][0]["function"]["name"] == "update_reservation_flights"
    assert traj[17]["content"].startswith("Error:")
    assert traj[26]["tool_calls"][0]["function"]["name"] == "cancel_reservation"
    run["traj"] = traj[:18] + traj[26:]  # drop the admission (18) and the talk up to the cancel call
    source = tmp_path / "airline15_cut.json"
    source.write_text(json.dumps([run]), encoding="utf-8")
    path = str(tmp_path / "w.duckdb")
    ingest([str(source)], path, tz="UTC", progress=False)
    found = said_but_not_done(path)
    assert list(found) == ["tau:airline:15:0"]
    (evidence,) = found["tau:airline:15:0"]
    assert evidence["kind"] == "partial"
    assert evidence["message_id"] == "tau:airline:15:0:20" and evidence["since_index"] == 14
    assert [(t["tool"], t["status"]) for t in evidence["tools"]] == [
        ("update_reservation_flights", "failed"), ("cancel_reservation", "success")]


def _findings(path: str, rule: str) -> dict[str, list[dict]]:
    return findings_of(path, NOW, rule)


@pytest.fixture(scope="module")
def tau_db(tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("tau_values") / "warehouse.duckdb")
    ingest([str(RETAIL), str(AIRLINE)], path, tz="UTC", progress=False)
    return path


def test_cabin_told_is_not_the_cabin_the_write_returned(tau_db):
    # Issue 15: in six airline runs the reply says the cabin became one class while the reservation
    # that update_reservation_flights returned shows another (checked by hand against the file).
    found = _findings(tau_db, "claimed_value_mismatch")
    cabins = {t: (e["told"], e["stored"]) for t, evs in found.items() for e in evs if e["field"] == "cabin"}
    assert cabins == {
        "tau:airline:2:0": ("economy class", "business"),
        "tau:airline:3:0": ("business class", "economy"),
        "tau:airline:4:0": ("economy class", "basic_economy"),
        "tau:airline:5:0": ("economy class", "basic_economy"),
        "tau:airline:13:0": ("economy class", "basic_economy"),
        "tau:airline:14:0": ("business class", "economy"),
    }
    assert all(e["kind"] == "mismatch" and e["stored_from"] == "result" for evs in found.values() for e in evs)


def test_no_issue_15_finding_on_runs_whose_database_ended_correct(tau_db):
    import duckdb

    con = duckdb.connect(tau_db, read_only=True)
    try:
        correct = {r[0] for r in con.execute(
            "SELECT task_id FROM tasks WHERE TRY_CAST(json_extract_string(metadata, '$.reward') AS DOUBLE) = 1").fetchall()}
    finally:
        con.close()
    assert len(correct) == 77  # 73 retail + 4 airline
    for rule in ("said_but_not_done", "claimed_value_mismatch", "asked_value_mismatch"):
        assert not correct & set(_findings(tau_db, rule)), rule
