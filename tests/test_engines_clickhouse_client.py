"""ClickHouse through its real client: clickhouse-connect with a chdb:// address (an embedded
ClickHouse behind the same client API the server path uses; clickhouse-connect >= 1.6).

The path a user takes: `export --to clickhouse` loads the warehouse, `rules run --engine
clickhouse` runs every rule there, and the findings equal DuckDB's, on the sample month and on
every rule fixture (each fixture's tables loaded through the same client)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

clickhouse_connect = pytest.importorskip("clickhouse_connect")
pytest.importorskip("chdb")
if tuple(int(p) for p in clickhouse_connect.__version__.split(".")[:2]) < (1, 6):
    pytest.skip("chdb:// addresses need clickhouse-connect >= 1.6", allow_module_level=True)

from engine_support import assert_fixture_alike  # noqa: E402
from trace_audit.cli.rule_fixtures import discover  # noqa: E402
from trace_audit.queries.engines.clickhouse import ClickHouseEngine  # noqa: E402
from trace_audit.queries.export import load_into_clickhouse  # noqa: E402

SAMPLE = Path(__file__).resolve().parent.parent / "sample_data"
NOW = "2026-11-30T00:00:00+00:00"
FINDINGS = ("SELECT rule_id, severity, task_id, conversation_id, user_id, seq, message, CAST(evidence AS VARCHAR), "
            "event_time FROM findings WHERE run_id = ? ORDER BY ALL")


def cli(*args: str) -> str:
    # each command in its own process, as a user runs them (chDB keeps one database per process)
    done = subprocess.run([sys.executable, "-m", "trace_audit.cli.main", *args], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_sample_month_from_export_to_rules_run_through_the_client(tmp_path):
    import duckdb

    db = str(tmp_path / "w.duckdb")
    url = f"chdb://{tmp_path / 'clickhouse'}"
    cli("ingest", str(SAMPLE / "seed004"), str(SAMPLE / "seed001"), "--db", db, "--tz", "Asia/Shanghai",
        "--no-progress")
    assert "tasks" in cli("export", "--db", db, "--to", "clickhouse", "--clickhouse-url", url)
    cli("rules", "run", "--db", db, "--now", NOW)
    cli("rules", "run", "--db", db, "--now", NOW, "--engine", "clickhouse", "--clickhouse-url", url)
    runs = [json.loads(x) for x in cli("rules", "runs", "--db", db, "--json").splitlines()]
    assert [r["engine"] for r in runs] == ["clickhouse", "duckdb"] and runs[0]["failed_count"] == 0
    con = duckdb.connect(db, read_only=True)
    try:
        on_ch, on_duck = (con.execute(FINDINGS, [r["run_id"]]).fetchall() for r in runs)
    finally:
        con.close()
    assert len(on_duck) > 1000 and on_ch == on_duck


FIXTURES = [(rule_id, p) for rule_id, paths in sorted(discover().items()) for p in paths]


@pytest.fixture(scope="module")
def client_engine(tmp_path_factory):
    eng = ClickHouseEngine(f"chdb://{tmp_path_factory.mktemp('ch-fixtures')}")
    yield eng
    eng.close()


@pytest.mark.parametrize("rule_id,path", FIXTURES, ids=[f"{r}/{p.stem}" for r, p in FIXTURES])
def test_fixture_same_findings_through_the_client(client_engine, rule_id, path):
    assert_fixture_alike("clickhouse", client_engine, rule_id, path,
                         before_attach=lambda con, eng: load_into_clickhouse(con, eng, replace=True))
