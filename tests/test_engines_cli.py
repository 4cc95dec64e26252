"""`trace-audit rules run --engine chdb` and `rules check --engines duckdb,chdb` through the real CLI.

Skipped until cli/cmd_rules.py carries the options (see docs/scale-out.md)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

pytest.importorskip("chdb")

from trace_audit.cli.main import build_parser, main  # noqa: E402
from trace_audit.ingest.load.loader import ingest  # noqa: E402

SAMPLE = Path(__file__).resolve().parent.parent / "sample_data"


def _has_option(argv: list[str], option: str) -> bool:
    parser = build_parser()
    sub = parser._subparsers._group_actions[0].choices["rules"]  # noqa: SLF001 - argparse keeps no public API
    action = sub._subparsers._group_actions[0].choices[argv[0]]  # noqa: SLF001
    return any(option in a.option_strings for a in action._actions)  # noqa: SLF001


def test_rules_run_on_chdb_stores_the_same_findings_with_the_engine(tmp_path, capsys):
    if not _has_option(["run"], "--engine"):
        pytest.skip("rules run --engine not wired yet")
    db_path = str(tmp_path / "w.duckdb")
    ingest([str(SAMPLE / "seed001")], db_path, progress=False)
    now = "2026-11-30T00:00:00Z"
    assert main(["rules", "run", "--db", db_path, "--now", now]) == 0
    assert main(["rules", "run", "--db", db_path, "--now", now, "--engine", "chdb"]) == 0
    con = duckdb.connect(db_path, read_only=True)
    try:
        runs = con.execute("SELECT run_id, engine, finding_count FROM rule_runs ORDER BY started_at").fetchall()
        assert [r[1] for r in runs] == ["duckdb", "chdb"] and runs[0][2] == runs[1][2] > 0
        cols = "rule_id, severity, task_id, conversation_id, user_id, seq, message, CAST(evidence AS VARCHAR), event_time"
        a, b = (con.execute(f"SELECT {cols} FROM findings WHERE run_id = ? ORDER BY ALL", [r[0]]).fetchall()
                for r in runs)
        assert a == b
    finally:
        con.close()
    assert main(["rules", "run", "--db", db_path, "--now", now, "--engine", "clickhouse"]) == 2
    assert "--clickhouse-url" in capsys.readouterr().err


def test_rules_check_names_an_unknown_engine(capsys):
    # the comparison itself is tested in test_engines.py (compare_fixtures); this checks the wiring
    if not _has_option(["check"], "--engines"):
        pytest.skip("rules check --engines not wired yet")
    assert main(["rules", "check", "--engines", "duckdb,oracle"]) == 2
    captured = capsys.readouterr()
    assert "unknown engine 'oracle'" in captured.err and "PORTABLE" not in captured.out
