#!/usr/bin/env python3
"""Score issue 15's checks on a hand-labelled set (default: tests/fixtures/values_set).

    python bench/values_eval.py [PATH.jsonl ...]

The set is ingested by the real loader into a temporary DuckDB file and judged by the real
rules; each turn's label (task metadata.label, see the set's README) says whether
said_but_not_done fires with kind partial/not_executed (a claimed action with no write),
whether claimed_value_mismatch fires (value_mismatch not empty) and whether
asked_value_mismatch fires (asked_mismatch not empty). Prints precision and recall per
check and language, and every miss.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT = REPO / "tests" / "fixtures" / "values_set" / "values_set.jsonl"
CHECKS = {"unbacked_action": "said_but_not_done", "value_mismatch": "claimed_value_mismatch",
          "asked_mismatch": "asked_value_mismatch"}


def score(paths: list[str] | None = None) -> dict:
    from trace_audit.ingest.load.loader import ingest
    from trace_audit.queries.engine import run_rules
    from trace_audit.queries.warehouse import db

    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "w.duckdb")
        ingest([str(p) for p in (paths or [DEFAULT])], path, progress=False)
        con = db.connect(path)
        try:
            result = run_rules(con, now=datetime(2026, 12, 31, tzinfo=timezone.utc))
            labels = {t: lab for t, m in con.execute("SELECT task_id, metadata FROM tasks").fetchall()
                      if (lab := (json.loads(m or "null") or {}).get("label"))}  # unlabelled turns are not scored
            rows = con.execute("SELECT rule_id, task_id, evidence FROM findings WHERE run_id = ?",
                               [result.run_id]).fetchall()
        finally:
            con.close()
    fired: dict[str, set] = {c: set() for c in CHECKS}
    for rule, task_id, evidence in rows:
        ev = json.loads(evidence)
        if rule == "said_but_not_done" and ev.get("kind") in ("partial", "not_executed"):
            fired["unbacked_action"].add(task_id)
        elif rule == "claimed_value_mismatch":
            fired["value_mismatch"].add(task_id)
        elif rule == "asked_value_mismatch":
            fired["asked_mismatch"].add(task_id)
    truth = {
        "unbacked_action": {t for t, lb in labels.items() if lb.get("kind") in ("partial", "not_executed")},
        "value_mismatch": {t for t, lb in labels.items() if lb.get("value_mismatch")},
        "asked_mismatch": {t for t, lb in labels.items() if lb.get("asked_mismatch")},
    }
    out, misses = {}, []
    for check in CHECKS:
        for lang in ("all", "zh", "en"):
            ids = {t for t, lb in labels.items() if lang == "all" or lb.get("lang") == lang}
            tp = len(truth[check] & fired[check] & ids)
            fp = len((fired[check] - truth[check]) & ids)
            fn = len((truth[check] - fired[check]) & ids)
            out[f"{check}:{lang}"] = {"tp": tp, "fp": fp, "fn": fn,
                                      "precision": tp / (tp + fp) if tp + fp else 1.0,
                                      "recall": tp / (tp + fn) if tp + fn else 1.0}
        for t in sorted((truth[check] ^ fired[check])):
            misses.append({"check": check, "task": t, "case": labels[t].get("case"),
                           "problem": "missed" if t in truth[check] else "false alarm"})
    return {"scores": out, "misses": misses, "failed": result.failed, "labelled": len(labels)}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", metavar="PATH.jsonl", help=f"labelled sets (default: {DEFAULT.relative_to(REPO)})")
    a = ap.parse_args(argv)
    missing = [p for p in a.paths if not Path(p).is_file()]
    if missing:
        print(f"values_eval: no such file: {', '.join(missing)}", file=sys.stderr)
        return 2
    s = score(a.paths or None)
    if not s["labelled"]:
        print("values_eval: no labelled turns in the set (task metadata.label): nothing to score", file=sys.stderr)
        return 2
    print(f"{'check':<28} {'tp':>4} {'fp':>4} {'fn':>4} {'precision':>9} {'recall':>7}")
    for k, v in s["scores"].items():
        print(f"{k:<28} {v['tp']:>4} {v['fp']:>4} {v['fn']:>4} {v['precision']:>9.3f} {v['recall']:>7.3f}")
    for m in s["misses"]:
        print(f"  {m['check']}: {m['problem']}: {m['case']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
