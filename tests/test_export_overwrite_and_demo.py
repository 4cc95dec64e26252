"""`export --parquet DIR --overwrite` replaces what it exports whole (no old day files left to
read back); `demo --db PATH` never deletes a warehouse it did not make."""

from __future__ import annotations

import json

import duckdb

from trace_audit.cli.main import main


def _turns(path, n: int, day: str) -> None:
    with open(path, "w") as f:
        for i in range(n):
            f.write(json.dumps({"record": "task", "task_id": f"{day}-{i}", "user_id": "u", "status": "success",
                                "started_at": f"{day}T08:00:00Z"}) + "\n")
            f.write(json.dumps({"record": "step", "task_id": f"{day}-{i}", "seq": 1, "tool": "t", "status": "success",
                                "started_at": f"{day}T08:00:01Z"}) + "\n")


def test_overwrite_replaces_the_whole_export(tmp_path, capsys):
    big, small = tmp_path / "big.duckdb", tmp_path / "small.duckdb"
    for i, day in enumerate(("2026-11-01", "2026-11-02", "2026-11-03")):
        _turns(tmp_path / f"b{i}.jsonl", 200, day)
        assert main(["ingest", str(tmp_path / f"b{i}.jsonl"), "--db", str(big)]) == 0
    _turns(tmp_path / "s.jsonl", 3, "2026-11-20")
    assert main(["ingest", str(tmp_path / "s.jsonl"), "--db", str(small)]) == 0
    out = tmp_path / "export"
    (out).mkdir()
    (out / "README.txt").write_text("mine")  # not ours to delete
    assert main(["export", "--db", str(big), "--parquet", str(out)]) == 0
    assert main(["export", "--db", str(small), "--parquet", str(out), "--overwrite"]) == 0
    capsys.readouterr()
    con = duckdb.connect()
    steps = con.execute(f"SELECT count(*) FROM read_parquet('{out}/steps/**/*.parquet', hive_partitioning=true)")
    assert steps.fetchall()[0][0] == 3
    assert (out / "README.txt").read_text() == "mine"
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no staging left behind


def test_demo_never_deletes_a_warehouse_it_did_not_make(tmp_path, capsys):
    mine = tmp_path / "mine.duckdb"
    _turns(tmp_path / "t.jsonl", 2, "2026-11-05")
    assert main(["ingest", str(tmp_path / "t.jsonl"), "--db", str(mine)]) == 0
    before = mine.read_bytes()
    assert main(["demo", "--db", str(mine), "--no-serve"]) == 2
    assert "was not made by demo" in capsys.readouterr().err
    assert mine.read_bytes() == before
    other = tmp_path / "notes.txt"
    other.write_text("keep me")
    assert main(["demo", "--db", str(other), "--no-serve"]) == 2
    assert other.read_text() == "keep me"
    demo = tmp_path / "demo.duckdb"
    assert main(["demo", "--db", str(demo), "--no-serve"]) == 0
    assert main(["demo", "--db", str(demo), "--no-serve"]) == 0  # its own: rebuilt
