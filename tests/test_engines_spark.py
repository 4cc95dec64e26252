"""Spark (optional extra): every built-in rule gives the same findings as DuckDB on the sample month.

Runs only where pyspark and Java are installed (`pip install 'trace-audit[spark]'`); the default
CI install has neither. Spark starts a JVM and plans each query in stages, so this takes minutes.
"""

from __future__ import annotations

import os

import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest

pytest.importorskip("pyspark")
# one JVM for the whole module (58 fixtures and the sample month): more heap than a single run needs
os.environ.setdefault("TRACE_AUDIT_SPARK_DRIVER_MEMORY", "6g")
if shutil.which("java") is None:
    pytest.skip("Spark needs Java 17+", allow_module_level=True)

from trace_audit.ingest.load.loader import ingest  # noqa: E402
from trace_audit.queries.warehouse import db  # noqa: E402
from trace_audit.queries.engines import run_rules_on  # noqa: E402
from trace_audit.queries.rulefile import load_rules  # noqa: E402

SAMPLE = Path(__file__).resolve().parent.parent / "sample_data"
NOW = datetime(2026, 11, 30, tzinfo=timezone.utc)
STAGED = ("SELECT rule_id, severity, task_id, conversation_id, user_id, seq, message, CAST(evidence AS VARCHAR), "
          "event_time FROM _ta_stage ORDER BY ALL")


@pytest.mark.slow
def test_sample_month_same_findings_on_duckdb_and_spark(tmp_path):
    path = str(tmp_path / "w.duckdb")
    ingest([str(SAMPLE / "seed004"), str(SAMPLE / "seed001")], path, tz="Asia/Shanghai", progress=False)
    rule_ids = [r.id for r in load_rules() if not r.is_model]
    con = db.connect(path)
    try:
        duck = run_rules_on("duckdb", con, now=NOW, rule_ids=rule_ids, store=False)
        rows_duck = con.execute(STAGED).fetchall()
        spark = run_rules_on("spark", con, now=NOW, rule_ids=rule_ids)
        assert spark.failed == [] and duck.failed == []
        stored = con.execute("SELECT engine FROM rule_runs WHERE run_id = ?", [spark.run_id]).fetchall()
        assert stored == [("spark",)]
        rows_spark = con.execute(
            "SELECT rule_id, severity, task_id, conversation_id, user_id, seq, message, CAST(evidence AS VARCHAR), "
            "event_time FROM findings WHERE run_id = ? ORDER BY ALL", [spark.run_id]).fetchall()
    finally:
        con.close()
    assert spark.counts() == duck.counts()
    assert rows_spark == rows_duck


# ---- rule fixtures: one Spark session for all of them -------------------------------------------

from engine_support import assert_fixture_alike  # noqa: E402
from trace_audit.cli.rule_fixtures import discover  # noqa: E402
from trace_audit.queries.engines.spark import SparkEngine  # noqa: E402

FIXTURES = [(rule_id, p) for rule_id, paths in sorted(discover().items()) for p in paths]


@pytest.fixture(scope="module")
def spark_session():
    eng = SparkEngine()
    yield eng
    eng.close()


@pytest.mark.slow
@pytest.mark.parametrize("rule_id,path", FIXTURES, ids=[f"{r}/{p.stem}" for r, p in FIXTURES])
def test_fixture_same_findings_on_duckdb_and_spark(spark_session, rule_id, path):
    assert_fixture_alike("spark", spark_session, rule_id, path)
