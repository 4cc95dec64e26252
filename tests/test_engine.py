"""The rule engine on a real DuckDB file: loading errors, isolation of a failing rule,
config validation, determinism, time windows, storage and decisions."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from trace_audit.cli.main import main
from trace_audit.queries import runs
from trace_audit.queries.warehouse import db
from trace_audit.queries.config import ConfigError, load_config, parse_config
from trace_audit.queries.engine import run_rules
from trace_audit.queries.rulefile import RuleLoadError, load_rule_file

NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)
FIX = Path(__file__).resolve().parent.parent / "queries" / "rules" / "fixtures"


@pytest.fixture
def warehouse(db_path, tmp_path):
    """All said_but_not_done fixtures in one warehouse, ids prefixed per file so they do not collide."""
    from trace_audit.ingest.load.loader import ingest

    out = tmp_path / "all.jsonl"
    lines = []
    for n, path in enumerate(sorted((FIX / "said_but_not_done").glob("*.jsonl"))):
        for line in path.read_text("utf-8").splitlines():
            rec = json.loads(line)
            if "expect" in rec:
                continue
            for key in ("task_id", "message_id", "conversation_id", "audit_id"):
                if rec.get(key):
                    rec[key] = f"f{n}-{rec[key]}"
            lines.append(json.dumps(rec, ensure_ascii=False))
    out.write_text("\n".join(lines) + "\n", "utf-8")
    ingest([str(out)], db_path, tz="UTC", progress=False)
    return db_path


def _write(path: Path, text: str) -> Path:
    path.write_text(text, "utf-8")
    return path


def test_param_used_but_not_declared_names_file_and_line(tmp_path):
    p = _write(tmp_path / "my_rule.sql", '-- id = "my_rule"\n-- title = "t"\nSELECT task_id\nFROM tasks\nWHERE total_steps > $limit\n')
    with pytest.raises(RuleLoadError, match=r"my_rule.sql:5: parameter \$limit is used but not declared"):
        load_rule_file(p)


def test_param_declared_but_unused_names_file_and_line(tmp_path):
    p = _write(tmp_path / "my_rule.sql", '-- id = "my_rule"\n-- title = "t"\n-- [params]\n-- limit = 3\nSELECT task_id FROM tasks\n')
    with pytest.raises(RuleLoadError, match=r"my_rule.sql:4: parameter limit is declared but"):
        load_rule_file(p)


def test_dollar_inside_string_literal_is_not_a_param(tmp_path):
    p = _write(tmp_path / "my_rule.sql", "-- id = \"my_rule\"\n-- title = \"t\"\nSELECT task_id FROM steps WHERE json_extract_string(args, '$.top_k') = '1'\n")
    assert load_rule_file(p).used_params == []


def test_header_must_match_file_and_schema(tmp_path):
    p = _write(tmp_path / "a_rule.sql", '-- id = "other"\n-- title = "t"\nSELECT 1 AS task_id\n')
    with pytest.raises(RuleLoadError, match="must equal the file name"):
        load_rule_file(p)
    p = _write(tmp_path / "b_rule.sql", '-- id = "b_rule"\n-- title = "t"\n-- severity = "fatal"\nSELECT 1 AS task_id\n')
    with pytest.raises(RuleLoadError, match="b_rule.sql:1: bad header: severity"):
        load_rule_file(p)


def test_a_failing_rule_is_recorded_and_the_others_still_run(warehouse, tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    _write(rules / "broken_rule.sql", '-- id = "broken_rule"\n-- title = "t"\nSELECT task_id FROM no_such_table\n')
    con = db.connect(warehouse)
    try:
        result = run_rules(con, now=NOW, rules_dir=rules)
        assert [r for r, _ in result.failed] == ["broken_rule"]
        assert "no_such_table" in result.failed[0][1]
        counts = result.counts()
        assert counts["said_but_not_done"] >= 6
        stored = con.execute("SELECT failed_rules, finding_count FROM rule_runs WHERE run_id = ?", [result.run_id]).fetchall()[0]
        assert json.loads(stored[0])[0]["id"] == "broken_rule"
        assert stored[1] == result.finding_count == con.execute(
            "SELECT count(*) FROM findings WHERE run_id = ?", [result.run_id]).fetchall()[0][0]
    finally:
        con.close()


def test_same_data_rules_and_now_give_identical_findings(warehouse):
    con = db.connect(warehouse)
    try:
        a = run_rules(con, now=NOW).run_id
        b = run_rules(con, now=NOW).run_id
        q = ("SELECT rule_id, severity, task_id, conversation_id, user_id, seq, message, CAST(evidence AS VARCHAR), "
             "event_time FROM findings WHERE run_id = ? ORDER BY ALL")
        fa, fb = con.execute(q, [a]).fetchall(), con.execute(q, [b]).fetchall()
        assert fa == fb and len(fa) > 0
        _, _, diff = runs.diff(con, a, b)
        assert all(r["new"] == 0 and r["resolved"] == 0 for r in diff)
    finally:
        con.close()


def test_said_but_not_done_evidence_contract(warehouse):
    con = db.connect(warehouse)
    try:
        rid = run_rules(con, now=NOW, rule_ids=["said_but_not_done"]).run_id
        rows = runs.findings(con, rid, "said_but_not_done")
        kinds = set()
        for r in rows:
            ev = json.loads(r["evidence"])
            assert {"kind", "reply", "message_id", "tools"} <= set(ev)
            assert r["conversation_id"] is not None
            for t in ev["tools"]:
                assert {"tool", "status", "verified", "error", "detail"} <= set(t)
            kinds.add(ev["kind"])
        assert kinds == {"failed", "not_executed", "unverified", "not_created", "partial"}
    finally:
        con.close()


def test_since_until_keep_only_findings_in_the_window(warehouse):
    con = db.connect(warehouse)
    try:
        r = run_rules(con, now=NOW, since=datetime(2027, 1, 1, tzinfo=timezone.utc))
        assert r.finding_count == 0
        r = run_rules(con, now=NOW, since=datetime(2026, 11, 20, tzinfo=timezone.utc),
                      until=datetime(2026, 11, 21, tzinfo=timezone.utc))
        assert r.finding_count > 0
    finally:
        con.close()


def test_decisions_worst_severity_and_allow(warehouse):
    con = db.connect(warehouse)
    try:
        rid = run_rules(con, now=NOW).run_id
        d = runs.decisions(con, rid)
        by_task = {x["task_id"]: x["decision"] for x in d if x["task_id"]}
        assert "block" in by_task.values() and "allow" in by_task.values()
        assert any(x["task_id"] is None and x["decision"] == "block" for x in d)  # a reply with no task
    finally:
        con.close()


def test_python_rule(warehouse, tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    _write(rules / "no_goal.py", 'RULE = {"id": "no_goal", "title": "task without a goal", "severity": "info",'
           ' "message": "no goal"}\n\ndef check(turn):\n    return [{"steps": len(turn["steps"])}] if not turn["task"]["goal"] else []\n')
    con = db.connect(warehouse)
    try:
        r = run_rules(con, now=NOW, rule_ids=["no_goal"], rules_dir=rules)
        assert r.failed == [] and r.finding_count > 0
        ev = json.loads(con.execute("SELECT evidence FROM findings WHERE run_id = ? LIMIT 1", [r.run_id]).fetchall()[0][0])
        assert "steps" in ev
    finally:
        con.close()


def test_config_unknown_key_and_wrong_type_are_clear(tmp_path):
    with pytest.raises(ConfigError, match="unknown key 'rules.stuck_running.treshold'"):
        parse_config({"rules": {"stuck_running": {"treshold": 3}}})
    with pytest.raises(ConfigError, match="linking.reply_window_seconds"):
        parse_config({"linking": {"reply_window_seconds": "soon"}})
    p = _write(tmp_path / "trace-audit.toml", '[rules.stuck_running]\nparams = { threshold_minutes = "x" }\n')
    from trace_audit.queries.engine import plan_run
    with pytest.raises(ConfigError, match="threshold_minutes: expected int"):
        plan_run(load_config(p))


def test_config_threshold_and_severity_override(warehouse, tmp_path):
    cfg = tmp_path / "trace-audit.toml"
    _write(cfg, '[rules.said_but_not_done]\nseverity = "review"\n[rules.final_answer_json]\nenabled = true\n')
    con = db.connect(warehouse)
    try:
        r = run_rules(con, now=NOW, config=cfg)
        sev = {o.id: o.severity for o in r.rules}
        assert sev["said_but_not_done"] == "review" and "final_answer_json" in sev
    finally:
        con.close()


def test_cli_run_findings_explain_and_exit_codes(warehouse, capsys):
    assert main(["rules", "run", "--db", warehouse, "--now", "2026-12-01T00:00:00Z"]) == 0
    out = capsys.readouterr().out
    assert "said_but_not_done" in out and "findings from" in out
    assert main(["findings", "--db", warehouse, "--rule", "said_but_not_done", "--format", "jsonl"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert lines and all("conversation_id" in x and "task_id" in x for x in lines)
    files = sorted(p.name for p in (FIX / "said_but_not_done").glob("*.jsonl"))
    failed_task = f"f{files.index('fire_failed_write_zh.jsonl')}-t1"  # the ids are prefixed per file
    assert main(["explain", failed_task, "--db", warehouse, "--now", "2026-12-01T00:00:00Z"]) == 0
    text = capsys.readouterr().out
    assert "Decision:" in text and "[PASS]" in text and "--- Steps ---" in text
    assert main(["rules", "run", "--db", warehouse, "--rule", "nope"]) == 2
    assert "unknown rule nope" in capsys.readouterr().err


def test_turn_model_dependencies_are_declared(tmp_path):
    from trace_audit.queries.rulefile import load_rules

    header = '-- id = "{id}"\n-- title = "t"\n'
    undeclared = _write(tmp_path / "reads_replies.sql",
                        header.format(id="reads_replies") + "SELECT task_id\nFROM turn_replies\n")
    with pytest.raises(RuleLoadError, match=r"reads_replies.sql:4: reads the turn-model table turn_replies without "
                                            r"declaring it; add uses = \[\"_turn_replies\"\]"):
        load_rules([tmp_path])
    undeclared.unlink()
    _write(tmp_path / "unknown_use.sql", header.format(id="unknown_use") + '-- uses = ["_no_such"]\nSELECT 1 AS task_id\n')
    with pytest.raises(RuleLoadError, match=r"unknown_use.sql:3: uses '_no_such', which is not a turn-model file"):
        load_rules([tmp_path])
    _write(tmp_path / "unknown_use.sql", header.format(id="unknown_use") + '-- uses = ["_write_steps"]\nSELECT 1 AS task_id\n')
    with pytest.raises(RuleLoadError, match=r"uses '_write_steps' but the SQL never reads write_steps"):
        load_rules([tmp_path])
    _write(tmp_path / "unknown_use.sql", header.format(id="unknown_use") + '-- uses = ["_write_steps"]\n'
                                                                              'SELECT task_id FROM write_steps\n')
    assert "unknown_use" in {r.id for r in load_rules([tmp_path])}
