"""A bad value on the command line is a usage error (exit 2, a message naming the option), never exit 70."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize("args, option", [
    (["findings", "--limit", "-1"], "--limit"),
    (["stats", "--limit", "-2"], "--limit"),
    (["rules", "runs", "--limit", "-1"], "--limit"),
    (["serve-otlp", "--port", "99999"], "--port"),
    (["serve-otlp", "--port", "-1"], "--port"),
    (["serve-otlp", "--max-request-mb", "0"], "--max-request-mb"),
    (["serve-otlp", "--max-spool-mb", "nan"], "--max-spool-mb"),
    (["serve-otlp", "--drain-interval", "-1"], "--drain-interval"),
    (["dashboard", "--port", "70000"], "--port"),
    (["demo", "--port", "x"], "--port"),
])
def test_bad_values_are_usage_errors(tmp_path, args, option):
    out = subprocess.run([sys.executable, "-c", "from trace_audit.cli.main import main; raise SystemExit(main())", *args, "--db", str(tmp_path / "w.duckdb")],
                         capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert out.returncode == 2, out.stderr
    assert option in out.stderr and "Traceback" not in out.stderr
    assert not (tmp_path / "w.duckdb").exists()
