"""Ingest never exits 0 while records went unaccounted.

Each file's records are counted as they are decoded and looked for in the warehouse before the
file commits (ingest/load/ledger.py). Here a fault is injected into the writer: a batch (or the
quarantine) silently not written while the writing function reports success. The file must
fail whole, the message name it, and `ingest` exit 70 (an internal error, not the input's);
the other files of the run still load. The normal paths, a JSON array broken in the middle and
JSON lines with bad and blank lines, account for every record: stored + quarantined = read.
"""

from __future__ import annotations

import json

import pytest

from test_ingest_support import counts, query, task, write_jsonl
from trace_audit.cli.main import main
from trace_audit.ingest.load import loader
from trace_audit.ingest.read import framing

TASKS = 3_000


def run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out + out.err


def drop_second_call(monkeypatch, owner, name: str) -> list[int]:
    """`owner.name`'s second call writes nothing and returns what a real write would have."""
    real, calls = getattr(owner, name), []

    def lossy(*args, **kwargs):
        calls.append(1)
        if len(calls) != 2:
            return real(*args, **kwargs)
        rows = args[-1]
        return rows.num_rows if hasattr(rows, "num_rows") else None

    monkeypatch.setattr(owner, name, lossy)
    return calls


@pytest.fixture
def many_frames(monkeypatch):
    monkeypatch.setattr(framing, "BLOCK_BYTES", 16 * 1024)  # a few hundred records a frame


def assert_failed_whole(code: int, out: str, path, db_path: str, problem: str) -> None:
    assert code == 70, out
    assert f"FAILED   {path}: nothing from this file was stored: records went unaccounted" in out
    assert problem in out and "bug in trace-audit" in out and "Traceback" not in out
    assert query(db_path, "SELECT count(*) FROM ingest_files WHERE path = ?", [str(path)])[0][0] == 0


@pytest.mark.parametrize("warehouse", ["empty", "non-empty"])
def test_a_batch_dropped_silently_fails_the_file_and_exits_70(tmp_path, db_path, capsys, monkeypatch, many_frames,
                                                              warehouse):
    if warehouse == "non-empty":  # rows are upserted; into an empty warehouse they are appended
        assert run(capsys, "ingest", str(write_jsonl(tmp_path / "seed.jsonl", [task(10**6)])), "--db", db_path)[0] == 0
    lossy = write_jsonl(tmp_path / "a-lossy.jsonl", [task(i) for i in range(TASKS)])
    good = write_jsonl(tmp_path / "b-good.jsonl", [task(10**5 + i) for i in range(5)])
    calls = drop_second_call(monkeypatch, loader.store, "append" if warehouse == "empty" else "upsert")
    code, out = run(capsys, "ingest", str(lossy), str(good), "--db", db_path)
    assert len(calls) > 3  # the lossy file's frames, then the good file's one
    assert_failed_whole(code, out, lossy, db_path, "tasks rows decoded have no row in the table")
    assert f"loaded   {good}" in out
    before = 1 if warehouse == "non-empty" else 0
    assert counts(db_path)["tasks"] == before + 5  # the good file in, nothing of the lossy one


def test_a_batch_dropped_from_a_staged_file_fails_it(tmp_path, db_path, capsys, monkeypatch, many_frames):
    monkeypatch.setattr(loader, "STAGE_MIN_BYTES", 0)  # the big-file path: frames staged in temp tables
    lossy = write_jsonl(tmp_path / "lossy.jsonl", [task(i) for i in range(TASKS)])
    drop_second_call(monkeypatch, loader.store.Stage, "append")
    code, out = run(capsys, "ingest", str(lossy), "--db", db_path)
    assert_failed_whole(code, out, lossy, db_path, f"of {TASKS:,} tasks rows decoded were not staged")
    assert counts(db_path)["tasks"] == 0


def test_a_quarantine_dropped_silently_fails_the_file(tmp_path, db_path, capsys, monkeypatch, many_frames):
    lossy = write_jsonl(tmp_path / "lossy.jsonl", [task(i) if i % 100 else "junk" for i in range(TASKS)])
    drop_second_call(monkeypatch, loader.store, "quarantine")
    code, out = run(capsys, "ingest", str(lossy), "--db", db_path)
    assert_failed_whole(code, out, lossy, db_path, "records were quarantined and")
    assert counts(db_path) == {"tasks": 0, "steps": 0, "messages": 0, "audit_logs": 0, "ingest_errors": 0}


def accounted(capsys, db_path: str, path) -> dict:
    """`ingest --json` of one file: exit 0 and its figures, checked against the warehouse."""
    code, out = run(capsys, "ingest", str(path), "--db", db_path, "--json")
    assert code == 0, out
    (f,) = json.loads(out[out.index("{"):out.rindex("}") + 1])["files"]
    stored = query(db_path, "SELECT count(*) FROM tasks WHERE source_file = ?", [str(path)])[0][0]
    quarantined = query(db_path, "SELECT count(*) FROM ingest_errors WHERE source_file = ?", [str(path)])[0][0]
    assert (f["counts"]["tasks"], f["quarantined"]) == (stored, quarantined)
    assert stored + quarantined == f["records"]  # every record read is stored or quarantined
    return f


@pytest.mark.parametrize("indent", [None, 2], ids=["one-line", "pretty"])
def test_a_broken_array_accounts_for_every_element(tmp_path, db_path, capsys, indent):
    text = json.dumps([task(i) for i in range(TASKS)], indent=indent)
    broken = text.replace('"id": 1500,', '"id": 1500 oops,', 1)
    assert broken != text
    path = tmp_path / "broken.json"
    path.write_text(broken, encoding="utf-8")
    f = accounted(capsys, db_path, path)
    assert (f["records"], f["counts"]["tasks"], f["quarantined"]) == (TASKS, TASKS - 1, 1)


def test_bad_and_blank_lines_account_for_every_record(tmp_path, db_path, capsys, many_frames):
    items = []
    for i in range(TASKS):
        items.append(task(i) if i % 50 else ("junk" if i % 100 else {"task_id": i, "seq": "abc"}))
        if i % 7 == 0:
            items.append("")  # a blank line is not a record
    path = write_jsonl(tmp_path / "mixed.jsonl", items)
    f = accounted(capsys, db_path, path)
    assert (f["records"], f["quarantined"]) == (TASKS, TASKS // 50)
