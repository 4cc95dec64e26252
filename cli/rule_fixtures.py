"""Rule fixtures: tiny data sets each rule must fire on, and must not fire on.

    queries/rules/fixtures/<rule_id>/fire_<case>.jsonl   the rule must find >= 1 (or `findings`)
    queries/rules/fixtures/<rule_id>/pass_<case>.jsonl   the rule must find nothing

A fixture is canonical JSONL (`{"record": "task" | "step" | "message" |
"audit", ...}`, see `trace-audit schema`), loaded by the real loader into an
in-memory DuckDB. An optional line `{"expect": {...}}` sets `now` (ISO time,
default 2026-12-01T00:00:00Z), `findings` (exact count), `kind` (evidence
kind of every finding), `rows` (exactly which rows fire, semgrep-style: a list of
`[task_id, seq]`, seq null for a finding about the whole turn) and `config` (a
trace-audit.toml table as JSON).
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..queries.warehouse import db
from ..queries.config import parse_config
from ..queries.rulefile import builtin_rules_dir

DEFAULT_NOW = "2026-12-01T00:00:00+00:00"


@dataclass
class FixtureResult:
    rule_id: str
    path: Path
    must_fire: bool
    ok: bool
    detail: str


def fixture_dirs(rules_dirs: list[Path] | None = None) -> list[Path]:
    return [d / "fixtures" for d in [builtin_rules_dir(), *(rules_dirs or [])] if (d / "fixtures").is_dir()]


def discover(rules_dirs: list[Path] | None = None) -> dict[str, list[Path]]:
    """{rule id: [fixture files]} for every fixture directory."""
    out: dict[str, list[Path]] = {}
    for fdir in fixture_dirs(rules_dirs):
        for d in sorted(p for p in fdir.iterdir() if p.is_dir()):
            out.setdefault(d.name, []).extend(sorted(d.glob("*.jsonl")))
    return out


def load_fixture(path: Path):
    """(in-memory warehouse holding the fixture's records, its `expect` line, the ingest summary)."""
    from ..ingest.load.loader import ingest

    expect, records = {}, []
    for line in path.read_text("utf-8").splitlines():
        if not line.strip():
            continue
        obj = json.loads(line)
        if "expect" in obj:
            expect = obj["expect"]
        else:
            records.append(line)
    con = db.connect(":memory:")
    fd, tmp = tempfile.mkstemp(suffix=".jsonl")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write("\n".join(records) + "\n")
        summary = ingest([tmp], con=con, tz="UTC", progress=False)
    finally:
        os.unlink(tmp)
    return con, expect, summary


def run_fixture(rule_id: str, path: Path, rules_dirs: list[Path] | None = None) -> FixtureResult:
    from ..queries.engine import execute_plan, plan_run

    must_fire = path.name.startswith("fire")
    con, expect, summary = load_fixture(path)
    try:
        bad = [f for f in summary.files if f.status == "failed" or f.errors]
        if bad:
            return FixtureResult(rule_id, path, must_fire, False,
                                 f"fixture does not load: {bad[0].message or bad[0].first_errors}")
        cfg = parse_config(expect.get("config", {}), f"{path} expect.config")
        now = datetime.fromisoformat(expect.get("now", DEFAULT_NOW))
        plan = plan_run(cfg, [rule_id], rules_dirs[0] if rules_dirs else None, now)
        result = execute_plan(con, plan, store=False)
        if result.failed:
            return FixtureResult(rule_id, path, must_fire, False, f"rule failed: {result.failed[0][1]}")
        rows = con.execute("SELECT evidence, task_id, seq FROM _ta_stage WHERE rule_id = ?", [rule_id]).fetchall()
        n = len(rows)
        if not must_fire:
            ok = n == 0
            detail = "no findings" if ok else f"expected no findings, got {n}"
        else:
            want = expect.get("findings")
            ok = n == want if want is not None else n >= 1
            detail = f"{n} finding(s)" + ("" if ok else f", expected {want if want is not None else '>= 1'}")
            kind = expect.get("kind")
            if ok and kind is not None:
                kinds = sorted({json.loads(e).get("kind") for e, _, _ in rows})
                ok = kinds == [kind]
                detail += f", kinds {kinds}" + ("" if ok else f", expected [{kind!r}]")
            want_rows = expect.get("rows")
            if ok and want_rows is not None:
                got = fired_rows(rows)
                pinned = sorted(((t, s) for t, s in want_rows), key=_row_key)
                ok = got == pinned
                detail += "" if ok else f", rows {_shown(got)}, expected {_shown(pinned)}"
        return FixtureResult(rule_id, path, must_fire, ok, detail)
    finally:
        con.close()


def fired_rows(rows: list[tuple]) -> list[tuple[str, int | None]]:
    """(task_id, seq) of each finding, sorted: what a fixture's `rows` pins."""
    return sorted(((t, s) for _, t, s in rows), key=_row_key)


def _row_key(row: tuple[str, int | None]) -> tuple[str, int]:
    return row[0] or "", -1 if row[1] is None else row[1]


def _shown(rows: list[tuple[str, int | None]]) -> str:
    return "[" + ", ".join(f"{t}#{s}" if s is not None else str(t) for t, s in rows) + "]"
