"""Precision and recall per rule on the generator's labelled month (sample_data/labels).

The labels come from sample_data/generate.py, derived from the turns it built
(not from these rules). Printed per rule; the bar from the issue is asserted:
said_but_not_done (and its kind) and every other rule >= 0.95. A rule the labels
name before it exists in queries/rules/ (claimed_value_mismatch and asked_value_mismatch
were labelled first, issue 15) is printed, not asserted, until it lands.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

import pytest

from trace_audit.queries.warehouse import db
from trace_audit.queries.engine import run_rules

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_data"
RULES = ROOT / "queries" / "rules"
LABELS = SAMPLE / "labels" / "turn_labels.csv"
NOW = datetime(2026, 11, 29, 16, 0, tzinfo=timezone.utc)  # 2026-11-30 00:00 Asia/Shanghai, as the labels assume
BAR = 0.95


def _key(task_id: str | None, message_id: str | None) -> str:
    return task_id if task_id else f"reply:{message_id or ''}"


def _exists(rule: str) -> bool:
    return (RULES / f"{rule}.sql").exists() or (RULES / f"{rule}.py").exists()


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    if not LABELS.exists():
        pytest.skip("sample_data/labels/turn_labels.csv not generated")
    from trace_audit.ingest.load.loader import ingest

    path = str(tmp_path_factory.mktemp("labelled") / "w.duckdb")
    ingest([str(SAMPLE / "seed004"), str(SAMPLE / "seed001")], path, tz="Asia/Shanghai", progress=False)
    con = db.connect(path)
    try:
        result = run_rules(con, now=NOW)
        rows = con.execute("SELECT rule_id, task_id, evidence FROM findings WHERE run_id = ?",
                           [result.run_id]).fetchall()
    finally:
        con.close()
    expected, kinds, basis = defaultdict(set), {}, defaultdict(set)
    with LABELS.open(encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            k = _key(r["task_id"], r["reply_message_id"])
            for rule in filter(None, r["expected_rules"].split(";")):
                expected[rule].add(k)
            kinds[k] = r["sbnd"]
            basis[r["sbnd_basis"]].add(k)
    predicted, pkinds = defaultdict(set), {}
    for rule, task_id, evidence in rows:
        ev = json.loads(evidence)
        k = _key(task_id, ev.get("message_id"))
        predicted[rule].add(k)
        if rule == "said_but_not_done":
            pkinds[k] = ev["kind"]
    return result, expected, predicted, kinds, pkinds, basis


def test_precision_recall_per_rule(scored, capsys):
    result, expected, predicted, kinds, pkinds, basis = scored
    assert result.failed == []
    below = []
    with capsys.disabled():
        print(f"\n{'rule':<24} {'labels':>6} {'tp':>5} {'fp':>4} {'fn':>4} {'precision':>9} {'recall':>7}")
        for rule in sorted(set(expected) | set(predicted)):
            tp = len(expected[rule] & predicted[rule])
            fp = len(predicted[rule] - expected[rule])
            fn = len(expected[rule] - predicted[rule])
            p = tp / (tp + fp) if tp + fp else 1.0
            r = tp / (tp + fn) if tp + fn else 1.0
            note = "" if _exists(rule) else "  (not in queries/rules/ yet: not asserted)"
            print(f"{rule:<24} {len(expected[rule]):>6} {tp:>5} {fp:>4} {fn:>4} {p:>9.3f} {r:>7.3f}{note}")
            if (p < BAR or r < BAR) and _exists(rule):
                below.append((rule, p, r))
        sbnd = expected["said_but_not_done"]
        for how in ("writes", "claimed_actions"):  # which check of the labels gives the label
            part = sbnd & basis[how]
            found = len(part & predicted["said_but_not_done"])
            print(f"said_but_not_done from {how}: {found}/{len(part)} found")
        both = sbnd & predicted["said_but_not_done"]
        agree = sum(1 for k in both if kinds[k] == pkinds[k])
        print(f"said_but_not_done kind agreement: {agree}/{len(both)}")
    assert not below, f"rules below the {BAR} bar: {below}"
    assert agree >= BAR * len(both)
    assert len(expected["said_but_not_done"]) >= 100  # the set is big enough to mean something
