"""The CLI refuses what is wrong instead of answering nothing (issue 19): a missing database,
an unknown rule id; and it says what it has (rule runs, OTLP spans, the spool, the whole turn)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from trace_audit.cli.main import build_parser, main

TURN = [
    {"record": "task", "task_id": "turn-1", "user_id": "u1", "conversation_id": "c1", "status": "failed",
     "goal": "remind me at 8", "started_at": "2026-11-20T08:00:00Z", "finished_at": "2026-11-20T08:00:05Z"},
    {"record": "step", "task_id": "turn-1", "seq": 1, "tool": "create_reminder", "status": "failed",
     "verified": False, "attempts": 2, "started_at": "2026-11-20T08:00:01Z", "error": "DB timeout",
     "result": {"ok": False, "code": 503}},
    {"record": "message", "message_id": "m0", "conversation_id": "c1", "user_id": "u1", "role": "user",
     "content": "remind me tomorrow at 8", "created_at": "2026-11-20T07:59:59Z", "task_id": "turn-1"},
    {"record": "message", "message_id": "m1", "conversation_id": "c1", "user_id": "u1", "role": "assistant",
     "content": "Done, your reminder for 8:00 is set", "created_at": "2026-11-20T08:00:07Z", "task_id": "turn-1"},
    {"record": "message", "message_id": "m2", "conversation_id": "c1", "user_id": "u1", "role": "assistant",
     "content": "Anything else?", "task_id": "turn-1"},  # no time
]


@pytest.fixture
def loaded(tmp_path, capsys) -> str:
    src = tmp_path / "turn.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in TURN), encoding="utf-8")
    db = str(tmp_path / "w.duckdb")
    assert main(["ingest", str(src), "--db", db, "--no-progress"]) == 0
    capsys.readouterr()
    return db


READS = [
    ["rules", "run", "--now", "2026-12-01T00:00:00Z"], ["rules", "runs"], ["rules", "diff", "latest"],
    ["findings"], ["explain", "turn-1"], ["stats"], ["stats", "--errors"], ["report", "--week", "2026-W47"],
    ["export", "--parquet", "OUT"], ["dashboard"],
]


@pytest.mark.parametrize("argv", READS, ids=lambda a: " ".join(a[:2]))
def test_a_missing_database_is_exit_2_and_is_not_created(tmp_path, capsys, argv):
    typo = tmp_path / "typo.duckdb"
    argv = [str(tmp_path / "out") if a == "OUT" else a for a in argv]
    assert main(argv + ["--db", str(typo)]) == 2
    err = capsys.readouterr().err
    assert f"no trace-audit database at {typo}" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_ingest_of_a_missing_path_creates_no_database(tmp_path, capsys):
    db = tmp_path / "new.duckdb"
    assert main(["ingest", str(tmp_path / "nope.jsonl"), "--db", str(db), "--no-progress"]) == 2
    assert "nope.jsonl: no such file or directory" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []  # neither the database nor its redaction key


def test_unknown_rule_is_exit_2_with_the_known_ids(loaded, capsys):
    assert main(["rules", "run", "--db", loaded, "--now", "2026-12-01T00:00:00Z"]) == 0
    capsys.readouterr()
    assert main(["findings", "--db", loaded, "--rule", "verified_fals"]) == 2
    err = capsys.readouterr().err
    assert "no rule 'verified_fals'. Did you mean verified_false?" in err
    assert "said_but_not_done" in err and "_turn_replies" not in err  # turn models are no rules
    assert main(["findings", "--db", loaded, "--rule", "said_but_not_done"]) == 0
    assert "1 finding(s)" in capsys.readouterr().err


def test_rules_runs_lists_every_run(loaded, capsys):
    assert main(["rules", "runs", "--db", loaded]) == 0
    assert "no rule run stored yet" in capsys.readouterr().err
    for now in ("2026-12-01T00:00:00Z", "2026-12-02T00:00:00Z"):
        assert main(["rules", "run", "--db", loaded, "--now", now]) == 0
    out = capsys.readouterr().out
    run_ids = [line.split()[1] for line in out.splitlines() if line.startswith("run ")]
    assert main(["rules", "runs", "--db", loaded, "--json"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["run_id"] for r in rows] == [r.rstrip(":") for r in reversed(run_ids)]
    assert {r["engine"] for r in rows} == {"duckdb"} and all(r["rule_count"] >= 13 for r in rows)
    assert rows[0]["now_ts"].startswith("2026-12-02T00:00:00") and rows[0]["finding_count"] >= 1
    assert main(["rules", "runs", "--db", loaded]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split()[:2] == ["run", "id"] and len(table) == 3 and "duckdb" in table[1]


def _parsers(parser: argparse.ArgumentParser, path=()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield path + (name,), child
                yield from _parsers(child, path + (name,))


def test_every_sub_command_help_says_what_it_does():
    seen = list(_parsers(build_parser()))
    assert ("rules", "runs") in {p for p, _ in seen} and len(seen) >= 16
    for path, parser in seen:
        assert parser.description and len(parser.description) > 15, path


def test_stats_says_when_nothing_is_quarantined_and_counts_spans_and_spool(loaded, capsys, tmp_path):
    assert main(["stats", "--db", loaded, "--errors"]) == 0
    assert "nothing quarantined" in capsys.readouterr().out
    spool = Path(loaded + ".otlp-spool")
    spool.mkdir()
    (spool / "ready-0000000001.otlp.pb").write_bytes(b"\0" * 100)
    assert main(["stats", "--db", loaded, "--json"]) == 0
    counts = json.loads(capsys.readouterr().out)
    assert counts["otel_spans"] == 0 and counts["tasks"] == 1
    assert counts["spool"] == {"dir": str(spool), "segments": 1, "bytes": 100, "failed_segments": 0}
    assert main(["stats", "--db", loaded]) == 0
    assert "1 segment(s), 100 bytes waiting to load" in capsys.readouterr().out


def test_explain_shows_the_whole_turn_and_offers_near_ids(loaded, capsys):
    assert main(["explain", "turn-1", "--db", loaded, "--now", "2026-12-01T00:00:00Z"]) == 0
    text = capsys.readouterr().out
    conv = text.split("--- Conversation ---")[1].split("--- Reply ---")[0].strip().splitlines()
    assert [line.split(" ", 2)[2] for line in conv[:2]] == [
        "user: remind me tomorrow at 8", "assistant (linked reply): Done, your reminder for 8:00 is set"]
    assert conv[2] == "(no time) assistant (linked reply): Anything else?"
    assert "None" not in text.split("--- Rules ---")[1]
    assert 'error=DB timeout' in text and 'result={"ok":false,"code":503}' in text
    assert main(["explain", "turn-2", "--db", loaded]) == 2
    err = capsys.readouterr().err
    assert "no task 'turn-2'" in err and "Did you mean turn-1?" in err


def test_version_is_the_installed_distributions(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"trace-audit {version('trace-audit')}"


def test_demo_without_serving_prints_the_counts(tmp_path, capsys):
    assert main(["demo", "--db", str(tmp_path / "demo.duckdb"), "--no-serve"]) == 0
    out = capsys.readouterr().out
    assert "findings" in out and "otel_spans" in out
    assert int(next(line.split()[1] for line in out.splitlines() if line.startswith("tasks")).replace(",", "")) > 1000


def test_demo_help_names_where_demo_keeps_its_database(capsys):
    # demo never writes the shared default warehouse: its help must say where its file goes
    with pytest.raises(SystemExit):
        main(["demo", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "default: ~/.cache/trace-audit/demo.duckdb" in text
    assert "./trace_audit.duckdb" not in text
