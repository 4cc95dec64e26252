#!/usr/bin/env python3
"""Score said_but_not_done on the hand-written phrasing set (tests/fixtures/claims_set).

    python bench/claims_eval.py                 # per-category table, totals, every miss
    python bench/claims_eval.py --json          # the same figures as JSON (the test reads score())
    python bench/claims_eval.py PATH.jsonl      # another set in the same format (a hold-out)

The set is ingested into a temporary DuckDB file by the real loader and the real
rule runs on it; each turn's label (metadata.label on its task record) says
whether said_but_not_done must fire and with which kind. Turns with no reply
recorded are labelled `unjudged`: they must be reported as such, never passed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SET = REPO / "tests" / "fixtures" / "claims_set" / "claims_set.jsonl"
NOW = datetime(2026, 12, 31, tzinfo=timezone.utc)


def _ratio(a: int, b: int) -> float | None:
    return a / b if b else None


def score(path: Path = SET) -> dict:
    from trace_audit.ingest.load.loader import ingest
    from trace_audit.queries.warehouse import db
    from trace_audit.queries.engine import run_rules

    with tempfile.TemporaryDirectory() as tmp:
        dbp = os.path.join(tmp, "claims.duckdb")
        ingest([str(path)], dbp, progress=False)
        con = db.connect(dbp)
        try:
            result = run_rules(con, now=NOW, rule_ids=["said_but_not_done", "reply_not_recorded"])
            if result.failed:
                raise SystemExit(f"rule failed: {result.failed}")
            labels = {tid: lab for tid, meta in con.execute("SELECT task_id, metadata FROM tasks").fetchall()
                      if (lab := (json.loads(meta or "null") or {}).get("label"))}  # unlabelled turns are not scored
            replies = dict(con.execute("SELECT task_id, content FROM messages WHERE role = 'assistant'").fetchall())
            found = {}
            for rule, tid, ev in con.execute("SELECT rule_id, task_id, evidence FROM findings WHERE run_id = ? "
                                             "ORDER BY rule_id", [result.run_id]).fetchall():
                found[tid] = json.loads(ev).get("kind") if rule == "said_but_not_done" else "unjudged"
        finally:
            con.close()
    cats: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    misses = []
    for tid, lab in sorted(labels.items()):
        want = lab["said_but_not_done"]
        got = found.get(tid)
        for key in (lab["category"], f"lang:{lab['lang']}", "ALL"):
            c = cats[key]
            if want == "unjudged":
                c["unjudged"] += 1
                c["unjudged_shown" if got == "unjudged" else "unjudged_lost"] += 1
                continue
            fired = got is not None and got != "unjudged"
            if want == "yes":
                c["tp" if fired else "fn"] += 1
                if fired and got == lab["kind"]:
                    c["kind_ok"] += 1
            else:
                c["fp" if fired else "tn"] += 1
        if want == "unjudged" and got != "unjudged":
            misses.append((tid, lab, "unjudged turn not reported", replies.get(tid)))
        elif want == "yes" and (got is None or got == "unjudged"):
            misses.append((tid, lab, "missed (fn)", replies.get(tid)))
        elif want == "no" and got is not None and got != "unjudged":
            misses.append((tid, lab, f"false alarm (fp, {got})", replies.get(tid)))
        elif want == "yes" and got != lab["kind"]:
            misses.append((tid, lab, f"kind {got}, want {lab['kind']}", replies.get(tid)))
    table = {}
    for key, c in cats.items():
        c = {k: c.get(k, 0) for k in ("tp", "fp", "fn", "tn", "kind_ok", "unjudged", "unjudged_shown",
                                      "unjudged_lost")}
        table[key] = {**c, "precision": _ratio(c["tp"], c["tp"] + c["fp"]), "recall": _ratio(c["tp"], c["tp"] + c["fn"]),
                      "kind_accuracy": _ratio(c["kind_ok"], c["tp"])}
    return {"categories": table, "misses": [{"task_id": t, "case": lab["case"], "category": lab["category"],
                                             "problem": p, "reply": r} for t, lab, p, r in misses]}


def _fmt(x: float | None) -> str:
    return "  -  " if x is None else f"{x:.3f}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("path", nargs="?", type=Path, default=SET, help="the set's JSONL (default: %(default)s)")
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    if not a.path.is_file():
        print(f"claims_eval: no such file: {a.path}", file=sys.stderr)
        return 2
    s = score(a.path)
    if not s["categories"]:
        print(f"claims_eval: no labelled turns in {a.path} (task metadata.label): nothing to score", file=sys.stderr)
        return 2
    if a.json:
        print(json.dumps(s, ensure_ascii=False, indent=1))
        return 0
    print(f"{'category':<16} {'tp':>4} {'fp':>4} {'fn':>4} {'tn':>4} {'precision':>9} {'recall':>7} {'kind':>6}")
    order = sorted(s["categories"], key=lambda k: (k == "ALL", k.startswith("lang:"), k))
    for k in order:
        c = s["categories"][k]
        extra = f"  unjudged {c.get('unjudged', 0)} (shown {c.get('unjudged_shown', 0)})" if c.get("unjudged") else ""
        print(f"{k:<16} {c.get('tp', 0):>4} {c.get('fp', 0):>4} {c.get('fn', 0):>4} {c.get('tn', 0):>4} "
              f"{_fmt(c['precision']):>9} {_fmt(c['recall']):>7} {_fmt(c['kind_accuracy']):>6}{extra}")
    print(f"\n{len(s['misses'])} misses:")
    for m in s["misses"]:
        print(f"  {m['case']:<20} {m['category']:<14} {m['problem']:<28} {(m['reply'] or '').replace(chr(10), ' / ')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
