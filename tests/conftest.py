"""Shared test fixtures: real DuckDB files in tmp dirs, paths to shared data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
SAMPLE = REPO / "sample_data"


@pytest.fixture
def db_path(tmp_path) -> str:
    return str(tmp_path / "warehouse.duckdb")


@pytest.fixture(autouse=True)
def _no_env_db(monkeypatch):
    # Tests never touch a user's warehouse through $TRACE_AUDIT_DB.
    monkeypatch.delenv("TRACE_AUDIT_DB", raising=False)
    monkeypatch.setenv("TZ", os.environ.get("TZ", "UTC"))


@pytest.fixture(scope="module")
def warehouse():
    """One real warehouse file shared by a module's property-test examples (each example writes
    its own input file into the folder), to keep those tests fast: (connection, folder)."""
    import tempfile

    from trace_audit.queries import db

    with tempfile.TemporaryDirectory() as tmp:
        con = db.connect(str(Path(tmp) / "w.duckdb"))
        yield con, Path(tmp)
        con.close()
