"""Chat-transcript reader (OpenAI style, tau-bench runs): golden files and real public traces,
through the real loader into a real DuckDB file."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from golden_support import check_golden, golden_cases, query
from trace_audit.ingest.load.loader import ingest

FIXTURES = Path(__file__).resolve().parent / "fixtures"
GOLDEN = FIXTURES / "golden"
REAL = FIXTURES / "real"
RETAIL = REAL / "tau_retail" / "tau_dataset_full.json"
AIRLINE = REAL / "tau_airline" / "gpt-4o-airline.first20.json"


@pytest.mark.parametrize(
    "source",
    golden_cases("chat"),
    ids=lambda p: p.name,
)
def test_golden(source, db_path):
    check_golden(source, db_path)


def independent_tool_counts(path: Path) -> dict[str, tuple[int, int]]:
    """tool -> (erroring calls, calls), by walking the JSON directly."""
    calls, errors = Counter(), Counter()
    for run in json.loads(path.read_text(encoding="utf-8")):
        name_of = {}
        for m in run["traj"]:
            for c in m.get("tool_calls") or []:
                name_of[c["id"]] = c["function"]["name"]
                calls[c["function"]["name"]] += 1
            if m["role"] == "tool" and m["content"].startswith("Error:"):
                errors[name_of[m["tool_call_id"]]] += 1
    return {t: (errors[t], n) for t, n in calls.items()}


@pytest.fixture(scope="module")
def tau_db(tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("tau") / "warehouse.duckdb")
    summary = ingest([str(RETAIL), str(AIRLINE)], path)
    assert [(f.status, f.errors) for f in summary.files] == [("loaded", 0), ("loaded", 0)]
    return path


def stored_tool_counts(db_path: str, env: str) -> dict[str, tuple[int, int]]:
    rows = query(db_path, "SELECT s.tool, count(*) FILTER (WHERE s.status = 'failed'), count(*) "
                          "FROM steps s JOIN tasks t USING (task_id) "
                          "WHERE t.metadata ->> '$.env' = ? GROUP BY s.tool", [env])
    return {tool: (failed, total) for tool, failed, total in rows}


@pytest.mark.parametrize("env, path", [("retail", RETAIL), ("airline", AIRLINE)])
def test_real_tau_per_tool_error_counts_match_an_independent_count(tau_db, env, path):
    assert stored_tool_counts(tau_db, env) == independent_tool_counts(path)


def test_real_tau_error_counts_quoted_in_the_data_readme(tau_db):
    retail, airline = stored_tool_counts(tau_db, "retail"), stored_tool_counts(tau_db, "airline")
    assert retail["find_user_id_by_email"] == (9, 28)
    assert retail["exchange_delivered_order_items"] == (8, 34)
    assert retail["modify_pending_order_items"] == (7, 32)
    assert retail["find_user_id_by_name_zip"] == (4, 84)
    assert airline["update_reservation_flights"] == (12, 23)
    assert airline["book_reservation"] == (2, 5)


def test_real_tau_runs_keep_distinct_ids_every_message_and_their_labels(tau_db):
    retail, airline = json.loads(RETAIL.read_text()), json.loads(AIRLINE.read_text())
    # Both files reuse task ids 0..19 (trial 0 overlaps too): no run may overwrite another.
    tasks = query(tau_db, "SELECT task_id, metadata ->> '$.reward', total_steps FROM tasks")
    assert len(tasks) == len(retail) + len(airline) == 120
    by_id = {t[0]: t for t in tasks}
    for env, runs in (("retail", retail), ("airline", airline)):
        for run in runs:
            task_id = f"tau:{env}:{run['task_id']}:{run['trial']}"
            assert float(by_id[task_id][1]) == run["reward"]
            assert by_id[task_id][2] == sum(len(m.get("tool_calls") or []) for m in run["traj"])
    messages = query(tau_db, "SELECT count(*), count(*) FILTER (WHERE task_id IS NULL) FROM messages")[0]
    assert messages == (sum(len(r["traj"]) for r in retail + airline), 0)
    assert query(tau_db, "SELECT count(*) FROM steps WHERE verified IS NOT NULL") == [(0,)]
    assert query(tau_db, "SELECT count(*) FROM tasks WHERE started_at IS NOT NULL") == [(0,)]


def test_oversized_info_keeps_only_reward_info(tmp_path, db_path):
    run = {"task_id": 1, "trial": 0, "reward": 1.0,
           "info": {"reward_info": {"reward": 1.0}, "blob": "x" * (70 * 1024)},
           "traj": [{"role": "user", "content": "hi"}]}
    source = tmp_path / "big.json"
    source.write_text(json.dumps([run]), encoding="utf-8")
    ingest([str(source)], db_path)
    (meta,) = query(db_path, "SELECT metadata FROM tasks")[0]
    meta = json.loads(meta)
    assert meta["reward_info"] == {"reward": 1.0} and "info" not in meta and meta["reward"] == 1.0


def top_level_records(path: Path) -> int:
    text = path.read_text(encoding="utf-8")
    try:
        doc = json.loads(text)
    except ValueError:
        return sum(1 for line in text.splitlines() if line.strip())  # JSON lines
    return len(doc) if isinstance(doc, list) else 1


def test_real_tau_steps_and_messages_record_their_position_in_the_conversation(tau_db):
    """Order is the only clock in these files: each step names the assistant message that made
    the call (metadata.message_index), and each message its own index (also in its id)."""
    runs = {f"tau:{env}:{r['task_id']}:{r['trial']}": r["traj"]
            for env, path in (("retail", RETAIL), ("airline", AIRLINE)) for r in json.loads(path.read_text())}
    steps = query(tau_db, "SELECT task_id, step_id, CAST(metadata ->> '$.message_index' AS INTEGER) FROM steps")
    assert len(steps) > 500
    for task_id, call_id, index in steps:
        made_by = runs[task_id][index]
        assert made_by["role"] == "assistant"
        assert call_id in [c["id"] for c in made_by["tool_calls"]]
    messages = query(tau_db, "SELECT message_id, CAST(metadata ->> '$.message_index' AS INTEGER) FROM messages")
    assert all(m.endswith(f":{i}") for m, i in messages)
